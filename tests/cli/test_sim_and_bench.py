"""`croupier sim` and `croupier bench` as a user runs them."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import run_croupier


def test_headless_sim_prints_the_match_result():
    done = run_croupier("sim", "--engine-only", "--headless", "--hands", "3", "--seed", "5")
    assert done.returncode == 0, done.stderr
    assert "3 hand(s)" in done.stdout and "Match:" in done.stdout


def test_sim_json_is_what_the_referee_says_of_its_log(tmp_path):
    log = tmp_path / "match.json"
    done = run_croupier("sim", "--engine-only", "--headless", "--json", "--seed", "11", "--log", str(log))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["match"]["over"] is True  # no --hands: played to the end of the game
    assert 2 in result["match"]["horses"]
    replayed = run_croupier("referee", "--json", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == result


def test_the_same_seed_plays_the_same_match():
    first = run_croupier("sim", "--engine-only", "--headless", "--json", "--hands", "4", "--seed", "3")
    second = run_croupier("sim", "--engine-only", "--headless", "--json", "--hands", "4", "--seed", "3")
    assert first.stdout == second.stdout
    other = run_croupier("sim", "--engine-only", "--headless", "--json", "--hands", "4", "--seed", "4")
    assert other.stdout != first.stdout


def test_the_shown_sim_plays_each_card_in_the_terminal():
    done = run_croupier("sim", "--engine-only", "--hands", "2", "--seed", "2", "--speed", "10000")
    assert done.returncode == 0, done.stderr
    assert "Hand 1:" in done.stdout and "Hand 2:" in done.stdout
    assert " plays " in done.stdout and " calls " in done.stdout


def test_sim_rejects_an_unknown_game_in_one_line():
    done = run_croupier("sim", "--headless", "--game", "skat")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "unknown game 'skat'" in done.stderr


def test_bench_engine_reports_figures():
    done = run_croupier("bench", "engine", "--game", "poley", "--runs", "1", "--hands", "50", "--json")
    assert done.returncode == 0, done.stderr
    (figures,) = json.loads(done.stdout)
    assert figures["game"] == "poley" and figures["cards_per_s"] > 0 and figures["legal_queries_per_s"] > 0


def test_bench_engine_without_rlcard_names_the_extra_to_install():
    import importlib.util

    if importlib.util.find_spec("rlcard") is not None:
        pytest.skip("RLCard is installed here")
    done = run_croupier("bench", "engine", "--game", "poley", "--runs", "1", "--hands", "20")
    assert done.returncode == 0, done.stderr
    assert "pip install 'croupier[bench]'" in done.stdout  # the terminal's markup ate "[bench]"


def test_bench_vision_reads_whole_at_80_columns():
    args = ("bench", "vision", "--no-real", "--scenes", "1", "--frames", "2")
    done = run_croupier(*args, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "project" in done.stdout and "nothing new" in done.stdout
    assert max(len(line) for line in lines) <= 80 and "…" not in done.stdout, done.stdout  # nothing cut short


def test_bench_vision_scores_rendered_scenes_over_several_seeds_without_timing():
    args = ("bench", "vision", "--no-speed", "--no-real", "--scenes", "1", "--json")
    one, two = (run_croupier(*args, *seeds) for seeds in (("--seed", "1"), ("--seed", "1", "--seed", "2")))
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    first, both = json.loads(one.stdout), json.loads(two.stdout)
    assert first["speed"] == [] and both["speed"] == []
    assert "project" in {a["source"] for a in both["accuracy"]}
    for a, b in zip(first["accuracy"], both["accuracy"], strict=True):
        assert (a["source"], a["seeds"], b["seeds"]) == (b["source"], [1], [1, 2])
        assert b["cards"] > a["cards"] > 0  # the second seed's scenes are added, not replacing


@pytest.mark.slow
def test_bench_vision_scores_the_real_photographs_per_source(tmp_path):
    done = run_croupier("bench", "vision", "--no-speed", "--no-rendered", "--json")
    assert done.returncode == 0, done.stderr
    figures = {a["source"]: a for a in json.loads(done.stdout)["accuracy"]}
    assert set(figures) == {"real: phone", "real: webcam", "real: all"}
    assert figures["real: all"]["cards"] == figures["real: phone"]["cards"] + figures["real: webcam"]["cards"] > 400
    missing = run_croupier(
        "bench", "vision", "--no-speed", "--no-rendered", env={"CROUPIER_REAL_PHOTOS": str(tmp_path)}
    )
    assert missing.returncode == 2 and "no photo set at" in missing.stderr and "--no-real" in missing.stderr
    trained_on = run_croupier("bench", "vision", "--no-speed", "--no-rendered", "--half", "train", "--json")
    assert trained_on.returncode == 0, trained_on.stderr
    train = {a["source"]: a for a in json.loads(trained_on.stdout)["accuracy"]}
    assert set(train) == {"real, training half: phone", "real, training half: webcam", "real, training half: all"}
    assert train["real, training half: all"]["cards"] not in (0, figures["real: all"]["cards"])  # the other photos


def test_bench_vision_compares_another_model_given_by_its_files(tmp_path):
    from vision.index_crops import spec_file
    from vision.networks import default_backend, default_model, model_path, runs_file

    args = ("bench", "vision", "--no-speed", "--no-real", "--scenes", "1", "--seed", "3", "--json")
    shipped = run_croupier(*args)
    # The files the table runs here (onnxruntime's are the 8-bit ones), given by their files; the
    # reader as in a run folder, its window beside it and no turner.
    reader = runs_file(model_path("reader.onnx"), default_backend())
    shutil.copy(reader, tmp_path / reader.name)
    shutil.copy(spec_file(reader), tmp_path / spec_file(reader).name)
    detector = default_model(default_backend())
    given = run_croupier(*args, "--model", str(detector), "--reader", str(tmp_path / reader.name))
    assert shipped.returncode == 0 and given.returncode == 0, shipped.stderr + given.stderr
    assert json.loads(given.stdout) == json.loads(shipped.stdout)  # the same files: the same figures
    missing = run_croupier(*args, "--reader", str(tmp_path / "none.onnx"))
    assert missing.returncode == 2 and "none.onnx: no such model file" in missing.stderr
    without = run_croupier(*args, "--no-corner")  # the shipped models without the corner reader
    floats = run_croupier(*args, "--float-readers")  # ... with the readers in floats
    for other in (without, floats):
        assert other.returncode == 0, other.stderr
        assert [a["source"] for a in json.loads(other.stdout)["accuracy"]] == [
            a["source"] for a in json.loads(shipped.stdout)["accuracy"]
        ]


def test_bench_vision_refuses_an_unknown_size():
    done = run_croupier("bench", "vision", "--no-speed", "--size", "640x480")
    assert done.returncode == 2 and "unknown size '640x480'" in done.stderr


def test_bench_vision_refuses_an_unknown_half_of_the_photographs():
    done = run_croupier("bench", "vision", "--no-speed", "--half", "test")
    assert done.returncode == 2 and "unknown half 'test'" in done.stderr


def test_usage_errors_are_one_line_with_status_2():
    for args in (("sim", "--hands", "0"), ("referee",), ("frobnicate",), ("sim", "--speed", "fast")):
        done = run_croupier(*args)
        assert done.returncode == 2, args
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("croupier: "), done.stderr
        assert "Traceback" not in done.stderr
