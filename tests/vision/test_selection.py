"""The selection benchmark (benchmarks.selection): the shipped models against others, on the
sets models are chosen on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.selection import Figure, main, table
from vision.networks import default_backend, default_model
from vision.photo_set import default_root


def test_the_two_sets_of_figures_stand_side_by_side_a_measure_a_line():
    shipped = [Figure("training photos, right / wrong", 565, 5, 586), Figure("tricks exact", 95, 1, 96, 0)]
    given = [Figure("training photos, right / wrong", 566, 4, 586), Figure("tricks exact", 96, 0, 96, 0)]
    lines = table(shipped, given).splitlines()
    assert lines[1].endswith("566 / 4 of 586") and "565 / 5 of 586" in lines[1]
    assert lines[2].endswith("96 of 96 (0 wrong, 0 missed)") and "95 of 96 (1 wrong, 0 missed)" in lines[2]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give a model to compare"),
        (["--model", "no-such.onnx"], "no-such.onnx: no such model file"),
        (["--model", "x", "--tricks", "0"], "must be at least 1"),
        (["--crop-heights", "0.85,tall"], "give factors of a height, such as 0.85,1,1.18"),
        (["--crop-heights", "1,3"], "each factor must be from 0.5 to 2"),
    ],
)
def test_a_comparison_without_a_model_or_with_a_missing_one_is_refused_with_why(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(
    not (default_root() / "labels").is_dir(), reason="the shared photo set is not beside the repository"
)
def test_the_shipped_detector_given_by_path_reads_every_selection_set_as_the_shipped_one(capsys):
    main(
        ["--model", str(default_model(default_backend())), "--scenes", "1", "--tricks", "1", "--photos", "3", "--json"]
    )
    figures = json.loads(capsys.readouterr().out)
    assert [f["measure"] for f in figures["shipped"]] == [
        "training photos, right / wrong",
        "rendered seed 12, 720p",
        "rendered seed 12, 1080p",
        "rendered seeds 13-14, 720p",
        "rendered seed 12, 720p, grey",
        "tricks exact",
    ]
    assert figures["shipped"] == figures["given"]
    assert all(f["right"] > 0 for f in figures["shipped"])


def test_the_shipped_models_without_the_corner_reader_are_a_comparison_of_their_own(capsys):
    import argparse

    from benchmarks.model_options import add_model_options, given_detector
    from vision.networks import CORNER, model_path

    parser = argparse.ArgumentParser()
    add_model_options(parser)
    assert given_detector(parser, parser.parse_args([])) is None  # nothing given: the shipped models alone
    without = given_detector(parser, parser.parse_args(["--no-corner"]))
    assert without is not None and without.readers is not None and without.readers.corner is None
    floats = given_detector(parser, parser.parse_args(["--float-readers"]))
    assert floats is not None
    readers = (floats.readers.turner, floats.readers.reader, floats.readers.corner)
    assert [Path(net.path).name for net in readers if net is not None] == ["turner.onnx", "reader.onnx", "corner.onnx"]
    unchecked = given_detector(parser, parser.parse_args(["--no-ink"]))
    assert unchecked is not None and not unchecked.readers.check_ink and unchecked.readers.corner is not None
    assert not unchecked.readers.fuse_grey_suit
    fused = given_detector(parser, parser.parse_args(["--fuse-grey-suit"]))
    assert fused is not None and fused.readers.fuse_grey_suit and fused.readers.check_ink
    with pytest.raises(SystemExit):
        given_detector(parser, parser.parse_args(["--no-corner", "--corner", str(model_path(CORNER))]))
    assert "give one" in capsys.readouterr().err


def test_the_grey_measure_reads_each_rendered_frame_without_its_colour(monkeypatch):
    import benchmarks.vision as bench
    from vision.ink import has_colour

    coloured: list[bool] = []
    monkeypatch.setattr(bench, "scan", lambda frame, detector=None: coloured.append(has_colour(frame)) or [])
    figures = bench.rendered_figures(1, (640, 360), (12,), grey=True)
    assert coloured and not any(coloured)
    assert all(f.size == "640x360 grey" and f.cards > 0 for f in figures)
    coloured.clear()
    assert [f.size for f in bench.rendered_figures(1, (640, 360), (12,))] == ["640x360"] * len(figures)
    assert all(coloured)
