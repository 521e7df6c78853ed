"""The detector in 8-bit integers for the table: ``python -m vision.training.quantize``.

Training writes the detector in 32-bit floats (``vision/models/indices.onnx``). This command
writes it again with its weights and activations in 8-bit integers
(``vision/models/indices.int8.onnx``), which onnxruntime runs about 1.7 times as fast on one
core here, and the table loads by default (:func:`vision.indices.default_model`). Rerun it after
every retraining of the detector: ``tests/vision/test_quantize.py`` fails while the 8-bit file
was made from another detector than the one beside it.

How (onnxruntime's static quantization):

- The model is converted to opset 13 first: per-channel weights need ``DequantizeLinear``'s
  ``axis``, which opset 11 (what the exporter writes, for OpenCV's sake) lacks.
- Each activation's range is calibrated (the minimum and maximum it takes) on what the detector
  sees in the training half of the real photographs: every input its network runs on while
  ``croupier vision scan`` reads every ninth photo (104 inputs: each photo at the scales of its
  pyramid, :func:`vision.indices.pyramid_scales`, and once more at the scale its indices ask
  for; not its second look, :data:`vision.indices.SECOND_LOOK`, which came after the shipped
  file). No randomness: the same photos give the same file.
- Weights per output channel, activations unsigned, in ``QuantizeLinear`` / ``DequantizeLinear``
  pairs, which onnxruntime fuses into integer convolutions.
- Two convolutions stay in floats: the first, which reads the image's pixels, and the head, which
  writes the maps. In integers the heat map's logits and the sizes lose the resolution that
  tells a faint index from none (``--all-integer`` makes them integers too, to compare:
  ``docs/vision.md``, *The 8-bit detector*). Between them they cost little.

The validation half is never used.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import version_converter

from vision.indices import MODEL, MODEL_INT8, READER, TURNER, IndexDetector, ModelError, model_path, network_input
from vision.photo_set import PhotoSetError, load, split
from vision.scan import scan

OPSET = 13  # DequantizeLinear's per-channel axis
EVERY = 9  # every ninth training photo calibrates (30 of 268)


class QuantizeError(RuntimeError):
    """A detector that cannot be made 8-bit (not a detector, or nothing to calibrate on)."""


def calibration_images(model: Path, every: int = EVERY) -> list[np.ndarray]:
    """The network inputs for calibration: every one the detector at ``model`` (in floats) runs
    on while ``croupier vision scan`` reads every ``every``-th training photo (each scale of its
    pyramid, and the look at the scale its indices' size asks for), but for its second look a
    quarter taller: the shipped 8-bit file was calibrated before scan took it, on inputs of the
    same photos at the scales around it, and this command still writes that same file."""
    try:
        train, _validation = split(load())
    except PhotoSetError as e:
        raise QuantizeError(f"the real photographs calibrate the 8-bit detector: {e}") from e
    detector = _Recording(model)
    for photo in train[::every]:
        scan(photo.image(), detector=detector, second_look=None)
    return detector.seen


class _Recording(IndexDetector):
    """A detector that keeps every input its network ran on."""

    def __init__(self, model: Path) -> None:
        super().__init__(model, backend="onnxruntime", reader=model_path(READER), turner=model_path(TURNER))
        self.seen: list[np.ndarray] = []

    def maps(self, image: np.ndarray) -> np.ndarray:
        self.seen.append(network_input(image))
        return super().maps(image)


def float_ends(model: onnx.ModelProto) -> list[str]:
    """The names of the nodes kept in floats: the convolution that reads the image and the one
    that writes the maps."""
    image = model.graph.input[0].name
    maps = model.graph.output[0].name
    first = [n.name for n in model.graph.node if n.op_type == "Conv" and image in n.input]
    last = [n.name for n in model.graph.node if n.op_type == "Conv" and maps in n.output]
    if len(first) != 1 or len(last) != 1:
        raise QuantizeError("not an index detector: its image must go into one convolution and its maps out of one")
    return first + last


def _detector(model: Path) -> tuple[onnx.ModelProto, list[str]]:
    """The ONNX model at ``model``, checked to be a detector, and its :func:`float_ends`."""
    try:
        loaded = onnx.load(str(model))
    except Exception as e:  # onnx raises protobuf's and its own errors
        raise QuantizeError(f"{model}: not an ONNX model ({e})") from e
    return loaded, float_ends(loaded)


def quantize(model: Path, out: Path, images: list[np.ndarray], ends_in_floats: bool = True) -> None:
    """The detector at ``model`` in 8-bit integers, written to ``out`` (replaced only once whole),
    its activations' ranges calibrated on ``images`` (network inputs: 1 x 3 x H x W floats);
    its first and last convolutions in floats unless ``ends_in_floats`` is false."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    loaded, ends = _detector(model)
    if not images:
        raise QuantizeError("no images to calibrate the 8-bit detector on")
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
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=ends if ends_in_floats else [],
            )
        written.replace(out)
    finally:
        written.unlink(missing_ok=True)  # a run stopped halfway leaves no half-written file


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m vision.training.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, default=model_path(MODEL), help="the detector in floats, as training wrote it")
    p.add_argument("--out", type=Path, default=model_path(MODEL_INT8), help="where the 8-bit detector goes")
    p.add_argument("--every", type=int, default=EVERY, help="calibrate on every N-th training photo")
    p.add_argument(
        "--all-integer", action="store_true", help="the first and last convolutions in integers too (to compare)"
    )
    args = p.parse_args(argv)
    if args.every < 1:
        p.error("--every must be 1 or more")
    try:
        _detector(args.model)  # before the photos are read with it
        quantize(args.model, args.out, calibration_images(args.model, args.every), not args.all_integer)
    except (QuantizeError, ModelError) as e:
        sys.exit(f"error: {e}")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
