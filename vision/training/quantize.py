"""The card reader's networks in 8-bit integers for the table: ``python -m vision.training.quantize``.

Training writes each network in 32-bit floats: the detector (``vision/models/indices.onnx``), the
turner, the reader and the corner reader (``turner.onnx``, ``reader.onnx``, ``corner.onnx``).
This command writes each again with its weights and activations in 8-bit integers, beside it
(``indices.int8.onnx``, ``turner.int8.onnx``, ...), which onnxruntime runs 1.7 to 2.9 times as
fast on one core here, and the table loads by default (:func:`vision.networks.runs_file`).
``--network NAME`` makes one (or, repeated, several) alone. Rerun it after every retraining:
``tests/vision/test_quantize.py`` fails while an 8-bit file was made from another network than
the one beside it.

How (onnxruntime's static quantization):

- The model is converted to opset 13 first: per-channel weights need ``DequantizeLinear``'s
  ``axis``, which opset 11 (what the exporter writes, for OpenCV's sake) lacks.
- Each activation's range is calibrated (the minimum and maximum it takes) on what the network
  sees in the training half of the real photographs while ``croupier vision scan`` reads every
  ninth photo. The detector: every input its network runs on, each photo at the scales of its
  pyramid (:func:`vision.scales.pyramid_scales`) and once more at the scale its indices ask
  for (104 inputs; not the scan's further looks, :data:`vision.scales.LOOKS`, which came after
  the shipped file). A reader: every crop it reads while the scan, with those looks, reads
  those photos with the table's detector (the 8-bit one) and the readers in floats. No
  randomness: the same photos give the same file.
- Weights per output channel, activations unsigned, in ``QuantizeLinear`` / ``DequantizeLinear``
  pairs, which onnxruntime fuses into integer convolutions. The readers' weights are kept to 7
  bits (:data:`SEVEN_BIT_WEIGHTS`), so that every processor computes the same integers.
- Each network's two ends stay in floats: the convolution that reads the pixels, and the layer
  that writes the output (the detector's maps, a reader's logits; in a reader made of several,
  each one's, and their mean). In integers the heat map's logits and the sizes lose the
  resolution that tells a faint index from none (``--all-integer`` makes them integers too, to
  compare: ``docs/vision.md``, *The 8-bit networks*). Between them they cost little.

The validation half is never used.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import version_converter

from vision.indices import IndexDetector, network_input, with_shipped
from vision.networks import CORNER, MODEL, READER, TURNER, ModelError, int8_name, model_path
from vision.photo_set import Photo, PhotoSetError, load, split
from vision.scan import scan

OPSET = 13  # DequantizeLinear's per-channel axis
EVERY = 9  # every ninth training photo calibrates (30 of 268)
# The networks, by the name --network takes, and their files in floats; the detector first, as
# the readers are calibrated on what the table's (8-bit) detector finds.
NETWORKS = {"detector": MODEL, "turner": TURNER, "reader": READER, "corner": CORNER}
# The networks whose weights are kept to 7 bits (onnxruntime's reduce_range), so that every CPU
# computes the same integers: without it, x86 CPUs lacking VNNI instructions saturate the 16-bit
# sums of pairs of products that CPUs with VNNI (and the Pi's dot-product instructions) keep
# whole, and a reader's 8-bit file then names other cards from one machine to the next (a grey
# 6D in tests/vision/test_reader_real.py). The detector's weights keep 8 bits: in 7 it loses
# that same 6D.
SEVEN_BIT_WEIGHTS = ("turner", "reader", "corner")
# The operators of an ensemble's mean (vision.training.ensemble): readers' and detectors'.
AVERAGING = ("Slice", "Transpose", "Softmax", "Sigmoid", "Sum", "Mul", "Sub", "Log", "Concat")


class QuantizeError(RuntimeError):
    """A network that cannot be made 8-bit (not one of the card reader's, or nothing to calibrate on)."""


def calibration_images(model: Path, every: int = EVERY) -> list[np.ndarray]:
    """The network inputs for calibration: every one the detector at ``model`` (in floats) runs
    on while ``croupier vision scan`` reads every ``every``-th training photo (each scale of its
    pyramid, and the look at the scale its indices' size asks for), but for its further looks:
    the shipped 8-bit file was calibrated before scan took them, and this command still writes
    that same file."""
    detector = _Recording(model)
    for photo in _calibration_photos(every):
        scan(photo.image(), detector=detector, looks=None)
    return detector.seen


def calibration_crops(network: str, every: int = EVERY) -> list[np.ndarray]:
    """The inputs for calibrating a reader (``network``: "turner", "reader" or "corner"): every
    batch of crops it reads while ``croupier vision scan`` reads every ``every``-th training
    photo with the table's detector and the shipped readers in floats."""
    detector = with_shipped(float_readers=True, backend="onnxruntime")
    if detector.readers is None:
        raise QuantizeError("the shipped reader to calibrate is missing (reinstall croupier)")
    recording = _RecordingNet(getattr(detector.readers, network))
    setattr(detector.readers, network, recording)
    for photo in _calibration_photos(every):
        scan(photo.image(), detector=detector)
    return recording.seen


def _calibration_photos(every: int) -> list[Photo]:
    try:
        train, _validation = split(load())
    except PhotoSetError as e:
        raise QuantizeError(f"the real photographs calibrate the 8-bit networks: {e}") from e
    return train[::every]


class _Recording(IndexDetector):
    """A detector that keeps every input its network ran on."""

    def __init__(self, model: Path) -> None:
        super().__init__(
            model,
            backend="onnxruntime",
            reader=model_path(READER),
            turner=model_path(TURNER),
            corner=model_path(CORNER),
        )
        self.seen: list[np.ndarray] = []

    def maps(self, image: np.ndarray) -> np.ndarray:
        self.seen.append(network_input(image))
        return super().maps(image)


class _RecordingNet:
    """A reader's runtime that keeps every batch of crops it reads (the shared runtime itself
    is left as it is: :func:`vision.networks.network` caches it)."""

    def __init__(self, net: Any) -> None:
        if net is None:
            raise QuantizeError("the shipped reader to calibrate is missing (reinstall croupier)")
        self.net = net
        self.seen: list[np.ndarray] = []

    def run(self, blob: np.ndarray) -> np.ndarray:
        self.seen.append(blob)
        return self.net.run(blob)


def float_ends(model: onnx.ModelProto) -> list[str]:
    """The names of the nodes kept in floats: the convolution that reads the image (or the
    crops) and the layer that writes the output, a convolution (the detector's maps) or a fully
    connected one (a reader's logits); in a reader made of several
    (:mod:`vision.training.ensemble`), each member's two."""
    image = model.graph.input[0].name
    first = [n.name for n in model.graph.node if n.op_type == "Conv" and image in n.input]
    last, _mean = _last_layers(model)
    if not first or len(first) != len(last):
        raise QuantizeError(
            "not one of the card reader's networks: its input must go into one convolution, and its"
            " output come out of a convolution or a fully connected layer (or, in an ensemble, each"
            " member's)"
        )
    return first + last


def _last_layers(model: onnx.ModelProto) -> tuple[list[str], list[str]]:
    """The layers that write the output (the convolutions or fully connected layers met going back
    from it) and the nodes after them that only average them (an ensemble's mean: :data:`AVERAGING`;
    none in a lone network), each once: an ensemble's mean reaches each member's last layer once
    for its ranks and once for its suits."""
    made_by = {out: node for node in model.graph.node for out in node.output}
    last: set[str] = set()
    mean: list[str] = []
    todo = [model.graph.output[0].name]
    while todo:
        node = made_by.get(todo.pop())
        if node is None:
            continue  # a weight or the input
        if node.op_type in ("Conv", "Gemm"):
            last.add(node.name)
        elif node.op_type in AVERAGING and node.name not in mean:
            mean.append(node.name)
            todo.extend(node.input)
    return sorted(last), mean


def _network(model: Path) -> tuple[onnx.ModelProto, list[str], list[str]]:
    """The ONNX model at ``model``, checked to be one of the reader's networks, its
    :func:`float_ends`, and the nodes of an ensemble's mean after them (:func:`_last_layers`)."""
    try:
        loaded = onnx.load(str(model))
    except Exception as e:  # onnx raises protobuf's and its own errors
        raise QuantizeError(f"{model}: not an ONNX model ({e})") from e
    return loaded, float_ends(loaded), _last_layers(loaded)[1]


def quantize(
    model: Path, out: Path, images: list[np.ndarray], ends_in_floats: bool = True, seven_bit_weights: bool = False
) -> None:
    """The network at ``model`` in 8-bit integers, written to ``out`` (replaced only once whole),
    its activations' ranges calibrated on ``images`` (its inputs: N x 3 x H x W floats); its
    two ends in floats unless ``ends_in_floats`` is false, and an ensemble's mean in floats
    always (a softmax and a logarithm of probabilities, which integers would flatten).
    ``seven_bit_weights``: weights in 7 bits (:data:`SEVEN_BIT_WEIGHTS`)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    loaded, ends, mean = _network(model)
    if not images:
        raise QuantizeError(f"no inputs to calibrate the 8-bit {model.name} on")
    name = loaded.graph.input[0].name
    feed = iter(images)

    class Images(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            blob = next(feed, None)
            return None if blob is None else {name: blob}

    out.parent.mkdir(parents=True, exist_ok=True)
    written = out.with_suffix(".tmp")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            converted, prepared = Path(tmp, "opset13.onnx"), Path(tmp, "prepared.onnx")
            onnx.save(version_converter.convert_version(loaded, OPSET), str(converted))
            # Shapes are symbolic (any image size), which onnxruntime's symbolic inference cannot follow.
            quant_pre_process(str(converted), str(prepared), skip_symbolic_shape=True)
            quantize_static(
                str(prepared),
                str(written),
                Images(),
                quant_format=QuantFormat.QDQ,
                per_channel=True,
                reduce_range=seven_bit_weights,
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=(ends if ends_in_floats else []) + mean,
            )
        written.replace(out)
    finally:
        written.unlink(missing_ok=True)  # a run stopped halfway leaves no half-written file


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m vision.training.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--network",
        action="append",
        choices=list(NETWORKS),
        help="this network alone (repeat for several; default: all four, the detector first)",
    )
    p.add_argument("--model", type=Path, help="the network in floats (default: the shipped one); one --network")
    p.add_argument("--out", type=Path, help="where its 8-bit file goes (default: beside it, NAME.int8.onnx)")
    p.add_argument("--every", type=int, default=EVERY, help="calibrate on every N-th training photo")
    p.add_argument("--all-integer", action="store_true", help="the two ends in integers too (to compare)")
    args = p.parse_args(argv)
    if args.every < 1:
        p.error("--every must be 1 or more")
    networks = list(dict.fromkeys(args.network or NETWORKS))
    if (args.model or args.out) and len(networks) != 1:
        p.error("--model and --out are for one network: name it with --network")
    for network in networks:
        model = args.model or model_path(NETWORKS[network])
        out = args.out or model.with_name(int8_name(model.name))
        try:
            _network(model)  # before the photos are read with it
            inputs = (
                calibration_images(model, args.every)
                if network == "detector"
                else calibration_crops(network, args.every)
            )
            quantize(model, out, inputs, not args.all_integer, network in SEVEN_BIT_WEIGHTS)
        except (QuantizeError, ModelError) as e:
            sys.exit(f"error: {e}")
        print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
