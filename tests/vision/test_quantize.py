"""The card reader's networks in 8-bit integers (``vision.training.quantize``): each made from
the shipped float network beside it, loaded by default through onnxruntime, finding and reading
what the float ones do; and the command on a tiny detector and a tiny reader built here.

Needs onnx (the training extra); skipped without it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.indices import IndexDetector, network_input  # noqa: E402
from vision.networks import CORNER, MODEL, MODEL_INT8, READER, TURNER, int8_name, model_path, runs_file  # noqa: E402
from vision.photo_set import default_root  # noqa: E402
from vision.scan import scan  # noqa: E402
from vision.training.quantize import QuantizeError, calibration_crops, float_ends, main, quantize  # noqa: E402

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


@pytest.mark.parametrize("name", [MODEL, TURNER, READER, CORNER])
def test_each_shipped_8bit_network_is_made_from_the_shipped_float_one(name):
    """Every weight of the 8-bit file is the float file's within half a step of its integers:
    a network retrained without quantizing again fails here."""
    floats = _initializers(onnx.load(str(model_path(name))))
    int8 = onnx.load(str(model_path(int8_name(name))))
    weights = _quantized_weights(int8)
    convs = [w for name, w in floats.items() if w.ndim == 4]
    assert len(weights) >= len(convs) - len(float_ends(int8))  # all but the ends kept in floats
    for name, (value, scale) in weights.items():
        if value.ndim != 4:
            continue  # biases are quantized from the weights' and the input's scales
        assert name in floats, name
        assert np.all(np.abs(value - floats[name]) <= scale / 2 + 1e-6), name
    kept = _initializers(int8)
    for node_name in float_ends(int8):
        node = next(n for n in int8.graph.node if n.name == node_name)
        assert np.array_equal(kept[node.input[1]], floats[node.input[1]]), node_name


@pytest.mark.parametrize("name", [MODEL, TURNER, READER, CORNER])
def test_the_shipped_readers_weights_are_kept_to_7_bits_and_the_detector_s_take_8(name):
    """A reader's weights in 7 bits compute alike on every processor (docs/vision.md, *The 8-bit
    networks*): a reader quantized again without them fails here."""
    int8 = onnx.load(str(model_path(int8_name(name))))
    weights = [numpy_helper.to_array(i) for i in int8.graph.initializer if i.data_type == TensorProto.INT8]
    widest = max(int(np.abs(w.astype(np.int16)).max()) for w in weights)
    assert widest > 64 if name == MODEL else widest <= 64


def test_the_table_runs_the_8bit_networks_through_onnxruntime_and_the_float_ones_through_opencv():
    int8, floats = IndexDetector(backend="onnxruntime"), IndexDetector(backend="opencv")
    assert Path(int8.path).name == MODEL_INT8
    assert Path(floats.path).name == MODEL
    for net, name in ((int8.readers.reader, READER), (int8.readers.turner, TURNER), (int8.readers.corner, CORNER)):
        assert net is not None and Path(net.path).name == int8_name(name)
    for net, name in (
        (floats.readers.reader, READER),
        (floats.readers.turner, TURNER),
        (floats.readers.corner, CORNER),
    ):
        assert net is not None and Path(net.path).name == name
    assert (
        int8.readers.crop == floats.readers.crop and int8.readers.corner_crop == floats.readers.corner_crop
    )  # one window per network


def test_a_network_without_an_8bit_file_runs_in_floats_everywhere(tmp_path):
    (tmp_path / "reader.onnx").write_bytes(b"")
    assert runs_file(tmp_path / "reader.onnx", "onnxruntime") == tmp_path / "reader.onnx"
    (tmp_path / "reader.int8.onnx").write_bytes(b"")
    assert runs_file(tmp_path / "reader.onnx", "onnxruntime") == tmp_path / "reader.int8.onnx"
    assert runs_file(tmp_path / "reader.onnx", "opencv") == tmp_path / "reader.onnx"


def test_the_8bit_readers_read_the_cards_the_float_ones_read_in_real_photos():
    floats = IndexDetector(reader=model_path(READER), turner=model_path(TURNER), corner=model_path(CORNER))
    int8 = IndexDetector()
    for name in ("WIN_20240627_12_06_16_Pro.jpg", "WIN_20240627_12_07_20_Pro.jpg", "IMG_20220921_194243.jpg"):
        image = cv2.imread(str(PHOTOS / name), cv2.IMREAD_COLOR)
        assert image is not None, name
        # The cards named, each once: a second read of a card already named (a corner the pair
        # rules left apart) is no other card, and whether it too is named, near the lead over its
        # runner-up, may go either way.
        expected = {str(r.card) for r in scan(image, detector=floats) if r.card is not None}
        read = {str(r.card) for r in scan(image, detector=int8) if r.card is not None}
        assert len(expected) >= 3, name
        assert read == expected, name


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


def test_a_model_that_is_no_network_of_the_reader_or_nothing_to_calibrate_on_is_refused_with_why(tmp_path, capsys):
    _tiny_detector(tmp_path / "two.onnx", image_into_two=True)
    with pytest.raises(QuantizeError, match="not one of the card reader's networks"):
        quantize(tmp_path / "two.onnx", tmp_path / "out.onnx", _images(2))
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(QuantizeError, match="not an ONNX model"):
        quantize(tmp_path / "junk.onnx", tmp_path / "out.onnx", _images(2))
    _tiny_detector(tmp_path / "tiny.onnx")
    with pytest.raises(QuantizeError, match="no inputs to calibrate"):
        quantize(tmp_path / "tiny.onnx", tmp_path / "out.onnx", [])
    assert not (tmp_path / "out.onnx").exists()
    with pytest.raises(SystemExit):
        main(["--every", "0"])
    assert "--every must be 1 or more" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="not an ONNX model"):
        main(["--network", "detector", "--model", str(tmp_path / "junk.onnx"), "--out", str(tmp_path / "out.onnx")])
    with pytest.raises(SystemExit):
        main(["--model", str(tmp_path / "tiny.onnx")])
    assert "--model and --out are for one network" in capsys.readouterr().err


@pytest.mark.skipif(
    not (default_root() / "labels").is_dir(), reason="the shared photo set is not beside the repository"
)
@pytest.mark.parametrize("network", ["turner", "reader", "corner"])
def test_a_reader_is_calibrated_on_the_crops_it_reads_in_its_own_window(network):
    """Every batch recorded is one the named network was given, in its window, while the scan read
    the training photos (a few of them here)."""
    from vision.index_crops import spec_of

    batches = calibration_crops(network, every=90)
    window = spec_of(model_path({"turner": TURNER, "reader": READER, "corner": CORNER}[network]))
    assert batches, network
    for blob in batches:
        assert blob.dtype == np.float32 and blob.shape[1:] == (3, window.height, window.width)
        assert blob.min() >= 0.0 and blob.max() <= 1.0


def _tiny_reader(path: Path) -> None:
    """A reader's shape in miniature: crops -> conv -> relu -> flatten -> fully connected -> logits."""
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("Conv", ["crops", "w1"], ["a"], name="first", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["b"], name="relu1"),
        helper.make_node("Conv", ["b", "w2"], ["c"], name="middle", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["d"], name="relu2"),
        helper.make_node("Flatten", ["d"], ["e"], name="flatten"),
        helper.make_node("Gemm", ["e", "w3", "b3"], ["logits"], name="head", transB=1),
    ]
    weights = [
        numpy_helper.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32), "w1"),
        numpy_helper.from_array((rng.standard_normal((8, 8, 3, 3)) * 0.3).astype(np.float32), "w2"),
        numpy_helper.from_array((rng.standard_normal((21, 8 * 8 * 8)) * 0.05).astype(np.float32), "w3"),
        numpy_helper.from_array(np.zeros(21, np.float32), "b3"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_reader",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 21])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 7
    onnx.save(model, str(path))


def test_quantizing_a_tiny_reader_keeps_its_first_convolution_and_its_logits_layer_in_floats(tmp_path):
    import onnxruntime

    _tiny_reader(tmp_path / "tiny.onnx")
    rng = np.random.default_rng(2)
    batches = [rng.random((4, 3, 8, 8)).astype(np.float32) for _ in range(5)]
    quantize(tmp_path / "tiny.onnx", tmp_path / "tiny.int8.onnx", batches)
    model = onnx.load(str(tmp_path / "tiny.int8.onnx"))
    assert sorted(float_ends(model)) == ["first", "head"]
    dequantized = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    by_name = {n.name: n for n in model.graph.node}
    assert by_name["first"].input[1] not in dequantized and by_name["head"].input[1] not in dequantized
    assert by_name["middle"].input[1] in dequantized
    crops = rng.random((3, 3, 8, 8)).astype(np.float32)
    paths = (tmp_path / "tiny.onnx", tmp_path / "tiny.int8.onnx")
    exact, approx = (onnxruntime.InferenceSession(str(path)).run(None, {"crops": crops})[0] for path in paths)
    assert exact.shape == approx.shape == (3, 21)
    assert np.abs(approx - exact).max() <= 0.05 * np.abs(exact).max()


def test_quantizing_an_ensemble_of_tiny_readers_keeps_each_members_ends_and_the_mean_in_floats(tmp_path):
    """The shipped reader is two readers averaged (vision.training.ensemble): each member's first
    convolution and logits layer stay in floats, as a lone reader's do, and so does their mean."""
    import onnxruntime

    from vision.training.ensemble import ensemble

    for name in ("a", "b"):
        _tiny_reader(tmp_path / f"{name}.onnx")
    ensemble([tmp_path / "a.onnx", tmp_path / "b.onnx"], tmp_path / "both.onnx")
    rng = np.random.default_rng(3)
    batches = [rng.random((4, 3, 8, 8)).astype(np.float32) for _ in range(5)]
    quantize(tmp_path / "both.onnx", tmp_path / "both.int8.onnx", batches)
    model = onnx.load(str(tmp_path / "both.int8.onnx"))
    assert sorted(float_ends(model)) == ["m0/first", "m0/head", "m1/first", "m1/head"]
    dequantized = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    by_name = {n.name: n for n in model.graph.node}
    for member in ("m0/", "m1/"):
        assert by_name[member + "first"].input[1] not in dequantized
        assert by_name[member + "middle"].input[1] in dequantized
    mean = [n for n in model.graph.node if n.name.startswith("ensemble/")]
    assert {n.op_type for n in mean} == {"Slice", "Softmax", "Sum", "Mul", "Log", "Concat"}
    assert not any(set(n.input) & dequantized for n in mean)
    crops = rng.random((3, 3, 8, 8)).astype(np.float32)
    paths = (tmp_path / "both.onnx", tmp_path / "both.int8.onnx")
    exact, approx = (onnxruntime.InferenceSession(str(path)).run(None, {"crops": crops})[0] for path in paths)
    assert exact.shape == approx.shape == (3, 21)
    assert np.abs(approx - exact).max() <= 0.05 * np.abs(exact).max()
