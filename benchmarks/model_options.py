"""The models a vision benchmark measures: ``--model``, ``--reader``, ``--turner`` and ``--corner``,
each another file than the shipped one (the others shipped: :func:`vision.indices.with_shipped`),
or ``--no-corner``: the shipped models without the corner reader; ``--float-readers``: the
shipped readers in 32-bit floats rather than their 8-bit files; ``--no-ink``: without the check of
red reads' ink (:mod:`vision.ink`); ``--fuse-grey-suit``: in a frame without colour, the detector's
suit weighed with the reader's (:class:`vision.indices.IndexDetector`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.index_readers import ONE_HEIGHT
from vision.indices import IndexDetector, with_shipped
from vision.networks import ModelError


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", type=Path, help="another index detector (ONNX) than the shipped one")
    parser.add_argument("--reader", type=Path, help="another reader than the shipped one")
    parser.add_argument("--turner", type=Path, help="another turner than the shipped one")
    parser.add_argument("--corner", type=Path, help="another corner reader than the shipped one")
    parser.add_argument("--no-corner", action="store_true", help="without the corner reader, to compare")
    parser.add_argument(
        "--float-readers", action="store_true", help="the shipped readers in floats, not 8-bit, to compare"
    )
    parser.add_argument("--no-ink", action="store_true", help="without the check of red reads' ink, to compare")
    parser.add_argument(
        "--crop-heights",
        type=_factors,
        help="each index cut at its agreed height and these factors of it, the reader reading the crop it is"
        " surest holds an index (e.g. 0.85,1,1.18), to compare",
    )
    parser.add_argument(
        "--fuse-grey-suit",
        action="store_true",
        help="in a frame without colour, the detector's suit weighed with the reader's, to compare",
    )


def _factors(text: str) -> tuple[float, ...]:
    try:
        factors = tuple(float(f) for f in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give factors of a height, such as 0.85,1,1.18") from None
    if not all(0.5 <= f <= 2.0 for f in factors):
        raise argparse.ArgumentTypeError(f"{text!r}: each factor must be from 0.5 to 2")
    return factors


def given_detector(parser: argparse.ArgumentParser, args: argparse.Namespace) -> IndexDetector | None:
    """The detector of the files given (None: none given, the shipped models); a file missing or
    not a model ends the command with why."""
    given = [p for p in (args.model, args.reader, args.turner, args.corner) if p is not None]
    for path in given:
        if not path.is_file():
            parser.error(f"{path}: no such model file")
    if args.no_corner and args.corner is not None:
        parser.error("--corner and --no-corner: give one")
    options = (args.no_corner, args.float_readers, args.no_ink, args.fuse_grey_suit, args.crop_heights)
    if not given and not any(options):
        return None
    try:
        return with_shipped(
            args.model,
            args.reader,
            args.turner,
            args.corner,
            float_readers=args.float_readers,
            read_corner=not args.no_corner,
            check_ink=not args.no_ink,
            fuse_grey_suit=args.fuse_grey_suit,
            crop_heights=args.crop_heights or ONE_HEIGHT,
        )
    except ModelError as exc:
        parser.error(str(exc))
