"""Several trained readers made into one: ``python -m vision.training.ensemble A.onnx B.onnx --out
runs/both/reader.onnx``.

The readers read the same crops and their logits are averaged (their probabilities multiplied,
then normalised: a card both are fairly sure of beats one that only one is sure of), to measure
whether readers trained apart read better together than each alone. The one measured so far, the
shipped reader with a wider one, is not shipped (docs/vision.md, *Readers tried beside the
shipped one*). The result is one ONNX file with the members' input and output, so the table and
the benchmarks load it as any reader; every member must read the same window (its
``reader.json``) and give the same outputs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, compose, helper

from vision.index_crops import CropSpec, CropSpecError, spec_of, write_spec

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


def ensemble(members: list[Path], out: Path) -> None:
    """One ONNX reader at ``out`` (and its window beside it) whose logits are the mean of the
    ``members``' logits."""
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
    weight = helper.make_tensor("ensemble/weight", TensorProto.FLOAT, [], [1.0 / len(loaded)])
    initializers.append(weight)
    nodes.append(helper.make_node("Sum", member_outputs, ["ensemble/sum"]))
    nodes.append(helper.make_node("Mul", ["ensemble/sum", "ensemble/weight"], [OUTPUT]))
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
