"""Several trained readers made into one: ``python -m vision.training.ensemble A.onnx B.onnx --out
vision/models/reader.onnx``.

The readers read the same crops, and the one reader's probabilities are the mean of theirs (of the
ranks with *no index*, and of the suits; a turner's turn is the mean of theirs), given as their
logarithms, which the table's softmax reads back: a card is as sure as the readers are on average,
and one that only one of them is sure of is not sure. The shipped reader is two readers of one
command, run from two seeds, made into one this way (docs/vision.md, *The reader*). The result is
one ONNX file with the members' input and output, so the table, the benchmarks and ``python -m
vision.training.quantize`` take it as any reader; every member must read the same window (its
``reader.json``) and give the same outputs.

``python -m vision.training.ensemble vision/models/reader.onnx --member 1 --out R.onnx`` takes one
member out of such a file again, a reader by itself: to set a newly trained reader beside the
shipped one's first network, say, where the members' own training files are gone.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, compose, helper, shape_inference
from onnx.utils import Extractor

from vision.index_crops import CropSpec, CropSpecError, spec_of, write_spec
from vision.index_readers import READER_OUTPUTS
from vision.index_reads import RANKS
from vision.networks import drop_stale_int8

log = logging.getLogger("vision.training")

INPUT, OUTPUT = "crops", "logits"  # a reader's input and output (vision.training.reader.export)


class EnsembleError(ValueError):
    """Readers that cannot be made into one."""


def _member(path: Path) -> tuple[onnx.ModelProto, CropSpec, int]:
    """A member reader, its window and how many logits it gives."""
    try:
        model = onnx.load(str(path))
    except (OSError, DecodeError) as e:
        raise EnsembleError(f"{path}: not an ONNX model ({e})") from e
    try:
        spec = spec_of(path)
    except CropSpecError as e:
        raise EnsembleError(str(e)) from e
    inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    outputs = [o.name for o in model.graph.output]
    if inputs != [INPUT] or outputs != [OUTPUT]:
        raise EnsembleError(f"{path}: not a reader (inputs {inputs}, outputs {outputs}; a reader maps crops to logits)")
    dims = model.graph.output[0].type.tensor_type.shape.dim
    return model, spec, int(dims[-1].dim_value)


def _groups(width: int) -> list[tuple[str, int, int, bool]]:
    """A reader's outputs in groups (name, first, end, whether a softmax makes them
    probabilities): the ranks (with *no index*), the suits, and a turner's turn."""
    ranks = len(RANKS) + 1
    out = [("ranks", 0, ranks, True), ("suits", ranks, READER_OUTPUTS, True)]
    if width > READER_OUTPUTS:
        out.append(("turn", READER_OUTPUTS, width, False))
    return out


def _mean_of(outputs: list[str], width: int) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """The nodes that make the members' logits one reader's: in each group of classes the mean
    of the members' probabilities, as logits again (their logarithm; the reader's softmax gives
    the mean back); a turner's turn, the mean of the members'."""
    weight = helper.make_tensor("ensemble/weight", TensorProto.FLOAT, [], [1.0 / len(outputs)])
    axis = helper.make_tensor("ensemble/axis", TensorProto.INT64, [1], [1])
    initializers, nodes, parts = [weight, axis], [], []
    for group, first, end, softmax in _groups(width):
        bounds = [
            helper.make_tensor(f"ensemble/{group}/{b}", TensorProto.INT64, [1], [v])
            for b, v in (("first", first), ("end", end))
        ]
        initializers += bounds
        each = []
        for k, name in enumerate(outputs):
            part = f"ensemble/{group}/m{k}"
            nodes.append(
                helper.make_node("Slice", [name, bounds[0].name, bounds[1].name, axis.name], [part], name=part)
            )
            if softmax:
                nodes.append(helper.make_node("Softmax", [part], [part + "/p"], name=part + "/p", axis=1))
                part += "/p"
            each.append(part)
        total = f"ensemble/{group}/sum"
        nodes.append(helper.make_node("Sum", each, [total], name=total))
        mean = f"ensemble/{group}/mean"
        nodes.append(helper.make_node("Mul", [total, weight.name], [mean], name=mean))
        if softmax:
            nodes.append(helper.make_node("Log", [mean], [mean + "/log"], name=mean + "/log"))
            mean += "/log"
        parts.append(mean)
    nodes.append(helper.make_node("Concat", parts, [OUTPUT], name="ensemble/logits", axis=1))
    return nodes, initializers


def ensemble(members: list[Path], out: Path) -> None:
    """One ONNX reader at ``out`` (and its window beside it) whose probabilities are the mean of
    the ``members``' (:func:`_mean_of`)."""
    if len(members) < 2:
        raise EnsembleError("an ensemble needs two readers or more")
    loaded = [_member(path) for path in members]
    _, spec, width = loaded[0]
    for path, (_, other_spec, other_width) in zip(members[1:], loaded[1:], strict=True):
        if other_spec != spec:
            raise EnsembleError(f"{path} reads another window than {members[0]}: {other_spec} against {spec}")
        if other_width != width:
            raise EnsembleError(f"{path} gives {other_width} logits, {members[0]} gives {width}")
    opset = max(op.version for model, _, _ in loaded for op in model.opset_import if op.domain in ("", "ai.onnx"))
    nodes, initializers, member_outputs = [], [], []
    for k, (model, _, _) in enumerate(loaded):
        named = compose.add_prefix(model, f"m{k}/")
        for node in named.graph.node:
            node.input[:] = [INPUT if name == f"m{k}/{INPUT}" else name for name in node.input]
        nodes.extend(named.graph.node)
        initializers.extend(named.graph.initializer)
        member_outputs.append(f"m{k}/{OUTPUT}")
    mean_nodes, mean_initializers = _mean_of(member_outputs, width)
    nodes.extend(mean_nodes)
    initializers.extend(mean_initializers)
    first = loaded[0][0].graph
    graph = helper.make_graph(nodes, "reader_ensemble", [first.input[0]], [first.output[0]], initializers)
    merged = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    merged.ir_version = loaded[0][0].ir_version
    _save(merged, out, spec)


def member(path: Path, k: int, out: Path) -> None:
    """The ``k``-th member (from 0) of the readers made one at ``path``, as a reader by itself at
    ``out`` (and its window beside it)."""
    model, spec, _ = _member(path)
    names = {o for node in model.graph.node for o in node.output}
    count = sum(1 for name in names if re.fullmatch(rf"m\d+/{OUTPUT}", name))
    if count == 0:
        raise EnsembleError(f"{path}: not readers made one (no member's logits in it)")
    if not 0 <= k < count:
        raise EnsembleError(f"{path} has {count} members, 0 to {count - 1}; there is no member {k}")
    # The extractor needs every value's shape, which the ensemble's file does not record.
    single = Extractor(shape_inference.infer_shapes(model)).extract_model([INPUT], [f"m{k}/{OUTPUT}"])
    for node in single.graph.node:
        node.output[:] = [OUTPUT if name == f"m{k}/{OUTPUT}" else name for name in node.output]
    single.graph.output[0].name = OUTPUT
    _save(single, out, spec)


def _save(model: onnx.ModelProto, out: Path, spec: CropSpec) -> None:
    """A reader checked and written whole (never half a file at ``out``), its window beside it."""
    onnx.checker.check_model(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    # The old reader's 8-bit file goes first: at no moment does it lie beside the new reader.
    if stale := drop_stale_int8(out):
        log.warning("removed %s, made from the reader %s held before (quantize it again)", stale, out)
    tmp.replace(out)
    write_spec(out, spec)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m vision.training.ensemble", description=__doc__)
    p.add_argument("members", nargs="+", type=Path, help="the readers (ONNX), each with its window beside it")
    p.add_argument("--out", type=Path, required=True, help="the one reader made of them")
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
    print(f"{args.out}: the mean of {len(args.members)} readers")


if __name__ == "__main__":
    main()
