"""The training pipeline end to end, on a tiny model for a few steps: the data generator, the
targets, the loss, checkpoints and resuming, and the export that the table loads.

Needs the training extra (``pip install -e '.[train]'``: PyTorch's CPU build); skipped without it.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from engine.cards import card  # noqa: E402
from vision.index_crops import INDEX_ONLY, WITH_CONTEXT, crops_blob, upright_crop  # noqa: E402
from vision.index_reads import RANKS, SUITS  # noqa: E402
from vision.indices import IndexDetector  # noqa: E402
from vision.training import synth  # noqa: E402
from vision.training.runs import RunMismatch  # noqa: E402
from vision.training.train import parser, train  # noqa: E402


def args(tmp_path, steps: int, **extra):
    argv = ["--run", str(tmp_path / "run"), "--out", str(tmp_path / "tiny.onnx"), "--steps", str(steps)]
    argv += ["--width", "8", "--batch", "4", "--workers", "0", "--threads", "1", "--seed", "3"]
    argv += ["--checkpoint-every", "1000", "--log-every", "1000", "--lr", "0.01"]
    for key, value in extra.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    return parser().parse_args(argv)


# Training draws its scenes on the CPU: a few minutes on a loaded 2-core machine, whatever the global timeout.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_tiny_model_learns_resumes_and_exports_a_model_the_table_loads(tmp_path):
    first = train(args(tmp_path, 100, real_share=0.3))
    assert first["steps"] == 100
    # Seeded, so the same every run; with the learning rate at 0 the ratio is 1.01.
    assert first["last_loss"] < 0.95 * first["first_loss"], first
    # An 8-bit file made from the model as it was: the table would run it in place of the new one.
    (tmp_path / "tiny.int8.onnx").write_bytes(b"made from the model before")
    resumed = train(args(tmp_path, 105))
    assert resumed["steps"] == 105  # went on from the checkpoint: five more steps, not a hundred and five
    assert not (tmp_path / "tiny.int8.onnx").exists()
    detector = IndexDetector(tmp_path / "tiny.onnx")
    maps = detector.maps(np.zeros((100, 130, 3), np.uint8))
    assert maps.shape == (25, 25, 33)
    assert isinstance(detector.detect(np.full((96, 96, 3), 128, np.uint8)), list)


def test_synthetic_scenes_are_seeded_and_label_only_what_shows():
    pool = synth.FacePool(np.random.default_rng(5), drawn=10)
    one, labels = synth.scene(np.random.default_rng(9), pool)
    pool_again = synth.FacePool(np.random.default_rng(5), drawn=10)
    two, labels_again = synth.scene(np.random.default_rng(9), pool_again)
    assert np.array_equal(one, two) and labels == labels_again
    assert one.shape == (256, 256, 3) and one.dtype == np.uint8
    for label in labels:
        assert label.state in ("target", "ignore")
        assert -40 < label.centre[0] < 296 and -40 < label.centre[1] < 296


@pytest.mark.timeout(1800)
def test_the_index_reader_trains_on_pairs_resumes_and_exports(tmp_path):
    from vision.training import reader

    argv = ["--run", str(tmp_path / "run"), "--out", str(tmp_path / "reader.onnx"), "--steps", "30", "--batch", "8"]
    argv += ["--workers", "0", "--width", "4", "--real-share", "0", "--log-every", "1000", "--lr", "0.01"]
    argv += ["--crop", "context"]
    first = reader.train(reader.parser().parse_args(argv))
    assert first["steps"] == 30 and first["last_loss"] < first["first_loss"], first
    again = reader.train(reader.parser().parse_args([*argv[:5], "32", *argv[6:]]))
    assert again["steps"] == 32
    with pytest.raises(RunMismatch, match="--crop context, not index"):
        reader.train(reader.parser().parse_args([*argv[:5], "34", *argv[6:-2]]))
    # The exported reader says which window it reads; the detector cuts that window at the table,
    # and the model takes no other.
    detector = IndexDetector(reader=tmp_path / "reader.onnx")
    assert detector.readers is not None and detector.readers.crop == WITH_CONTEXT
    image, _ = synth.scene(np.random.default_rng(3), synth.FacePool(np.random.default_rng(3), drawn=0))
    logits = detector.readers.reader.run(
        crops_blob([upright_crop(image, (128.0, 128.0), 24.0, 0.0, detector.readers.crop)])
    )
    assert logits.shape == (1, len(RANKS) + 1 + len(SUITS) + 2)  # rank or none, suit, the crop's turn
    with pytest.raises(Exception, match=r"(?i)dimension|shape"):
        detector.readers.reader.run(crops_blob([upright_crop(image, (128.0, 128.0), 24.0, 0.0, INDEX_ONLY)]))
    assert isinstance(detector.detect(image), list)  # the whole way, with that window


@pytest.mark.timeout(1800)
def test_a_reader_grown_by_its_turn_outputs_starts_from_a_reader_without_them(tmp_path):
    import torch

    from vision.training import reader

    base = ["--steps", "2", "--batch", "4", "--workers", "0", "--width", "4", "--real-share", "0"]
    base += ["--log-every", "1000"]
    old = [*base, "--run", str(tmp_path / "old"), "--out", str(tmp_path / "old.onnx"), "--no-turn"]
    reader.train(reader.parser().parse_args(old))
    grown = [*base, "--run", str(tmp_path / "new"), "--out", str(tmp_path / "new.onnx"), "--lr", "0"]
    reader.train(reader.parser().parse_args([*grown, "--start-from", str(tmp_path / "old" / "checkpoint.pt")]))
    before = torch.load(tmp_path / "old" / "checkpoint.pt", weights_only=False)["model"]
    after = torch.load(tmp_path / "new" / "checkpoint.pt", weights_only=False)["model"]
    last = max(k for k in before if k.endswith("weight") and before[k].ndim == 2)
    assert after[last].shape[0] == before[last].shape[0] + 2  # the turn's sine and cosine
    # With no learning, the grown reader reads as the old one did; only the turn outputs are new.
    assert torch.equal(after[last][: before[last].shape[0]], before[last])
    assert all(torch.equal(after[k], v) for k, v in before.items() if k.endswith("weight") and k != last)
    with pytest.raises(SystemExit, match="no such checkpoint"):
        reader.train(reader.parser().parse_args([*grown, "--run", str(tmp_path / "x"), "--start-from", "nowhere.pt"]))


def _tiny_run(tmp_path, training: str):
    """The training module named and its arguments for a two-step run of a tiny model on synthetic data."""
    from vision.training import reader
    from vision.training import train as detector

    module = {"detector": detector, "reader": reader}[training]
    argv = ["--run", str(tmp_path / "run"), "--out", str(tmp_path / "net.onnx"), "--steps", "2", "--batch", "2"]
    argv += ["--workers", "0", "--width", "4", "--real-share", "0", "--log-every", "1000"]
    return module, argv


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("training", ["detector", "reader"])
def test_a_sitting_stops_after_its_minutes_saved_and_the_run_goes_on_when_started_again(tmp_path, training):
    import torch

    module, argv = _tiny_run(tmp_path, training)
    # A sitting of a few nanoseconds is over before its first step, whatever the machine's speed.
    stopped = module.train(module.parser().parse_args([*argv, "--minutes", "1e-10"]))
    assert stopped["steps"] == 0
    assert torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=False)["step"] == 0
    assert (tmp_path / "net.onnx").is_file()  # saved and exported as at any checkpoint
    finished = module.train(module.parser().parse_args(argv))  # no --minutes: until its steps are done
    assert finished["steps"] == 2
    with pytest.raises(SystemExit, match=r"--minutes -1\.0: "):
        module.train(module.parser().parse_args([*argv, "--minutes", "-1"]))


def test_a_reader_s_stages_may_be_set_and_a_run_keeps_them(tmp_path):
    import torch

    from vision.training import reader

    argv = ["--run", str(tmp_path / "run"), "--out", str(tmp_path / "reader.onnx"), "--steps", "2", "--batch", "4"]
    argv += ["--workers", "0", "--real-share", "0", "--log-every", "1000", "--no-turn", "--stages", "4,12,24"]
    reader.train(reader.parser().parse_args(argv))
    weights = torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=False)["model"]
    convs = [v.shape[0] for k, v in weights.items() if k.startswith("body") and v.ndim == 4]
    assert convs == [4, 4, 12, 12, 24, 24]
    with pytest.raises(RunMismatch, match="--stages 4,12,24, not 4,8,24"):
        reader.train(reader.parser().parse_args([*argv[:-1], "4,8,24"]))
    for bad in ("4,12", "4,x,8", "0,8,16"):
        with pytest.raises(SystemExit, match="--stages"):
            reader.train(reader.parser().parse_args([*argv[:-1], bad]))


def test_the_reader_s_extra_grey_scenes_are_grey_and_only_when_asked():
    from vision.training.reader import Crops

    def pairs(grey: float) -> list:
        crops = iter(Crops(seed=4, start_step=0, real={}, real_share=0.0, grey=grey))
        return [next(crops)[0] for _ in range(12)]

    def colourless(x) -> bool:
        return bool((x[:, 0] == x[:, 1]).all() and (x[:, 1] == x[:, 2]).all())

    assert all(colourless(x) for x in pairs(1.0))
    assert not all(colourless(x) for x in pairs(0.0))


def test_grey_weighing_the_colours_at_random_makes_red_ink_as_dark_as_black_or_light(monkeypatch):
    from vision.training.reader import Crops

    ink = np.zeros((8, 8, 3), np.uint8)
    ink[:] = (40, 30, 200)  # BGR: red ink
    rng = np.random.default_rng(0)
    greys = [int(synth.grey(ink, synth.grey_weights(rng))[0, 0, 0]) for _ in range(200)]
    assert min(greys) < 45 < 110 < max(greys), (min(greys), max(greys))  # black ink is about 30
    assert int(synth.grey(ink)[0, 0, 0]) == 82  # the usual luminance (0.11 B + 0.59 G + 0.3 R), without weights
    drawn: list[np.ndarray] = []
    real_weights = synth.grey_weights
    monkeypatch.setattr(synth, "grey_weights", lambda r: drawn.append(real_weights(r)) or drawn[-1])

    def first_crop(grey_mix: bool):
        return next(iter(Crops(seed=4, start_step=0, real={}, real_share=0.0, grey=1.0, grey_mix=grey_mix)))[0]

    x = first_crop(grey_mix=False)
    assert bool((x[:, 0] == x[:, 1]).all()) and not drawn  # grey as the usual luminance: no weights drawn
    x = first_crop(grey_mix=True)
    assert bool((x[:, 0] == x[:, 1]).all() and (x[:, 1] == x[:, 2]).all()) and drawn  # grey, weighed at random


def _probabilities(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A reader's rank and suit probabilities from its logits."""

    def softmax(z: np.ndarray) -> np.ndarray:
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    ranks = len(RANKS) + 1
    return softmax(logits[:, :ranks]), softmax(logits[:, ranks : ranks + len(SUITS)])


def test_readers_made_into_one_read_the_mean_of_their_probabilities_and_must_read_alike(tmp_path):
    from vision.training import reader
    from vision.training.ensemble import EnsembleError, ensemble, member
    from vision.training.ensemble import main as ensemble_main

    def tiny(name: str, *extra: str, turn: bool = False):
        out = tmp_path / f"{name}.onnx"
        argv = ["--run", str(tmp_path / name), "--out", str(out), "--steps", "2", "--batch", "4", "--workers", "0"]
        argv += ["--width", "4", "--real-share", "0", "--log-every", "1000", *extra, *([] if turn else ["--no-turn"])]
        reader.train(reader.parser().parse_args(argv))
        return out

    a, b = tiny("a", "--seed", "1"), tiny("b", "--seed", "2", "--stages", "4,12,16")
    ensemble([a, b], tmp_path / "both.onnx")
    rng = np.random.default_rng(4)
    crops = crops_blob([rng.integers(0, 255, (40, 32, 3), dtype=np.uint8) for _ in range(3)])
    one, two, both = (IndexDetector(reader=path).readers.reader for path in (a, b, tmp_path / "both.onnx"))
    assert one is not None and two is not None and both is not None
    each = [_probabilities(net.run(crops)) for net in (one, two)]
    together = _probabilities(both.run(crops))
    for group in (0, 1):  # the ranks (with no index), the suits
        mean = (each[0][group] + each[1][group]) / 2
        assert np.allclose(together[group], mean, atol=1e-5)
        assert not np.allclose(each[0][group], mean, atol=1e-3)

    # Made again in its place, it leaves no 8-bit file made from what was there before: the table
    # would run that one instead.
    stale = tmp_path / "both.int8.onnx"
    stale.write_bytes(b"made from the readers there before")
    ensemble([a, b], tmp_path / "both.onnx")
    assert not stale.exists()

    # A member taken out again reads as it did before it was made one with the other.
    member(tmp_path / "both.onnx", 1, tmp_path / "second.onnx")
    again = IndexDetector(reader=tmp_path / "second.onnx").readers.reader
    assert again is not None
    assert np.allclose(again.run(crops), two.run(crops), atol=1e-5)
    with pytest.raises(EnsembleError, match="has 2 members, 0 to 1; there is no member 2"):
        member(tmp_path / "both.onnx", 2, tmp_path / "no.onnx")
    with pytest.raises(EnsembleError, match="not readers made one"):
        member(a, 0, tmp_path / "no.onnx")

    # Two turners: their probabilities averaged as a reader's, and their turn outputs (the sine and
    # cosine of how far a crop is turned) averaged as they are.
    d, e = tiny("d", "--seed", "3", turn=True), tiny("e", "--seed", "4", turn=True)
    ensemble([d, e], tmp_path / "turners.onnx")
    runs = [
        np.asarray(IndexDetector(reader=path).readers.reader.run(crops)) for path in (d, e, tmp_path / "turners.onnx")
    ]
    assert runs[2].shape == (3, 23)
    assert np.allclose(runs[2][:, 21:], (runs[0][:, 21:] + runs[1][:, 21:]) / 2, atol=1e-5)
    for group in (0, 1):
        mean = (_probabilities(runs[0])[group] + _probabilities(runs[1])[group]) / 2
        assert np.allclose(_probabilities(runs[2])[group], mean, atol=1e-5)

    with pytest.raises(EnsembleError, match="reads another window"):
        ensemble([a, tiny("c", "--crop", "context")], tmp_path / "no.onnx")
    with pytest.raises(EnsembleError, match="gives 23 logits"):
        ensemble([a, d], tmp_path / "no.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(EnsembleError, match=r"junk\.onnx: not an ONNX model"):
        ensemble([a, tmp_path / "junk.onnx"], tmp_path / "no.onnx")
    with pytest.raises(SystemExit):
        ensemble_main([str(a), "--out", str(tmp_path / "no.onnx")])  # one reader is no ensemble
    assert not (tmp_path / "no.onnx").exists()


def test_detectors_made_into_one_find_indices_by_the_mean_of_their_maps(tmp_path):
    import onnx
    import onnxruntime
    import torch

    from vision.indices import network_input
    from vision.networks import READER, model_path
    from vision.training.ensemble import EnsembleError, ensemble, member
    from vision.training.model import IndexNet
    from vision.training.quantize import float_ends, quantize
    from vision.training.train import export

    paths = []
    for seed, width in ((1, 4), (2, 8)):  # members of two widths: the maps, not the layers, are averaged
        torch.manual_seed(seed)
        paths.append(tmp_path / f"d{seed}.onnx")
        export(IndexNet(width).eval(), paths[-1])
    both = tmp_path / "both.onnx"
    ensemble(paths, both)
    picture = np.random.default_rng(6).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    image = network_input(picture)
    one, two, mean = (onnxruntime.InferenceSession(str(p)).run(None, {"image": image})[0] for p in (*paths, both))
    assert mean.shape == one.shape == (1, 25, 16, 24)

    def chance(maps: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-maps[:, 0]))

    def classes(maps: np.ndarray, first: int, end: int) -> np.ndarray:
        e = np.exp(maps[:, first:end] - maps[:, first:end].max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    assert np.allclose(chance(mean), (chance(one) + chance(two)) / 2, atol=1e-5)
    assert not np.allclose(chance(one), chance(two), atol=1e-3)
    ranks, suits = 1 + len(RANKS), 1 + len(RANKS) + len(SUITS)
    for first, end in ((1, ranks), (ranks, suits)):
        assert np.allclose(
            classes(mean, first, end), (classes(one, first, end) + classes(two, first, end)) / 2, atol=1e-5
        )
    assert np.allclose(mean[:, suits:], (one[:, suits:] + two[:, suits:]) / 2, atol=1e-5)  # size and direction
    # The table runs it as any detector, and a member taken out reads as it did alone.
    assert np.allclose(IndexDetector(both, read_upright=False).maps(picture), mean[0], atol=1e-5)
    member(both, 0, tmp_path / "first.onnx")
    again = onnxruntime.InferenceSession(str(tmp_path / "first.onnx")).run(None, {"image": image})[0]
    assert np.allclose(again, one, atol=1e-5)
    # Quantized, each member's first and last convolution and the mean stay in floats; the rest is 8-bit.
    quantize(both, tmp_path / "both.int8.onnx", [image])
    int8 = onnx.load(str(tmp_path / "both.int8.onnx"))
    dequantized = {n.output[0] for n in int8.graph.node if n.op_type == "DequantizeLinear"}
    by_name = {n.name: n for n in int8.graph.node}
    ends = float_ends(int8)
    assert len(ends) == 4 and not any(by_name[name].input[1] in dequantized for name in ends)
    convolutions = [n for n in int8.graph.node if n.op_type == "Conv" and n.name not in ends]
    assert convolutions and all(n.input[1] in dequantized for n in convolutions)
    assert not any(set(n.input) & dequantized for n in int8.graph.node if n.name.startswith("ensemble/"))

    reader = tmp_path / "reader.onnx"
    member(model_path(READER), 0, reader)
    with pytest.raises(EnsembleError, match=r"reader\.onnx is a reader, .*d1\.onnx a detector"):
        ensemble([paths[0], reader], tmp_path / "no.onnx")
    assert not (tmp_path / "no.onnx").exists()


def test_a_real_photo_s_joker_is_taught_as_a_joker_but_not_as_which_one():
    from vision.training.reader import EITHER, UNTOLD, ReaderNet, pair_loss, real_pairs
    from vision.training.targets import rank_class, suit_class

    image = np.random.default_rng(5).integers(0, 255, (120, 120, 3), dtype=np.uint8)
    found = [(card("LJ"), (60.0, 60.0), 24.0, 0.0), (card("7C"), (60.0, 60.0), 24.0, 0.0)]
    (_, rank, suit, kind, _), (_, _, club, _, _) = real_pairs(np.random.default_rng(5), image, found)
    assert (rank, suit, kind) == (rank_class(card("LJ")), UNTOLD, EITHER) and club == suit_class(card("7C"))

    torch.manual_seed(0)
    model = ReaderNet(width=4, turn=False)
    x = torch.rand(1, 2, 3, 40, 32)

    def loss(suit_class_: int) -> float:
        return float(pair_loss(model, x, torch.tensor([rank]), torch.tensor([suit_class_]), torch.tensor([kind]),
                               torch.tensor([float("nan")]))[0])  # fmt: skip

    # Whichever joker it is taught as costs more than not being taught which.
    assert all(loss(UNTOLD) < loss(s) for s in range(len(SUITS)))


def test_a_joker_s_word_across_the_card_is_taught_at_its_first_letter_too_when_asked():
    from vision.training.reader import KNOWN, first_letter, scene_pairs
    from vision.training.targets import rank_class

    word = synth.IndexLabel((100.0, 50.0), 20.0, 80.0, 0.0, card("BJ"), "target")
    assert first_letter(word).centre == pytest.approx((100 - 40 + 0.35 * 20, 50.0))
    # Turned a quarter turn clockwise, the word runs down the image: its start is above its middle.
    turned = first_letter(synth.IndexLabel((100.0, 50.0), 20.0, 80.0, 90.0, card("BJ"), "target"))
    assert turned.centre == pytest.approx((100.0, 50 - 40 + 0.35 * 20)) and turned.width == 20.0

    image = np.random.default_rng(3).integers(0, 255, (200, 200, 3), dtype=np.uint8)
    down_the_corner = synth.IndexLabel((40.0, 150.0), 40.0, 16.0, 0.0, card("LJ"), "target")
    seven = synth.IndexLabel((150.0, 150.0), 24.0, 18.0, 0.0, card("7C"), "target")
    labels = [word, down_the_corner, seven]

    def taught(joker_words: bool) -> list[int]:
        pairs = scene_pairs(np.random.default_rng(1), image, labels, joker_words=joker_words)
        return sorted(rank for _, rank, _, kind, _ in pairs if kind == KNOWN)

    jokers, seven_class = rank_class(card("BJ")), rank_class(card("7C"))
    assert taught(False) == sorted([jokers, jokers, seven_class])
    assert taught(True) == sorted([jokers, jokers, jokers, seven_class])  # the word's J; not a word down the corner


def test_a_photo_s_joker_word_is_taught_where_the_detector_finds_it_a_letter_or_the_word_in_size():
    from vision.training.reader import JOKER_PLACES, _joker_word_peaks

    box = (100.0, 100.0, 300.0, 180.0)  # "Joker" across the card, 80 px tall with its stars
    reads = [
        _read_at((130.0, 140.0), 40.0, 0.6),  # its J
        _read_at((135.0, 142.0), 44.0, 0.5),  # its J again, at another scale: one place
        _read_at((200.0, 140.0), 50.0, 0.4),  # its middle
        _read_at((260.0, 140.0), 30.0, 0.3),  # its end
        _read_at((150.0, 170.0), 10.0, 0.7),  # a speck: too small for a letter
        _read_at((200.0, 150.0), 150.0, 0.9),  # the whole card's top: too large
        _read_at((400.0, 140.0), 40.0, 0.9),  # outside the box
    ]
    places = [r.centre for r in _joker_word_peaks(reads, box)]
    assert places == [(130.0, 140.0), (200.0, 140.0), (260.0, 140.0)]
    many = [_read_at((110.0 + 30 * k, 140.0), 40.0, 0.5) for k in range(6)]  # six letters, far enough apart
    assert len(_joker_word_peaks(many, box)) == JOKER_PLACES


def _read_at(centre: tuple[float, float], height: float, heat: float):
    from vision.index_reads import IndexRead

    return IndexRead(centre, height, 0.7 * height, 0.0, None, heat, heat)


def test_the_detector_s_false_peaks_are_those_on_no_index_surest_first():
    from vision.training.reader import false_peaks

    indices = [((50.0, 50.0), 20.0), ((150.0, 60.0), 30.0)]
    reads = [
        _read_at((52.0, 55.0), 20.0, 0.9),  # on the first index
        _read_at((150.0, 80.0), 40.0, 0.6),  # a tall read whose centre lies on the second
        _read_at((100.0, 150.0), 20.0, 0.3),  # a pip, say
        _read_at((20.0, 150.0), 25.0, 0.5),
        _read_at((21.0, 151.0), 26.0, 0.4),  # the same place, seen at another scale
    ]
    assert false_peaks(reads, indices) == [((20.0, 150.0), 25.0, 0.0), ((100.0, 150.0), 20.0, 0.0)]
    assert false_peaks(reads, []) == [(r.centre, r.height, r.up_deg) for r in sorted(reads[:4], key=lambda r: -r.heat)]


def test_drawn_jokers_are_drawn_as_often_as_asked_and_as_they_come_by_default():
    def joker_share_of_drawn(pool: synth.FacePool, picks: int = 800) -> float:
        drawn = [face for face in (pool.pick() for _ in range(picks)) if face.design == "drawn"]
        return sum(face.card.is_joker for face in drawn) / len(drawn)

    asked = synth.FacePool(np.random.default_rng(2), drawn=20, drawn_jokers=0.5)
    as_they_come = synth.FacePool(np.random.default_rng(2), drawn=20)
    # Of 350-odd drawn faces, half jokers give 0.4 or more; as they come, the pool of 20 drawn
    # faces (renewed a twentieth of the times one is picked) holds a joker or two at most.
    assert joker_share_of_drawn(asked) > 0.4
    assert joker_share_of_drawn(as_they_come) < 0.15


def test_joker_word_scales_a_photo_of_jokers_alone_by_the_word_s_height(tmp_path):
    from vision.photo_set import Photo
    from vision.training.train import _real

    # The word Joker across a card's top, 230 x 70 px; its photo is taught at the word's height
    # only when asked, and the option is off unless given.
    photo = Photo("IMG_1", "phone", tmp_path / "IMG_1.jpg", ((card("LJ"), (100.0, 100.0, 330.0, 170.0)),))
    image = np.full((640, 480, 3), 200, np.uint8)
    (by_width,) = _real(np.random.default_rng(5), photo, image)[1]
    (by_height,) = _real(np.random.default_rng(5), photo, image, joker_word=True)[1]
    assert by_height.size == pytest.approx(by_width.size * 230 / 70)
    assert parser().parse_args(["--joker-word"]).joker_word and not parser().parse_args([]).joker_word


@pytest.mark.parametrize("value", ["-0.1", "1.5", "often"])
def test_a_share_of_drawn_jokers_photos_or_grey_scenes_out_of_0_to_1_is_refused_by_name(value, capsys):
    from vision.training import reader

    for training, option in ((parser, "--drawn-jokers"), (parser, "--real-share"), (reader.parser, "--real-share"),
                             (reader.parser, "--grey")):  # fmt: skip
        with pytest.raises(SystemExit):
            training().parse_args([option, value])
        assert f"argument {option}: " in capsys.readouterr().err


def test_a_negative_count_of_hard_negatives_is_refused_by_name(tmp_path):
    from vision.training import reader

    argv = ["--run", str(tmp_path / "run"), "--steps", "1", "--hard-negatives", "-1"]
    with pytest.raises(SystemExit, match="--hard-negatives -1: a count of places"):
        reader.train(reader.parser().parse_args(argv))
    assert not (tmp_path / "run").exists()


def test_hard_negatives_teach_the_table_detector_s_peaks_off_every_index_as_no_index(monkeypatch):
    from vision.training import reader
    from vision.training.reader import KNOWN, NEITHER, Crops
    from vision.training.targets import rank_class

    # One scene over and over: a grey table, one seven of clubs, a joker whose index is a word
    # across the card (green), and a red patch where the table's detector sees an index at every
    # scale (a phantom: no index lies there). It sees one at the word's end too, which is no phantom.
    image = np.full((256, 256, 3), 128, np.uint8)
    image[10:70, 10:70] = (0, 0, 255)
    image[110:130, 160:240] = (0, 255, 0)
    seven = synth.IndexLabel((200.0, 200.0), 24.0, 17.0, 0.0, card("7C"), "target")
    joker = synth.IndexLabel((200.0, 120.0), 12.0, 72.0, 0.0, card("LJ"), "target")
    monkeypatch.setattr(reader.synth, "scene", lambda rng, pool: (image.copy(), [seven, joker]))

    class Detector:
        def detect(self, image, scale=1.0):
            return [_read_at((40.0, 40.0), 20.0, 0.6), _read_at((228.0, 120.0), 12.0, 0.6)]

    monkeypatch.setattr(reader, "_table_detector", Detector)

    def items(hard: int) -> list:
        crops = iter(Crops(seed=6, start_step=0, real={}, real_share=0.0, hard=hard))
        return [next(crops) for _ in range(30)]

    def red(x) -> bool:  # the pair's first crop (channels first, BGR in 0-1) lies on the red patch
        return bool(x[0, 2].mean() > 0.8 and x[0, 0].mean() < 0.2)

    def green(x) -> bool:
        return bool(x[0, 1].mean() > 0.6 and x[0, 2].mean() < 0.2)

    for hard, phantoms in ((0, 0), (2, 1)):
        got = items(hard)
        sevens = sum(int(kind) == KNOWN and int(rank) == rank_class(card("7C")) for _, rank, _, kind, _ in got)
        on_patch = [int(kind) for x, _, _, kind, _ in got if red(x)]
        assert sevens >= 5 and all(kind == NEITHER for kind in on_patch)
        # Each scene: its seven, a random place off it, and with hard negatives the phantom, once
        # (the detector saw it at two scales, and one place is one peak).
        # (A random place may fall on the patch now and then: one at most in these few scenes.)
        assert phantoms * (sevens - 1) <= len(on_patch) <= phantoms * sevens + 1
        assert not [x for x, _, _, kind, _ in got if green(x) and int(kind) == NEITHER]


def test_hard_negatives_are_at_most_the_count_asked_drawn_from_the_surest_in_order():
    from vision.training.reader import _some_of

    # Peaks surest first, as false_peaks gives them: twenty of them, numbered by their rank.
    peaks = [((float(k), 0.0), 20.0, 0.0) for k in range(20)]
    rng = np.random.default_rng(3)
    drawn = [_some_of(rng, peaks, 4) for _ in range(50)]
    assert all(len(d) == 4 for d in drawn)
    ranks = [[int(p[0][0]) for p in d] for d in drawn]
    assert all(r == sorted(r) and max(r) < 12 for r in ranks)  # the surest three times four, in order
    assert len({tuple(r) for r in ranks}) > 5  # not the same few every time
    assert _some_of(rng, peaks[:3], 4) == peaks[:3] and _some_of(rng, peaks, 0) == []


def test_a_synthetic_index_s_crop_is_cut_up_to_the_height_asked_for_and_no_taller():
    from vision.training.reader import SHORTEST, TALLER, _jittered, parser, train

    seven = synth.IndexLabel((150.0, 150.0), 20.0, 15.0, 0.0, card("7C"), "target")
    rng = np.random.default_rng(5)
    usual = [_jittered(rng, seven)[1] / 20.0 for _ in range(400)]
    taller = [_jittered(rng, seven, 1.35)[1] / 20.0 for _ in range(400)]
    assert min(usual) >= SHORTEST and max(usual) <= TALLER
    assert min(taller) >= SHORTEST and TALLER < max(taller) <= 1.35
    with pytest.raises(SystemExit, match=r"--taller 0\.8: a share of the index's height above 0\.85"):
        train(parser().parse_args(["--taller", "0.8"]))


def test_a_training_photo_shrunk_for_fewer_pixels_keeps_its_indices_where_they_now_lie():
    from vision.training.reader import FEWEST_PIXELS, SHRUNK_TO_AT_MOST, fewer_pixels

    # A black square (the "index") 80 px tall on a white photo, centred at (150.5, 240.5).
    image = np.full((480, 360, 3), 255, np.uint8)
    image[201:281, 111:191] = 0
    found = [(card("7C"), (150.5, 240.5), 80.0, 30.0)]
    rng = np.random.default_rng(2)
    for _ in range(20):
        small, [(seven, (cx, cy), h, up)] = fewer_pixels(rng, image, found)
        f = small.shape[0] / image.shape[0]
        assert seven == card("7C") and up == 30.0
        assert FEWEST_PIXELS - 0.5 <= h <= SHRUNK_TO_AT_MOST + 0.5 and h == pytest.approx(80 * f, rel=0.02)
        ink = 255 - small.mean(axis=2)
        ink[ink < 30] = 0  # a JPEG's ringing on the white
        rows, columns = np.mgrid[: ink.shape[0], : ink.shape[1]]
        # Where the square's ink now lies: to a twentieth of a pixel, not the half pixel that
        # scaling the centre alone (without pixel centres) is off by.
        assert (cx, cy) == pytest.approx(((ink * columns).sum() / ink.sum(), (ink * rows).sum() / ink.sum()), abs=0.1)

    # Indices already as small as the table sees them are never enlarged, nor is a photo without any.
    small_index = [(card("7C"), (150.5, 240.5), 11.0, 0.0)]
    assert fewer_pixels(rng, image, small_index) == (image, small_index)
    assert fewer_pixels(rng, image, []) == (image, [])


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("training", ["detector", "reader"])
def test_a_run_taught_without_the_held_out_photos_is_not_resumed_with_them(tmp_path, training):
    module, argv = _tiny_run(tmp_path, training)
    module.train(module.parser().parse_args([*argv, "--hold-out", "--minutes", "1e-10"]))
    with pytest.raises(RunMismatch, match="--hold-out True, not False"):
        module.train(module.parser().parse_args(argv))
    assert module.train(module.parser().parse_args([*argv, "--hold-out"]))["steps"] == 2


def test_the_detector_s_photos_with_hold_out_are_those_not_held_out(monkeypatch):
    from vision import photo_set
    from vision.training import train as detector

    asked = []
    monkeypatch.setattr(photo_set, "training_photos", lambda hold_out=False: asked.append(hold_out) or [])
    for hold_out in (True, False):
        next(iter(detector.Scenes(seed=1, start_step=0, real_share=1.0, hold_out=hold_out)))
    assert asked == [True, False]


def test_the_reader_s_photos_with_hold_out_are_those_not_held_out_and_kept_apart(tmp_path, monkeypatch):
    import json

    from vision import photo_set
    from vision.training import reader

    labels = tmp_path / "set" / "labels"
    labels.mkdir(parents=True)
    for m in range(48):
        data = {"image": f"images/IMG_{m}.jpg", "indices": [{"card": "2C", "box": [0, 0, 1, 1]}]}
        (labels / f"IMG_2022092119{m:02d}00.json").write_text(json.dumps(data))
    monkeypatch.setenv(photo_set.DATASET_ENV, str(tmp_path / "set"))
    (tmp_path / "run").mkdir()
    given = []
    monkeypatch.setattr(reader, "detector_finds", lambda _d, photos, _j=False: given.append(photos) or {})
    reader._detector_finds(tmp_path / "run", tmp_path / "det.onnx", hold_out=True)
    reader._detector_finds(tmp_path / "run", tmp_path / "det.onnx")
    held = {p.name for p in photo_set.photos_of("held-out")}
    assert held and [bool(held & {p.name for p in photos}) for photos in given] == [False, True]
    # Each kept under a name of its own: a run folder's finds of the whole half are not taken for the taught part's.
    assert sorted(f.name for f in (tmp_path / "run").iterdir()) == ["real_indices.json", "real_indices_taught.json"]


def test_a_training_photo_s_crops_are_cut_as_far_off_as_synthetic_ones_only_when_asked(monkeypatch):
    from vision.training import reader as reader_module

    cut: list[float] = []  # each crop's height, as a share of its index's

    def recorded(image, centre, h, angle, crop):
        cut.append(h / 20.0)
        return np.zeros((2, crop.height, crop.width, 3), np.uint8)

    monkeypatch.setattr(reader_module, "_pair", recorded)
    image = np.zeros((120, 120, 3), np.uint8)
    found = [(card("7C"), (60.0, 60.0), 20.0, 0.0)] * 400

    def heights(wide: float) -> list[float]:
        cut.clear()
        reader_module.real_pairs(np.random.default_rng(3), image, found, wide=wide)
        return list(cut)

    usual, wide = heights(0.0), heights(1.0)
    # Without the option the photo's first crop is cut from the same draws as before it existed.
    before = np.random.default_rng(3)
    before.normal(0, 0.06, 2)
    assert usual[0] == pytest.approx(before.uniform(0.9, 1.12))
    assert min(usual) >= 0.9 and max(usual) <= 1.12
    assert reader_module.SHORTEST <= min(wide) < 0.9 and 1.12 < max(wide) <= reader_module.TALLER
    # Half of them cut wide, a third of which fall outside the usual heights: about 67 of 400.
    assert 35 < sum(not 0.9 <= h <= 1.12 for h in heights(0.5)) < 100


def test_a_photo_s_index_pasted_onto_a_face_makes_a_face_of_its_card_taught_without_an_up_direction(tmp_path):
    import cv2

    from vision.photo_set import Photo
    from vision.training.pasted import PASTED, RealIndices, upright_indices

    # A photo of a 7H whose index is a dark block in a 20 x 40 px box on pale paper, beside a
    # turned index (a square box) and a joker's word, which are not pasted.
    image = np.full((200, 200, 3), 190, np.uint8)
    image[60:100, 50:70] = 30
    cv2.imwrite(str(tmp_path / "IMG_1.jpg"), image)
    boxes = ((card("7H"), (50.0, 60.0, 70.0, 100.0)), (card("2C"), (120.0, 120.0, 150.0, 150.0)),
             (card("LJ"), (100.0, 20.0, 180.0, 45.0)))  # fmt: skip
    photo = Photo("IMG_1", "phone", tmp_path / "IMG_1.jpg", boxes)
    assert [index.card for index in upright_indices([photo])] == [card("7H")]

    picked = synth.FacePool(np.random.default_rng(4), drawn=0)
    face = picked.pick()
    while face.card.is_joker:
        face = picked.pick()
    images: dict = {}  # the training's photos read so far: the one photo is read into it, and once
    pool = synth.FacePool(np.random.default_rng(4), drawn=0, real=RealIndices([photo], images), pasted_share=1.0)
    made = pool.pick()
    assert made.card == card("7H") and made.design == PASTED and made.index_box == face.index_box
    assert list(images) == ["IMG_1"]
    # The face's own index is painted over: its box now holds the photo's dark block, scaled to the
    # index's height, at the same place in both corners (the second half a turn round).
    x0, y0, x1, y1 = (round(v) for v in face.index_box)
    top_left = made.image[y0:y1, x0:x1]
    bottom_right = made.image[::-1, ::-1][y0:y1, x0:x1]
    assert top_left.mean() < face.image[y0:y1, x0:x1].mean() and top_left.min() < 60
    assert np.abs(top_left.astype(int) - bottom_right.astype(int)).mean() < 3
    # A scene of such faces (and the designs' jokers, which keep their words) teaches where each
    # index is and what it reads, not which way up it stands.
    labels = [label for label in synth.scene(np.random.default_rng(1), pool)[1] if not label.card.is_joker]
    assert labels and {label.card for label in labels} == {card("7H")}
    assert not any(label.geometry for label in labels)
    from vision.training.train import _mark

    assert all(_mark(label).angle_deg is None for label in labels)
    assert parser().parse_args(["--pasted", "0.25"]).pasted == 0.25 and parser().parse_args([]).pasted == 0


def test_without_pasted_indices_the_face_pool_draws_as_it_did(tmp_path):
    import cv2

    from vision.photo_set import Photo
    from vision.training.pasted import RealIndices

    cv2.imwrite(str(tmp_path / "IMG_1.jpg"), np.full((100, 100, 3), 190, np.uint8))
    photo = Photo("IMG_1", "phone", tmp_path / "IMG_1.jpg", ((card("7H"), (20.0, 20.0, 40.0, 60.0)),))
    plain = synth.FacePool(np.random.default_rng(8), drawn=10)
    given = synth.FacePool(np.random.default_rng(8), drawn=10, real=RealIndices([photo]), pasted_share=0.0)
    assert [str(plain.pick().card) for _ in range(40)] == [str(given.pick().card) for _ in range(40)]
