"""What both trainings share: a run folder that starts or resumes a model and its optimiser,
checkpoints written whole or not at all, the learning rate's cosine schedule, and the export to
ONNX (opset 11, batch norm folded: operators every OpenCV since 4.x runs)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from vision.networks import drop_stale_int8

log = logging.getLogger("vision.training")


class Run:
    """A training run's folder: ``checkpoint.pt`` (model, optimiser, step, arguments)."""

    def __init__(self, args: argparse.Namespace, build: Callable[[], nn.Module]) -> None:
        if args.minutes < 0:
            raise SystemExit(f"--minutes {args.minutes}: how long this sitting may last, 0 (no limit) or more")
        torch.manual_seed(args.seed)  # before the model is built: its first weights are seeded too
        torch.set_num_threads(args.threads)
        model = build()
        self.args, self.model = args, model
        self.started = time.monotonic()  # this sitting's start, for --minutes
        self.folder = Path(args.run)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.checkpoint = self.folder / "checkpoint.pt"
        self.optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
        self.step = 0
        if self.checkpoint.is_file():
            state = torch.load(self.checkpoint, weights_only=False)
            _same_model(vars(args), state.get("args", {}), self.checkpoint)
            model.load_state_dict(state["model"])
            self.optimiser.load_state_dict(state["optimizer"])
            self.step = state["step"]
            log.info("resumed at step %d", self.step)
        elif getattr(args, "start_from", None):
            _start_from(model, Path(args.start_from))

    def over(self) -> bool:
        """Whether this sitting is done: the run has taken all its ``--steps``, or this sitting
        has lasted its ``--minutes`` (then the run is saved, and goes on when started again)."""
        minutes = self.args.minutes
        return self.step >= self.args.steps or (minutes > 0 and time.monotonic() - self.started > 60 * minutes)

    def learning_rate(self) -> None:
        """The cosine schedule over ``--steps``, set for the coming step."""
        rate = self.args.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, self.step / self.args.steps)))
        for group in self.optimiser.param_groups:
            group["lr"] = rate

    def save(self, export) -> None:  # type: ignore[no-untyped-def]
        """The checkpoint (to a temporary name, then renamed), and the model exported by ``export``."""
        tmp = self.checkpoint.with_suffix(".tmp")
        state = {"model": self.model.state_dict(), "optimizer": self.optimiser.state_dict(), "step": self.step}
        torch.save({**state, "args": vars(self.args)}, tmp)
        tmp.replace(self.checkpoint)
        if self.args.out:
            export(self.model, Path(self.args.out))
        log.info("checkpoint at step %d", self.step)


class RunMismatch(SystemExit):
    """A run folder's checkpoint is of another model than the one asked for."""


def _same_model(asked: dict, saved: dict, checkpoint: Path) -> None:
    # hold_out is no part of the model, but a run resumed without it would be taught the photos
    # it was meant never to see.
    for key in ("width", "stages", "crop", "no_turn", "hold_out"):
        if key in saved and asked.get(key) != saved[key]:
            raise RunMismatch(
                f"{checkpoint} holds a model with --{key.replace('_', '-')} {saved[key]}, not {asked.get(key)}: "
                "give the same value to resume it, or another --run folder"
            )


def _start_from(model: nn.Module, checkpoint: Path) -> None:
    """A new run's first weights from another run's checkpoint: every tensor of the same shape,
    and of a layer that has grown more outputs its old ones (the new ones keep their drawn
    weights)."""
    if not checkpoint.is_file():
        raise SystemExit(f"--start-from {checkpoint}: no such checkpoint")
    old = torch.load(checkpoint, weights_only=False)["model"]
    mine = model.state_dict()
    for name, tensor in mine.items():
        given = old.get(name)
        if given is None:
            continue
        if given.shape == tensor.shape:
            mine[name] = given
        elif given.shape[1:] == tensor.shape[1:] and given.shape[0] < tensor.shape[0]:
            mine[name][: given.shape[0]] = given
        else:
            raise SystemExit(f"--start-from {checkpoint}: {name} is {tuple(given.shape)}, not {tuple(tensor.shape)}")
    model.load_state_dict(mine)
    log.info("first weights from %s", checkpoint)


def export_onnx(model: nn.Module, example: torch.Tensor, path: Path, names: tuple[str, str], dynamic: dict) -> None:
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.onnx.export(
        model,
        (example,),
        str(tmp),
        input_names=[names[0]],
        output_names=[names[1]],
        dynamic_axes=dynamic,
        opset_version=11,
        do_constant_folding=True,
        dynamo=False,
    )
    # The old network's 8-bit file goes first: at no moment does it lie beside the new network.
    if stale := drop_stale_int8(path):
        log.warning("removed %s, made from the network %s held before (quantize it again)", stale, path)
    tmp.replace(path)
    model.train()


def share(text: str) -> float:
    """An argument that is a share of the samples drawn: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a share from 0 to 1)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share from 0 to 1")
    return value


def run_parser(
    prog: str, description: str | None, *, run: str, out: str, steps: int, batch: int, width: int, threads: int,
    log_every: int, batch_help: str = "samples per step",
) -> argparse.ArgumentParser:  # fmt: skip
    """The arguments every training takes (its run folder and export, the seed, the schedule, the
    model's width, the machine's share); each training adds its own."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--run", default=run, help="run folder: checkpoint and progress (resumes from it)")
    p.add_argument("--out", default=out, help="the exported model")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=steps, help="optimiser steps in all (the learning rate's schedule)")
    p.add_argument("--batch", type=int, default=batch, help=batch_help)
    p.add_argument("--width", type=int, default=width)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--workers", type=int, default=1, help="processes drawing the training data")
    p.add_argument("--threads", type=int, default=threads)
    p.add_argument("--log-every", type=int, default=log_every)
    p.add_argument("--checkpoint-every", type=int, default=500)
    p.add_argument("--start-from", help="a new run's first weights from this checkpoint (another run's)")
    p.add_argument("--minutes", type=float, default=0, help="stop this sitting after so many minutes (0: never)")
    p.add_argument(
        "--hold-out",
        action="store_true",
        help="teach the training photos but every third run of them (vision.photo_set.held_out): to compare "
        "recipes on photos none of them was taught (--half held-out)",
    )
    return p


def run_main(
    parser: Callable[[], argparse.ArgumentParser], train: Callable[[argparse.Namespace], Any], argv: list[str] | None
) -> None:
    """A training from the command line: its log on standard error, its summary as JSON."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    print(json.dumps(train(parser().parse_args(argv))))
