"""The terminal names seats and calls as the page does (engine/seat_names.py, engine/words.py): a
seat is "North", Poley's "2H" is "2 hot", a violation is a sentence; and the printed mat labels its
zones with the same names."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np

from engine.seat_names import SeatNames
from tests.conftest import LOGS, run_croupier


def test_referee_prints_contracts_seats_and_violations_in_words() -> None:
    done = run_croupier("referee", str(LOGS / "poley/p7-long-auction.json"), env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "5 poley" in done.stdout and "South" in done.stdout
    assert "South cannot hold: only the older hand, East, may hold 4 hot; South must bid higher or pass" in done.stdout
    assert not re.search(r"\bseat \d", done.stdout), done.stdout
    hot = run_croupier("referee", str(LOGS / "poley/p1-two-hot-made.json"), env={"COLUMNS": "200"})
    assert hot.returncode == 0 and "2 hot" in hot.stdout and "2H" not in hot.stdout, hot.stdout


def test_the_simulated_table_calls_hot_contracts_hot() -> None:
    done = run_croupier("sim", "--engine-only", "--hands", "1", "--seed", "11", "--speed", "1000")
    assert done.returncode == 0, done.stderr
    assert "calls 2 hot" in done.stdout and not re.search(r"calls \d+H\b", done.stdout), done.stdout
    assert re.search(r"North\s+plays", done.stdout)


def test_the_mat_labels_its_zones_with_the_seats_names(tmp_path: Path) -> None:
    from vision.mat import MatLayout
    from vision.mat_print import render_mat

    out = tmp_path / "mat.png"
    done = run_croupier("mat", "--out", str(out), "--dpi", "50")
    assert done.returncode == 0, done.stderr
    printed = cv2.imread(str(out))
    layout = MatLayout.create(4, "a2")
    named = render_mat(layout, 50 / 25.4, SeatNames.of(4).names)
    numbered = render_mat(layout, 50 / 25.4)
    assert np.array_equal(printed, named)
    assert not np.array_equal(printed, numbered)  # not "SEAT 1" ... "SEAT 4"


def test_vision_watch_names_the_seat_a_card_was_played_at() -> None:
    done = run_croupier("vision", "watch", "sim", timeout=300)
    assert done.returncode == 0, done.stderr
    played = re.findall(r"frame \d+: (\S+) played (.+)", done.stdout)
    assert [who for who, _ in played] == ["North", "East", "South", "West"], done.stdout
