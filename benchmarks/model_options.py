"""The models a vision benchmark measures: ``--model``, ``--reader`` and ``--turner``, each another
file than the shipped one (the others shipped: :func:`vision.indices.with_shipped`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.indices import IndexDetector, ModelError, with_shipped


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", type=Path, help="another index detector (ONNX) than the shipped one")
    parser.add_argument("--reader", type=Path, help="another reader than the shipped one")
    parser.add_argument("--turner", type=Path, help="another turner than the shipped one")


def given_detector(parser: argparse.ArgumentParser, args: argparse.Namespace) -> IndexDetector | None:
    """The detector of the files given (None: none given, the shipped models); a file missing or
    not a model ends the command with why."""
    given = [p for p in (args.model, args.reader, args.turner) if p is not None]
    for path in given:
        if not path.is_file():
            parser.error(f"{path}: no such model file")
    if not given:
        return None
    try:
        return with_shipped(args.model, args.reader, args.turner)
    except ModelError as exc:
        parser.error(str(exc))
