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
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, compose, helper

from vision.index_crops import CropSpec, CropSpecError, spec_of, write_spec
from vision.index_readers import READER_OUTPUTS
from vision.index_reads import RANKS

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
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    onnx.save(merged, str(tmp))
    tmp.replace(out)
    write_spec(out, spec)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m vision.training.ensemble", description=__doc__)
    p.add_argument("members", nargs="+", type=Path, help="the readers (ONNX), each with its window beside it")
    p.add_argument("--out", type=Path, required=True, help="the one reader made of them")
    args = p.parse_args(argv)
    try:
        ensemble(args.members, args.out)
    except EnsembleError as e:
        p.error(str(e))
    print(f"{args.out}: the mean of {len(args.members)} readers")


if __name__ == "__main__":
    main()
