"""The detector in 8-bit integers (``vision.training.quantize``): made from the shipped float
detector, loaded by default through onnxruntime, finding what the float one finds; and the
command on a tiny detector built here.

Needs onnx (the training extra); skipped without it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.indices import MODEL, MODEL_INT8, IndexDetector, model_path, network_input  # noqa: E402
from vision.training.quantize import QuantizeError, float_ends, main, quantize  # noqa: E402

PHOTOS = Path(__file__).parent / "photos"


def _initializers(model) -> dict[str, np.ndarray]:
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def _quantized_weights(model) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each weight the 8-bit model stores in integers, as its floats with its step (by the float
    model's name)."""
    values = _initializers(model)
    out = {}
    for node in model.graph.node:
        source = node.input[0]
        if node.op_type == "DequantizeLinear" and source.endswith("_quantized") and source in values:
            q, scale, zero = (values[name] for name in node.input[:3])
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            shape[axis] = -1
            if scale.ndim:
                scale, zero = scale.reshape(shape), zero.reshape(shape)
            out[source.removesuffix("_quantized")] = ((q.astype(np.float64) - zero) * scale, scale)
    return out


def test_the_shipped_8bit_detector_is_made_from_the_shipped_float_one():
    """Every weight of the 8-bit file is the float file's within half a step of its integers:
    a detector retrained without quantizing again fails here."""
    floats = _initializers(onnx.load(str(model_path(MODEL))))
    int8 = onnx.load(str(model_path(MODEL_INT8)))
    weights = _quantized_weights(int8)
    convs = [w for name, w in floats.items() if w.ndim == 4]
    assert len(weights) >= len(convs) - 2  # all but the two convolutions kept in floats
    for name, (value, scale) in weights.items():
        if value.ndim != 4:
            continue  # biases are quantized from the weights' and the input's scales
        assert name in floats, name
        assert np.all(np.abs(value - floats[name]) <= scale / 2 + 1e-6), name
    kept = _initializers(int8)
    for node_name in float_ends(int8):
        node = next(n for n in int8.graph.node if n.name == node_name)
        assert np.array_equal(kept[node.input[1]], floats[node.input[1]]), node_name


def test_the_table_runs_the_8bit_detector_through_onnxruntime_and_the_float_one_through_opencv():
    assert Path(IndexDetector(backend="onnxruntime").path).name == MODEL_INT8
    assert Path(IndexDetector(backend="opencv").path).name == MODEL


def test_the_8bit_detector_finds_the_indices_the_float_one_finds_in_a_real_photo():
    image = cv2.imread(str(PHOTOS / "WIN_20240627_12_06_16_Pro.jpg"), cv2.IMREAD_COLOR)
    floats = IndexDetector(model_path(MODEL), backend="onnxruntime")
    int8 = IndexDetector(model_path(MODEL_INT8), backend="onnxruntime")
    sure = [r for r in floats.detect(image, 0.6) if r.heat >= 0.5]
    found = int8.detect(image, 0.6)
    assert len(sure) >= 8
    for r in sure:
        near = [q for q in found if np.hypot(q.centre[0] - r.centre[0], q.centre[1] - r.centre[1]) < 0.3 * r.height]
        assert near and near[0].card == r.card, (r.card, r.centre, [(q.card, q.heat) for q in near])


def _tiny_detector(path: Path, image_into_two: bool = False) -> None:
    """A detector's shape in miniature: image -> conv -> relu -> conv -> relu -> conv -> maps."""
    rng = np.random.default_rng(0)

    def weight(name: str, out: int, into: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal((out, into, 3, 3)) * 0.3).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["image", "w1"], ["a"], name="first", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["b"], name="relu1"),
        helper.make_node("Conv", ["b", "w2"], ["c"], name="middle", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["d"], name="relu2"),
        helper.make_node("Conv", ["d", "w3"], ["maps"], name="head", pads=[1, 1, 1, 1]),
    ]
    if image_into_two:
        nodes[2] = helper.make_node("Conv", ["image", "w2"], ["c"], name="middle", pads=[1, 1, 1, 1])
    shape = [1, 3, "height", "width"]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 5, "height", "width"])],
        [weight("w1", 8, 3), weight("w2", 8, 3 if image_into_two else 8), weight("w3", 5, 8)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 7
    onnx.save(model, str(path))


def _images(count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    return [network_input(rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)) for _ in range(count)]


def test_quantizing_a_tiny_detector_keeps_its_ends_in_floats_and_its_maps_close(tmp_path):
    import onnxruntime

    _tiny_detector(tmp_path / "tiny.onnx")
    quantize(tmp_path / "tiny.onnx", tmp_path / "new" / "tiny.int8.onnx", _images(6))
    assert [p.name for p in (tmp_path / "new").iterdir()] == ["tiny.int8.onnx"]  # nothing half-written left
    model = onnx.load(str(tmp_path / "new" / "tiny.int8.onnx"))
    assert sorted(float_ends(model)) == ["first", "head"]
    dequantized = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    by_name = {n.name: n for n in model.graph.node}
    assert by_name["first"].input[1] not in dequantized and by_name["head"].input[1] not in dequantized
    assert by_name["middle"].input[1] in dequantized
    image = _images(1, seed=9)[0]
    paths = (tmp_path / "tiny.onnx", tmp_path / "new" / "tiny.int8.onnx")
    run = [onnxruntime.InferenceSession(str(path)) for path in paths]
    exact, approx = (s.run(None, {"image": image})[0] for s in run)
    assert exact.shape == approx.shape
    assert np.abs(approx - exact).max() <= 0.05 * np.abs(exact).max()


def test_a_model_that_is_no_detector_or_nothing_to_calibrate_on_is_refused_with_why(tmp_path, capsys):
    _tiny_detector(tmp_path / "two.onnx", image_into_two=True)
    with pytest.raises(QuantizeError, match="not an index detector"):
        quantize(tmp_path / "two.onnx", tmp_path / "out.onnx", _images(2))
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(QuantizeError, match="not an ONNX model"):
        quantize(tmp_path / "junk.onnx", tmp_path / "out.onnx", _images(2))
    _tiny_detector(tmp_path / "tiny.onnx")
    with pytest.raises(QuantizeError, match="no images"):
        quantize(tmp_path / "tiny.onnx", tmp_path / "out.onnx", [])
    assert not (tmp_path / "out.onnx").exists()
    with pytest.raises(SystemExit):
        main(["--every", "0"])
    assert "--every must be 1 or more" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="not an ONNX model"):
        main(["--model", str(tmp_path / "junk.onnx"), "--out", str(tmp_path / "out.onnx")])
