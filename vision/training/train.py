"""Train the index detector: ``python -m vision.training.train`` (see ``--help``).

Seeded and resumable: every ``--checkpoint-every`` steps the model, the optimiser and the step
are saved in the run folder, and a run started again with the same folder goes on from there
(the data's random streams are seeded by the seed and the step, so a resumed run draws new
scenes, not the first ones again). At the end, and at every checkpoint, the model is exported
to ONNX (``--out``), which is all the table ever loads. The table runs the detector in 8-bit
integers, made from this file by ``python -m vision.training.quantize``: run it after shipping
a detector trained anew.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

from vision import photo_set as photos
from vision.training import synth
from vision.training.faces import enrolled_faces
from vision.training.model import IndexNet
from vision.training.pasted import RealIndices
from vision.training.runs import Run, export_onnx, run_main, run_parser, share
from vision.training.targets import RANKS, SUITS, Mark, build

log = logging.getLogger("vision.training")

SIZE = 256


class Scenes(IterableDataset):
    """An endless stream of (image, targets): synthetic scenes and crops of the training photos."""

    def __init__(
        self,
        seed: int,
        start_step: int,
        real_share: float,
        synthetic_only: bool = False,
        faces: tuple[str, ...] = (),
        drawn_jokers: float = 0.0,
        hold_out: bool = False,
        joker_word: bool = False,
        pasted: float = 0.0,
    ) -> None:
        self.seed, self.start_step, self.real_share = seed, start_step, real_share
        self.hold_out = hold_out  # the training photos but those held out (vision.photo_set.held_out)
        self.synthetic_only = synthetic_only
        self.faces = faces
        self.drawn_jokers = drawn_jokers  # of the drawn faces, the share that are jokers (synth.FacePool)
        self.joker_word = joker_word  # a photo's joker scaled by its word's height (photo_set.index_height)
        self.pasted = pasted  # of the scenes' faces, the share given a training photo's index (synth.FacePool)

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        worker = info.id if info else 0
        rng = np.random.default_rng([self.seed, self.start_step, worker])
        extra = {folder: enrolled_faces(Path(folder)) for folder in self.faces}
        train: list[photos.Photo] = []
        images: dict[str, np.ndarray] = {}
        if not self.synthetic_only and (self.real_share > 0 or self.pasted > 0):
            try:
                train = photos.training_photos(self.hold_out)
            except photos.PhotoSetError as e:
                log.warning("training on synthetic scenes only: %s", e)
        real = RealIndices(train, images) if train and self.pasted > 0 else None
        pool = synth.FacePool(rng, extra=extra, drawn_jokers=self.drawn_jokers, real=real, pasted_share=self.pasted)
        if self.real_share == 0:
            train = []  # taken for their indices only
        while True:
            if train and rng.random() < self.real_share:
                photo = train[int(rng.integers(len(train)))]
                if photo.name not in images:
                    images[photo.name] = photo.image()
                image, marks = _real(rng, photo, images[photo.name], self.joker_word)
            else:
                image, labels = synth.scene(rng, pool, SIZE)
                marks = [_mark(label) for label in labels]
            t = build(marks, SIZE)
            x = torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1))).float() / 255
            yield x, {k: torch.from_numpy(getattr(t, k)) for k in t.__dataclass_fields__}


def _mark(label: synth.IndexLabel) -> Mark:
    target = label.state == "target"
    if not label.geometry:
        return Mark(label.centre, label.height, label.card, target)
    return Mark(label.centre, label.height, label.card, target, label.height, label.width, label.angle_deg)


def _real(
    rng: np.random.Generator, photo: photos.Photo, image: np.ndarray, joker_word: bool = False
) -> tuple[np.ndarray, list[Mark]]:
    crop, found = photos.training_crop(rng, photo, image, SIZE, joker_word)
    crop = synth._camera(rng, crop.astype(np.float32) * rng.uniform(0.85, 1.15, 3))
    return crop, [Mark(centre, size, card, whole) for centre, size, card, whole in found]


def losses(out: torch.Tensor, t: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    heat = out[:, :1]
    p = torch.sigmoid(heat).clamp(1e-4, 1 - 1e-4)
    pos = (t["heat"] >= 1).float()
    weight = torch.maximum(t["heat_weight"], pos)
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - t["heat"]) ** 4 * (1 - pos)
    n = pos.sum().clamp(min=1)
    focal = ((pos_loss + neg_loss) * weight).sum() / n
    b, c, h, w = out.shape
    valid = t["valid"] > 0
    r0, s0 = 1, 1 + len(RANKS)
    g0 = s0 + len(SUITS)
    flat = out.flatten(2)
    y, x = t["cells"] // w, t["cells"] % w
    rank = suit = out.sum() * 0
    # The rank and suit are taught at the centre's cell and its eight neighbours: nine times the
    # examples for the glyphs' shapes, and a read that holds a cell off the heat map's peak.
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            cells = ((y + dy).clamp(0, h - 1) * w + (x + dx).clamp(0, w - 1))[:, None, :].expand(b, c, -1)
            at = flat.gather(2, cells).permute(0, 2, 1)[valid]  # (N, C)
            if len(at):
                rank = rank + F.cross_entropy(at[:, r0:s0], t["rank"][valid]) / 9
                suit = suit + F.cross_entropy(at[:, s0:g0], t["suit"][valid]) / 9
    centre = flat.gather(2, t["cells"][:, None, :].expand(b, c, -1)).permute(0, 2, 1)
    geo = t["has_geometry"] > 0
    geometry = F.l1_loss(centre[geo][:, g0:], t["geometry"][geo]) if geo.any() else out.sum() * 0
    return {"heat": focal, "rank": rank, "suit": suit, "geometry": geometry}


def export(model: IndexNet, path: Path) -> None:
    """The model as ONNX (any input size divisible by 16)."""
    dynamic = {"image": {2: "height", 3: "width"}, "maps": {2: "h4", 3: "w4"}}
    export_onnx(model, torch.zeros(1, 3, SIZE, SIZE), path, ("image", "maps"), dynamic)


def train(args: argparse.Namespace) -> dict[str, float]:
    run = Run(args, lambda: IndexNet(args.width))
    model = run.model
    step = run.step
    data = DataLoader(
        Scenes(
            args.seed,
            step,
            args.real_share,
            args.synthetic_only,
            tuple(args.faces),
            args.drawn_jokers,
            args.hold_out,
            args.joker_word,
            args.pasted,
        ),
        batch_size=args.batch,
        num_workers=args.workers,
    )
    started, first_step = time.monotonic(), step
    history: dict[str, float] = {}
    smooth: dict[str, float] = {}
    losses_seen: list[float] = []
    for x, t in data:
        if run.over():
            break
        run.learning_rate()
        parts = losses(model(x), t)
        loss = parts["heat"] + 2 * (parts["rank"] + parts["suit"]) + 0.5 * parts["geometry"]
        run.optimiser.zero_grad()
        loss.backward()
        run.optimiser.step()
        step = run.step = run.step + 1
        for k, v in {"loss": loss, **parts}.items():
            smooth[k] = 0.98 * smooth.get(k, float(v.detach())) + 0.02 * float(v.detach())
        losses_seen.append(float(loss.detach()))
        if step % args.log_every == 0:
            rate = (step - first_step) * args.batch / max(1e-6, time.monotonic() - started)
            log.info("step %d %s (%.1f samples/s)", step, " ".join(f"{k} {v:.3f}" for k, v in smooth.items()), rate)
            (run.folder / "progress.json").write_text(json.dumps({"step": step, **smooth}))
        if step % args.checkpoint_every == 0:
            run.save(export)
    run.save(export)
    tenth = max(1, len(losses_seen) // 10)
    if losses_seen:  # the mean loss of this sitting's first and last tenth of steps
        history["first_loss"] = float(np.mean(losses_seen[:tenth]))
        history["last_loss"] = float(np.mean(losses_seen[-tenth:]))
    history.update({"steps": step, **smooth})
    return history


def parser() -> argparse.ArgumentParser:
    p = run_parser(
        "python -m vision.training.train", __doc__, run="runs/indices", out="vision/models/indices.onnx",
        steps=8000, batch=16, width=32, threads=2, log_every=50,
    )  # fmt: skip
    p.add_argument("--real-share", type=share, default=0.3, help="share of samples cut from the training photos")
    p.add_argument("--synthetic-only", action="store_true")
    p.add_argument(
        "--drawn-jokers", type=share, default=0.0,
        help="of the faces drawn in fonts, the share that are jokers (0: 2 in 54, as they come)",
    )  # fmt: skip
    p.add_argument(
        "--joker-word", action="store_true",
        help="scale a training photo's joker by its word's height, not its width (photo_set.index_height)",
    )  # fmt: skip
    p.add_argument(
        "--pasted", type=share, default=0.0,
        help="of the scenes' faces, the share given a training photo's index instead (vision.training.pasted)",
    )  # fmt: skip
    p.add_argument("--faces", action="append", default=[], help="an enrolled deck's folder to draw faces from too")
    return p


def main(argv: list[str] | None = None) -> None:
    run_main(parser, train, argv)


if __name__ == "__main__":
    main()
