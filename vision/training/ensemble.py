"""Several trained readers, or detectors, made into one: ``python -m vision.training.ensemble
A.onnx B.onnx --out vision/models/reader.onnx``.

The readers read the same crops, and the one reader's probabilities are the mean of theirs (of the
ranks with *no index*, and of the suits; a turner's turn is the mean of theirs), given as their
logarithms, which the table's softmax reads back: a card is as sure as the readers are on average,
and one that only one of them is sure of is not sure. The shipped reader is two readers of one
command, run from two seeds, made into one this way (docs/vision.md, *The reader*). The result is
one ONNX file with the members' input and output, so the table, the benchmarks and ``python -m
vision.training.quantize`` take it as any reader; every member must read the same window (its
``reader.json``) and give the same outputs.

Index detectors are made one alike, cell by cell of their maps: the chance an index lies there is
the mean of theirs (given as its logit again), its rank and suit the mean of their probabilities,
its size and up direction the mean of theirs. The table takes the file as any detector.

``python -m vision.training.ensemble vision/models/reader.onnx --member 1 --out R.onnx`` takes one
member out of such a file again, a network by itself: to set a newly trained reader beside the
shipped one's first network, say, where the members' own training files are gone.
"""

from __future__ import annotations

import argparse
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, compose, helper, shape_inference
from onnx.utils import Extractor

from vision.index_crops import CropSpec, CropSpecError, spec_of, write_spec
from vision.index_readers import READER_OUTPUTS
from vision.index_reads import RANKS, SUITS
from vision.networks import drop_stale_int8

log = logging.getLogger("vision.training")


@dataclass(frozen=True, slots=True)
class Kind:
    """A network the table runs several of as one: its input and output's names."""

    name: str
    input: str
    output: str


READER = Kind("reader", "crops", "logits")  # vision.training.reader.export
DETECTOR = Kind("detector", "image", "maps")  # vision.training.train.export
KINDS = (READER, DETECTOR)


class EnsembleError(ValueError):
    """Networks that cannot be made into one."""


@dataclass(frozen=True, slots=True)
class Member:
    """One network to be made one with others."""

    model: onnx.ModelProto
    kind: Kind
    spec: CropSpec | None  # a reader's window; a detector has none
    width: int  # outputs (a reader's logits, a detector's maps)


def _member(path: Path) -> Member:
    """A member network: a reader (crops to logits) with its window, or a detector (an image to maps)."""
    try:
        model = onnx.load(str(path))
    except (OSError, DecodeError) as e:
        raise EnsembleError(f"{path}: not an ONNX model ({e})") from e
    inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    outputs = [o.name for o in model.graph.output]
    kind = next((k for k in KINDS if inputs == [k.input] and outputs == [k.output]), None)
    if kind is None:
        raise EnsembleError(
            f"{path}: neither a reader nor a detector (inputs {inputs}, outputs {outputs}; a reader maps"
            " crops to logits, a detector an image to maps)"
        )
    spec = None
    if kind is READER:
        try:
            spec = spec_of(path)
        except CropSpecError as e:
            raise EnsembleError(str(e)) from e
    dims = model.graph.output[0].type.tensor_type.shape.dim
    return Member(model, kind, spec, int(dims[1].dim_value))


# How each group of outputs is averaged: as probabilities of classes (their logarithms again, which
# the table's softmax reads back), as the probability of a logit (its logit again), or as it is.
CLASSES, CHANCE, AS_IS = "classes", "chance", "as is"


def _groups(kind: Kind, width: int) -> list[tuple[str, int, int, str]]:
    """A network's outputs in groups (name, first, end, how they are averaged): a reader's ranks
    (with *no index*), its suits and a turner's turn; a detector's heat, ranks, suits and geometry
    (log height, log width, sine and cosine of the up direction)."""
    if kind is DETECTOR:
        ranks, suits = 1 + len(RANKS), 1 + len(RANKS) + len(SUITS)
        return [("heat", 0, 1, CHANCE), ("ranks", 1, ranks, CLASSES), ("suits", ranks, suits, CLASSES),
                ("geometry", suits, width, AS_IS)]  # fmt: skip
    ranks = len(RANKS) + 1
    out = [("ranks", 0, ranks, CLASSES), ("suits", ranks, READER_OUTPUTS, CLASSES)]
    if width > READER_OUTPUTS:
        out.append(("turn", READER_OUTPUTS, width, AS_IS))
    return out


def _mean_of(outputs: list[str], kind: Kind, width: int) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """The nodes that make the members' outputs one network's: in each group of classes the mean
    of the members' probabilities, as logits again (their logarithm; the table's softmax gives the
    mean back); a detector's heat, the mean of the members' chances as a logit again; the rest
    (a turner's turn, a detector's size and direction), the mean of the members'."""
    weight = helper.make_tensor("ensemble/weight", TensorProto.FLOAT, [], [1.0 / len(outputs)])
    axis = helper.make_tensor("ensemble/axis", TensorProto.INT64, [1], [1])
    initializers, nodes, parts = [weight, axis], [], []

    def node(op: str, inputs: list[str], name: str, **attributes: int | list[int]) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    for group, first, end, averaged in _groups(kind, width):
        bounds = [
            helper.make_tensor(f"ensemble/{group}/{b}", TensorProto.INT64, [1], [v])
            for b, v in (("first", first), ("end", end))
        ]
        initializers += bounds
        each = []
        for k, name in enumerate(outputs):
            part = node("Slice", [name, bounds[0].name, bounds[1].name, axis.name], f"ensemble/{group}/m{k}")
            if averaged == CLASSES and kind is DETECTOR:
                # Before opset 13 a softmax runs over every axis from its own on: the classes are
                # moved last for it, so that each cell of the maps is a distribution of its own.
                last = node("Transpose", [part], part + "/last", perm=[0, 2, 3, 1])
                probabilities = node("Softmax", [last], last + "/p", axis=3)
                part = node("Transpose", [probabilities], part + "/p", perm=[0, 3, 1, 2])
            elif averaged == CLASSES:
                part = node("Softmax", [part], part + "/p", axis=1)
            elif averaged == CHANCE:
                part = node("Sigmoid", [part], part + "/p")
            each.append(part)
        total = node("Sum", each, f"ensemble/{group}/sum")
        mean = node("Mul", [total, weight.name], f"ensemble/{group}/mean")
        if averaged == CLASSES:
            mean = node("Log", [mean], mean + "/log")
        elif averaged == CHANCE:  # the mean chance's logit: log p - log (1 - p)
            one = helper.make_tensor(f"ensemble/{group}/one", TensorProto.FLOAT, [], [1.0])
            initializers.append(one)
            against = node("Sub", [one.name, mean], mean + "/against")
            log_p, log_q = node("Log", [mean], mean + "/log"), node("Log", [against], against + "/log")
            mean = node("Sub", [log_p, log_q], mean + "/logit")
        parts.append(mean)
    nodes.append(helper.make_node("Concat", parts, [kind.output], name=f"ensemble/{kind.output}", axis=1))
    return nodes, initializers


def ensemble(members: list[Path], out: Path) -> None:
    """One ONNX network at ``out`` (a reader's window beside it) whose outputs are the mean of the
    ``members``' (:func:`_mean_of`): readers of one window, or detectors."""
    if len(members) < 2:
        raise EnsembleError("an ensemble needs two networks or more")
    loaded = [_member(path) for path in members]
    first = loaded[0]
    for path, other in zip(members[1:], loaded[1:], strict=True):
        if other.kind is not first.kind:
            raise EnsembleError(f"{path} is a {other.kind.name}, {members[0]} a {first.kind.name}")
        if other.spec != first.spec:
            raise EnsembleError(f"{path} reads another window than {members[0]}: {other.spec} against {first.spec}")
        if other.width != first.width:
            raise EnsembleError(f"{path} gives {other.width} {first.kind.output}, {members[0]} gives {first.width}")
    kind = first.kind
    opset = max(op.version for m in loaded for op in m.model.opset_import if op.domain in ("", "ai.onnx"))
    nodes, initializers, member_outputs = [], [], []
    for k, m in enumerate(loaded):
        named = compose.add_prefix(m.model, f"m{k}/")
        for n in named.graph.node:
            n.input[:] = [kind.input if name == f"m{k}/{kind.input}" else name for name in n.input]
        nodes.extend(named.graph.node)
        initializers.extend(named.graph.initializer)
        member_outputs.append(f"m{k}/{kind.output}")
    mean_nodes, mean_initializers = _mean_of(member_outputs, kind, first.width)
    nodes.extend(mean_nodes)
    initializers.extend(mean_initializers)
    graph = first.model.graph
    merged = helper.make_graph(nodes, f"{kind.name}_ensemble", [graph.input[0]], [graph.output[0]], initializers)
    model = helper.make_model(merged, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = first.model.ir_version
    _save(model, out, first.spec)


def member(path: Path, k: int, out: Path) -> None:
    """The ``k``-th member (from 0) of the networks made one at ``path``, as a network by itself at
    ``out`` (a reader's window beside it)."""
    whole = _member(path)
    model, kind = whole.model, whole.kind
    names = {o for node in model.graph.node for o in node.output}
    count = sum(1 for name in names if re.fullmatch(rf"m\d+/{kind.output}", name))
    if count == 0:
        raise EnsembleError(f"{path}: not {kind.name}s made one (no member's {kind.output} in it)")
    if not 0 <= k < count:
        raise EnsembleError(f"{path} has {count} members, 0 to {count - 1}; there is no member {k}")
    # The extractor needs every value's shape, which the ensemble's file does not record.
    single = Extractor(shape_inference.infer_shapes(model)).extract_model([kind.input], [f"m{k}/{kind.output}"])
    for node in single.graph.node:
        node.output[:] = [kind.output if name == f"m{k}/{kind.output}" else name for name in node.output]
    single.graph.output[0].name = kind.output
    _save(single, out, whole.spec)


def _save(model: onnx.ModelProto, out: Path, spec: CropSpec | None) -> None:
    """A network checked and written whole (never half a file at ``out``), a reader's window beside it."""
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    # The old network's 8-bit file goes first: at no moment does it lie beside the new one.
    if stale := drop_stale_int8(out):
        log.warning("removed %s, made from the network %s held before (quantize it again)", stale, out)
    tmp.replace(out)
    if spec is not None:
        write_spec(out, spec)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m vision.training.ensemble", description=__doc__)
    p.add_argument("members", nargs="+", type=Path, help="the readers (each with its window beside it) or detectors")
    p.add_argument("--out", type=Path, required=True, help="the one network made of them")
    p.add_argument("--member", type=int, help="take this member (from 0) out of one ensemble instead")
    args = p.parse_args(argv)
    try:
        if args.member is not None:
            if len(args.members) != 1:
                p.error("--member takes one member out of one ensemble: give one file")
            member(args.members[0], args.member, args.out)
            print(f"{args.out}: member {args.member} of {args.members[0]}")
            return
        ensemble(args.members, args.out)
    except EnsembleError as e:
        p.error(str(e))
    print(f"{args.out}: the mean of {len(args.members)} networks")


if __name__ == "__main__":
    main()
