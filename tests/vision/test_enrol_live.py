"""The guided enrolment: a simulated operator shows each card asked for to the simulated camera.

The enrolment only ever gets pixels; the operator hears the prompts, like a person at the screen.
"""

from __future__ import annotations

import itertools
import re
import signal
import subprocess
import sys

import cv2
import numpy as np
import pytest

from engine.cards import POLEY_22, cards
from simulators.camera import PlacedCard, Scene, render
from simulators.operator import SimulatedOperator
from simulators.scenes import tilted_view
from tests.conftest import run_croupier
from vision.decks import deck_available, deck_faces
from vision.enrol import check_deck, load_deck
from vision.enrol_live import (
    Captured,
    Enrolment,
    EnrolTimeout,
    Event,
    Finished,
    Prompt,
    Refused,
    pack_cards,
    run_enrolment,
)
from vision.mat import MatLayout

# Part of Poley's pack, enough ranks and both colours; 8H and 8S differ only by their suit.
SUBSET = cards("AC KC QC 9H 8H JS 8S 7D")


def clock():
    """A clock that moves a tenth of a second per frame: the timeout is never reached by accident."""
    ticks = itertools.count()
    return lambda: next(ticks) * 0.1


def enrol(operator: SimulatedOperator, enrolment: Enrolment) -> list[Event]:
    heard: list[Event] = []

    def tell(event: Event) -> None:
        heard.append(event)
        if isinstance(event, Prompt):
            operator.ask(event.card)

    run_enrolment(operator, enrolment, tell, clock())
    return heard


@pytest.mark.slow
def test_a_guided_enrolment_refuses_a_card_shown_twice_and_then_reads_the_deck_without_a_wrong_card(tmp_path):
    layout = MatLayout.create(4, "a2")
    operator = SimulatedOperator.on_mat(layout, seed=2, mistakes={SUBSET[6]: SUBSET[4]})  # 8H shown for 8S
    heard = enrol(operator, Enrolment(SUBSET, tmp_path / "deck"))

    refused = [e for e in heard if isinstance(e, Refused)]
    assert [r.message for r in refused] == ["that looks like the 8H you showed before; show the 8S"]
    assert [e.card for e in heard if isinstance(e, Captured)] == SUBSET
    assert isinstance(heard[-1], Finished)
    assert operator.shown == [*SUBSET[:6], SUBSET[4], *SUBSET[6:]]  # the mistake, then the right card

    faces = load_deck(tmp_path / "deck")
    assert sorted(c for c, _ in faces) == sorted(SUBSET)
    results = check_deck(tmp_path / "deck")  # the captured faces are the cards, upright: the reader reads them
    assert all(read in (c, None) for c, read in results), results
    assert sum(read == c for c, read in results) >= 0.8 * len(SUBSET), results


def test_no_card_shown_for_too_long_is_a_timeout_naming_the_card(tmp_path):
    empty = np.full((360, 640, 3), (40, 110, 30), np.uint8)
    enrolment = Enrolment(SUBSET[:1], tmp_path / "deck", timeout_s=5)
    assert enrolment.feed(empty, 0.0) is None
    events = [enrolment.feed(empty, t) for t in (0.1, 0.2)]  # the third clear frame
    assert events[-1] == Prompt(SUBSET[0], 1, 1)
    with pytest.raises(EnrolTimeout, match=r"no card was shown still, alone, for the ace of clubs \(AC\) in 5 s"):
        enrolment.feed(empty, 5.5)
    assert not (tmp_path / "deck").exists()


def test_the_pack_names_and_the_double_pack_asked_once_per_card():
    assert pack_cards("poley-22") == POLEY_22
    assert len(pack_cards("fifty-six-48")) == 24
    with pytest.raises(ValueError, match="unknown pack 'skat-32'"):
        pack_cards("skat-32")


def recorded(folder, codes: str, seed: int) -> None:
    """A folder of frames: the operator shows these cards, then the recording ends."""
    folder.mkdir()
    operator = SimulatedOperator.on_mat(MatLayout.create(4, "a2"), seed=seed)
    frames = [operator.read() for _ in range(3)]  # the mat clear: the first prompt comes
    for card in cards(codes):
        operator.ask(card)
        frames += [operator.read() for _ in range(12)]  # brought, lying still, taken, the mat clear
    for i, frame in enumerate(frames):
        cv2.imwrite(str(folder / f"{i:04d}.png"), frame)


def one_line_error(done) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_camera_that_stops_keeps_the_cards_captured_and_resume_continues(tmp_path):
    recorded(tmp_path / "first", "AC", seed=3)  # Poley's pack begins AC, KC
    recorded(tmp_path / "second", "KC", seed=4)
    deck = str(tmp_path / "deck")
    done = run_croupier(
        "vision", "enroll", "--source", f"folder:{tmp_path / 'first'}", "--out", deck, "--pack", "poley-22"
    )
    assert done.returncode == 1
    line = one_line_error(done)
    assert "camera stopped delivering frames" in line and "1 of 22 cards are saved" in line and "--resume" in line
    assert "got AC" in done.stdout and "Show the king of clubs (KC)" in done.stdout

    again = ("vision", "enroll", "--source", f"folder:{tmp_path / 'second'}", "--out", deck, "--pack", "poley-22")
    done = run_croupier(*again)
    assert done.returncode == 2 and "already holds 1 cards: add --resume" in one_line_error(done)
    done = run_croupier(*again, "--resume")
    assert done.returncode == 1 and "2 of 22 cards are saved" in one_line_error(done)
    assert "1 of 22 cards already in" in done.stdout and "[2/22] Show the king of clubs" in done.stdout
    assert sorted(p.name for p in (tmp_path / "deck").iterdir()) == ["AC.png", "KC.png"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--source", "uvc:x"), "unknown camera source 'uvc:x'"),
        (("--source", "sim", "--pack", "skat-32"), "unknown pack 'skat-32'"),
        (("--source", "sim", "--sim-deck", "kde:oxygen"), "unknown --sim-deck 'kde:oxygen'"),
        ((), "give either a folder of PHOTOS or --source CAMERA"),
    ],
)
def test_the_cli_says_what_is_wrong_in_one_line(tmp_path, args, message):
    done = run_croupier("vision", "enroll", "--out", str(tmp_path / "deck"), *args)
    assert done.returncode == 2
    assert message in one_line_error(done)


@pytest.mark.slow
@pytest.mark.skipif(not deck_available("aisleriot:anglo"), reason="gnome-cards-data or librsvg2-bin missing")
def test_croupier_vision_enroll_from_the_simulated_operator_then_check_it_and_scan_a_real_design(tmp_path):
    deck = str(tmp_path / "deck")
    done = run_croupier(
        "vision", "enroll", "--source", "sim", "--out", deck, "--pack", "poley-22", "--sim-deck", "aisleriot:anglo",
        "--only", "AC KC QH 9S 8H 7D",  # the reader needs a few glyphs to tell each from the others
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[3/6] Show the queen of hearts (QH)" in done.stdout and "6 cards enrolled" in done.stdout
    faces = dict(deck_faces("aisleriot:anglo"))
    view = tilted_view(np.random.default_rng(5), (1280, 720), "felt", MatLayout.create(4, "a2"), deck=faces)
    placed = (PlacedCard(cards("QH")[0], (200, 150), 10), PlacedCard(cards("9S")[0], (400, 280), -8))
    frame, _ = render(view, Scene(cards=placed, noise_sigma=2))
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    done = run_croupier("vision", "check", "--deck", deck)
    assert done.returncode == 0 and "of 6 cards" in done.stdout, done.stderr
    done = run_croupier("vision", "scan", str(tmp_path / "table.png"))
    assert done.returncode == 0, done.stderr
    listed = re.findall(r"\b([2-9TJQKA][CDHS])\s+\(", done.stdout)
    assert listed and set(listed) <= {"QH", "9S"}, done.stdout  # read, and never read wrong


def test_ctrl_c_keeps_the_cards_captured_and_says_how_to_continue(tmp_path):
    deck = tmp_path / "deck"
    command = [sys.executable, "-m", "controller", "vision", "enroll", "--source", "sim", "--out", str(deck)]
    child = subprocess.Popen(
        [*command, "--pack", "poley-22"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if "got AC" in line:
                child.send_signal(signal.SIGINT)  # as Ctrl-C in the terminal does
                break
        out, _ = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130
    assert re.search(r"Stopped\. [12] of 22 cards are saved in \S+deck; to continue, .* --resume", out), out
    assert "AC.png" in {p.name for p in deck.iterdir()}
