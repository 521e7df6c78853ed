"""Models chosen between on the selection sets: ``python -m benchmarks.selection --model PATH``
(and ``--reader``, ``--turner``, ``--corner``), the shipped models against those given, each file
not given being the shipped one (``with_shipped``); or ``--no-corner``, the shipped models against
themselves without the corner reader.

The selection sets are the ones ``docs/vision.md`` chooses every model on, never the figures'
own sets (the validation half of the real photos, rendered seed 11):

- the training half of the real photos, read as ``croupier vision scan`` reads a photo;
- rendered scenes of the four designs, seed 12 at 720p (``--scenes``, 30) and at 1080p (two
  thirds as many), seeds 13 and 14 at 720p, and seed 12 at 720p in grey (a camera without
  colour: suits told by their shape alone);
- whole tricks on the mat, through the observer and the tracker (``--tricks`` a design, 24).

Printed: each measure's right and wrong reads (tricks: exact tricks, wrong and missed plays) for
both sets of models, side by side (each measure as it is done, then the table); ``--json`` for
the figures.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import cast

from benchmarks.model_options import add_model_options, given_detector
from benchmarks.tricks import DESIGNS, measure
from benchmarks.vision import AccuracyFigure, real_figures, rendered_figures
from vision.decks import deck_available
from vision.indices import IndexDetector


@dataclass(frozen=True, slots=True)
class Figure:
    """One measure for one set of models: ``right`` of ``of`` (exact tricks of tricks, for the
    tricks), ``wrong`` reads (wrong plays), and plays ``missed`` (tricks only)."""

    measure: str
    right: int
    wrong: int
    of: int
    missed: int | None = None

    def __str__(self) -> str:
        if self.missed is None:
            return f"{self.right} / {self.wrong} of {self.of}"
        return f"{self.right} of {self.of} ({self.wrong} wrong, {self.missed} missed)"


def _summed(name: str, figures: list[AccuracyFigure]) -> Figure:
    return Figure(name, sum(f.right for f in figures), sum(f.wrong for f in figures), sum(f.cards for f in figures))


def selection_figures(
    detector: IndexDetector | None,
    scenes: int = 30,
    tricks: int = 24,
    photos: int | None = None,
    progress: Callable[[str], None] = lambda _line: None,
) -> list[Figure]:
    """Every selection measure for ``detector`` (None: the shipped models); ``photos`` caps the
    training photos read (None: all)."""
    out = []
    real = [f for f in real_figures(photos, detector, half="train") if f.source.endswith(": all")]
    out.append(_summed("training photos, right / wrong", real))
    progress(f"{out[-1].measure}: {out[-1]}")
    rendered = (
        ("rendered seed 12, 720p", (1280, 720), (12,), scenes, False),
        ("rendered seed 12, 1080p", (1920, 1080), (12,), max(1, scenes * 2 // 3), False),
        ("rendered seeds 13-14, 720p", (1280, 720), (13, 14), scenes, False),
        ("rendered seed 12, 720p, grey", (1280, 720), (12,), scenes, True),
    )
    for name, size, seeds, count, grey in rendered:
        out.append(_summed(name, rendered_figures(count, size, seeds, detector, grey)))
        progress(f"{out[-1].measure}: {out[-1]}")
    played = [measure(d, tricks, 0, detector) for d in DESIGNS if d == "project" or deck_available(d)]
    out.append(
        Figure(
            "tricks exact",
            sum(cast(int, r["exact"]) for r in played),
            sum(cast(int, r["wrong"]) for r in played),
            sum(cast(int, r["tricks"]) for r in played),
            sum(cast(int, r["missed"]) for r in played),
        )
    )
    progress(f"{out[-1].measure}: {out[-1]}")
    return out


def table(shipped: list[Figure], given: list[Figure]) -> str:
    """The two sets of models' figures side by side, a measure a line."""
    width = max(len(f.measure) for f in shipped)
    lines = [f"{'measure':{width}}  {'shipped':28}  given"]
    for a, b in zip(shipped, given, strict=True):
        lines.append(f"{a.measure:{width}}  {a!s:28}  {b}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.selection", description=__doc__.splitlines()[0])
    add_model_options(parser)
    parser.add_argument("--scenes", type=int, default=30, help="rendered scenes a design and seed at 720p")
    parser.add_argument("--tricks", type=int, default=24, help="tricks a design")
    parser.add_argument("--photos", type=int, help="read only this many training photos (a quick look)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.scenes < 1 or args.tricks < 1 or (args.photos is not None and args.photos < 1):
        parser.error("--scenes, --tricks and --photos must be at least 1")
    candidate = given_detector(parser, args)
    if candidate is None:
        parser.error(
            "give a model to compare with the shipped ones (--model, --reader, --turner or --corner;"
            " or --no-corner, --float-readers, --no-ink, --fuse-grey-suit)"
        )
    say = (lambda _line: None) if args.json else (lambda line: print(f"   {line}", flush=True))
    figures = {}
    for name, detector in (("shipped", None), ("given", candidate)):
        if not args.json:
            print(f"{name}:", flush=True)
        figures[name] = selection_figures(detector, args.scenes, args.tricks, args.photos, say)
    if args.json:
        print(json.dumps({k: [asdict(f) for f in v] for k, v in figures.items()}, indent=1))
    else:
        print(table(figures["shipped"], figures["given"]))


if __name__ == "__main__":
    main()
