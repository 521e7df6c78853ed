"""The tracker on rendered frame sequences: exactly the right events, never a spurious one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.tricks import LAYOUT, LIGHT, SEATS, SETTINGS, TABLES, TrickRun, play_trick
from engine.cards import card
from simulators.camera import Arm, PlacedCard, Scene, SimulatedCamera
from simulators.scenes import tilted_view, trick_scenes
from tests.conftest import run_croupier
from vision.observe import FrameObservation, Observed, Observer
from vision.tracker import Tracker, TrackerSettings, TrickCleared


def zone_centre(name: str) -> tuple[float, float]:
    zone = next(z for z in LAYOUT.zones if z.name == name)
    x0, y0, x1, y1 = zone.box_mm
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def run(scenes: list[Scene], seed: int = 1, seen: list | None = None) -> list:
    view = tilted_view(np.random.default_rng(seed), (1280, 720), "wood", LAYOUT)
    observer, tracker = Observer(LAYOUT), Tracker(SEATS, SETTINGS)
    events = []
    for frame in SimulatedCamera(view, scenes, seed=seed):
        observation = observer.observe(frame)
        if seen is not None:
            seen.append(observation)
        events += tracker.update(observation)
    return events


def scene(cards: list[PlacedCard], arms: tuple[Arm, ...] = ()) -> Scene:
    return Scene(cards=tuple(cards), arms=arms, **LIGHT)


def test_a_whole_trick_gives_four_plays_in_order_then_one_clearing():
    plays = [card(c) for c in ("7H", "7D", "QS", "AH")]
    frames = trick_scenes(np.random.default_rng(5), LAYOUT, plays, scene([]))
    events = run(frames)
    assert [(e.seat, e.card) for e in events[:-1]] == list(zip(SEATS, plays, strict=True))
    assert events[-1] == TrickCleared(events[-1].frame, tuple(plays))


def test_a_hand_passing_over_a_card_makes_no_second_event_and_no_clearing():
    here = PlacedCard(card("KC"), zone_centre("seat 1"), 5)
    tip = (640.0, 600.0)
    arms = [Arm((640, 760), (tip[0] + dx, tip[1] - 40), 70) for dx in (-60, -20, 20, 60)]
    frames = [scene([here])] * 4 + [scene([here], (a,)) for a in arms] + [scene([here])] * 4
    seen: list[FrameObservation] = []
    events = run(frames, seed=2, seen=seen)
    assert [(e.seat, str(e.card)) for e in events] == [("seat 1", "KC")]
    assert all("seat 1" in o.busy for o in seen[4:8])  # the hand was noticed, not missed


def test_a_card_slid_across_zones_counts_only_where_it_settles():
    start, end = np.array(zone_centre("seat 2")), np.array(zone_centre("seat 1"))
    path = [start + (end - start) * t for t in np.linspace(0, 1, 6)]
    moving = [scene([PlacedCard(card("9S"), (float(p[0]), float(p[1])), 10)]) for p in path]
    frames = moving + [moving[-1]] * 4
    events = run(frames, seed=3)
    assert [(e.seat, str(e.card)) for e in events] == [("seat 1", "9S")]


def test_two_identical_cards_are_two_plays_kept_apart_by_place_and_order():
    first = PlacedCard(card("JD"), zone_centre("seat 3"), -5)
    second = PlacedCard(card("JD"), zone_centre("seat 1"), 8)
    frames = [scene([first])] * 4 + [scene([first, second])] * 4
    events = run(frames, seed=4)
    assert [(e.seat, str(e.card)) for e in events] == [("seat 3", "JD"), ("seat 1", "JD")]


# ---- the voting rules on observation streams (no pixels) ----------------------------------------


def obs(index: int, *cards: tuple[str | None, str, tuple[float, float]], busy: frozenset[str] = frozenset()):
    seen = tuple(Observed(None if c is None else card(c), 0.95, centre, zone) for c, zone, centre in cards)
    return FrameObservation(index, seen, busy, True)


def feed(stream: list[FrameObservation]) -> list:
    tracker = Tracker(SEATS, TrackerSettings(stable_frames=3, clear_frames=3))
    return [e for o in stream for e in tracker.update(o)]


def test_one_misread_frame_neither_creates_nor_changes_an_event():
    at = (297.0, 350.0)
    reads = ["6H", "6H", "9H", "6H", "6H", "6H", "8H", "6H"]
    events = feed([obs(i, (c, "seat 1", at)) for i, c in enumerate(reads)])
    assert [str(e.card) for e in events] == ["6H"]


def test_a_streak_broken_by_misreads_makes_no_event():
    at = (297.0, 350.0)
    reads = ["6H", "6H", "9H", "6H", "6H", "9H", "6H", "6H"]
    assert feed([obs(i, (c, "seat 1", at)) for i, c in enumerate(reads)]) == []


def test_unknown_reads_and_busy_zones_hold_the_trick_open():
    at = (297.0, 350.0)
    stream = [obs(i, ("5C", "seat 1", at)) for i in range(3)]
    stream += [obs(3 + i, (None, "seat 1", at)) for i in range(4)]  # covered: read, but not as a card
    stream += [obs(7 + i, busy=frozenset({"seat 1"})) for i in range(4)]  # a hand over it
    stream += [obs(11 + i) for i in range(3)]
    events = feed(stream)
    assert [type(e).__name__ for e in events] == ["CardPlayed", "TrickCleared"]
    assert events[1].frame == 13


def test_a_frame_without_the_mat_breaks_nothing():
    at = (297.0, 350.0)
    stream = [obs(0, ("2S", "seat 2", at)), FrameObservation(1, (), frozenset(), False)]
    stream += [obs(2, ("2S", "seat 2", at)), obs(3, ("2S", "seat 2", at))]
    assert [str(e.card) for e in feed(stream)] == ["2S"]


def test_the_referees_prior_only_ever_removes_reads():
    at = (297.0, 350.0)
    tracker = Tracker(SEATS, TrackerSettings(stable_frames=2))
    allowed = {"seat 1": {card("AS")}}
    events = [e for i in range(4) for e in tracker.update(obs(i, ("KS", "seat 1", at)), allowed)]
    assert events == []


def test_croupier_vision_watch_follows_the_simulated_trick():
    done = run_croupier("vision", "watch", "sim", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(e["event"], e.get("seat"), e.get("card")) for e in events[:-1]] == [
        ("card_played", f"seat {i + 1}", code) for i, code in enumerate(["QH", "7D", "AS", "KH"])
    ]
    assert events[-1]["event"] == "trick_cleared" and events[-1]["cards"] == ["QH", "7D", "AS", "KH"]


def test_croupier_vision_watch_refuses_a_missing_camera_in_one_line():
    done = run_croupier("vision", "watch", "uvc:63")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "croupier: camera 63 cannot be opened (is it connected, and is it free?)"
    ]


def _seen(index: int, cards: dict[str, str]) -> FrameObservation:
    """One frame's observation, written by hand: these cards, still, in these zones."""
    observed = tuple(Observed(card(c), 1.0, zone_centre(zone), zone) for zone, c in cards.items())
    return FrameObservation(index, observed, frozenset(), True)


def test_a_lead_put_down_before_the_mat_was_seen_clear_starts_the_next_trick_once_the_referee_says_so():
    def play(tracker: Tracker, complete: bool) -> list:
        frames = [{"seat 1": "7H"}, {"seat 1": "7H", "seat 2": "8H"}]
        frames += [{"seat 1": "7H", "seat 2": "8H", "seat 3": "9H", "seat 4": "TH"}] * 2
        frames += [{}]  # gathered: one empty frame, fewer than clear_frames
        frames += [{"seat 2": "AS"}] * 6  # the next leader is quick
        events, index = [], 0
        for cards in frames:
            for _ in range(SETTINGS.stable_frames):  # each state held long enough to settle
                events += tracker.update(_seen(index, cards))
                index += 1
            if complete and len(cards) == 4:
                tracker.trick_complete()
        return events

    quick = play(Tracker(SEATS, SETTINGS), complete=True)
    assert [type(e).__name__ for e in quick] == ["CardPlayed"] * 4 + ["TrickCleared", "CardPlayed"]
    assert quick[-1].seat == "seat 2" and quick[-1].card == card("AS")
    # Without the referee's word the camera keeps waiting for the mat to be seen clear.
    waiting = play(Tracker(SEATS, SETTINGS), complete=False)
    assert [type(e).__name__ for e in waiting] == ["CardPlayed"] * 4


@pytest.mark.parametrize("deck", ["project", "kde:standard", "kde:nicu-white", "aisleriot:anglo"])
def test_whole_tricks_on_every_table_read_out_of_the_box(deck):
    # The default reader (no deck enrolled), the observer's work budget on: three tricks, one per
    # table. On the pale table the table itself once came out as card pixels in a frame: a blob
    # as large as the frame, which took the budget and put the last card off until the trick was
    # gathered (that play was lost).
    for s in (6, 7, 8):
        assert_played_exactly(_trick(deck, s))


def test_plays_come_in_the_order_the_cards_were_put_down_not_the_order_they_were_read():
    # Seat 1 puts its card down first, but it is not read for six frames (glare); seat 2's card
    # reads at once. Told seat 2 first, the referee would refuse it as out of turn: a false
    # accusation. Seat 2's play waits for seat 1's.
    one, two = (297.0, 350.0), (100.0, 215.0)
    stream = [obs(i, (None, "seat 1", one)) for i in range(2)]
    stream += [obs(i, (None, "seat 1", one), ("7C", "seat 2", two)) for i in range(2, 8)]
    stream += [obs(i, ("QS", "seat 1", one), ("7C", "seat 2", two)) for i in range(8, 12)]
    events = feed(stream)
    assert [(e.seat, str(e.card)) for e in events] == [("seat 1", "QS"), ("seat 2", "7C")]
    assert events[0].frame == events[1].frame == 10


def test_cards_first_seen_together_play_in_the_referees_turn_order_when_it_is_given():
    # Both cards appear in one frame (a hand hid both as they went down): nothing tells which
    # came first. Read order puts seat 2's first; the referee, whose turn is seat 1's, would
    # refuse it. Given the turn, seat 1's plays first.
    one, two = (297.0, 350.0), (100.0, 215.0)
    stream = [obs(i, ("7C", "seat 2", two), ("QS", "seat 1", one)) for i in range(4)]
    assert [e.seat for e in feed(stream)] == ["seat 2", "seat 1"]
    tracker = Tracker(SEATS, TrackerSettings(stable_frames=3, clear_frames=3))
    turn = ["seat 1", "seat 2", "seat 3", "seat 4"]
    events = [e for o in stream for e in tracker.update(o, turn=turn)]
    assert [(e.seat, str(e.card)) for e in events] == [("seat 1", "QS"), ("seat 2", "7C")]


def test_a_play_waits_for_an_unread_card_no_longer_than_it_must():
    one, two = (297.0, 350.0), (100.0, 215.0)
    # The unread card is taken away: the wait ends a few frames later.
    stream = [obs(0, (None, "seat 1", one))]
    stream += [obs(i, (None, "seat 1", one), ("7C", "seat 2", two)) for i in range(1, 4)]
    stream += [obs(i, ("7C", "seat 2", two)) for i in range(4, 14)]
    events = feed(stream)
    assert [(e.seat, str(e.card)) for e in events] == [("seat 2", "7C")]
    assert events[0].frame == 10  # the unread card last seen in frame 3, forgotten after 2 x 3 frames
    # A card that never reads (not a card at all, say) holds the play for max_hold_frames at most.
    tracker = Tracker(SEATS, TrackerSettings(stable_frames=3, clear_frames=3, max_hold_frames=20))
    stream = [obs(0, (None, "seat 1", one))]
    stream += [obs(i, (None, "seat 1", one), ("7C", "seat 2", two)) for i in range(1, 30)]
    events = [e for o in stream for e in tracker.update(o)]
    assert [(e.seat, str(e.card), e.frame) for e in events] == [("seat 2", "7C", 21)]
    # A card put down after the played one holds nothing back.
    later = [obs(i, ("7C", "seat 2", two)) for i in range(3)]
    later += [obs(i, ("7C", "seat 2", two), (None, "seat 3", (297.0, 80.0))) for i in range(3, 6)]
    assert [e.frame for e in feed(later)] == [2]


@pytest.mark.parametrize("s", [17, 26])
def test_a_pale_table_around_the_mat_hides_no_card(s):
    # The pale table is paper-coloured all round the mat: its blob enclosed the whole mat, whose
    # holes were filled as a court card's picture is, so no card on the mat was a blob of its own
    # until the ring broke (a card pushed in over the mat's edge). Seed 26 then saw its last card
    # too late to play it; seed 17 saw its first two cards first in one frame, and played them in
    # the wrong order.
    run = _trick("project", s)
    assert TABLES[s % 3] == "pale"  # the table this seed is played on
    assert_played_exactly(run)


def _trick(deck: str, s: int) -> TrickRun:
    """A rendered trick as ``python -m benchmarks.tricks`` plays it (seed ``s``; tables wood,
    felt, pale in turn), through the observer with the default reader and work budget."""
    from vision.decks import deck_available

    if deck != "project" and not deck_available(deck):
        pytest.skip(f"{deck} is not installed")
    return play_trick(deck, s)


def assert_played_exactly(run: TrickRun) -> None:
    """Four plays, each seat's card in turn, then the trick cleared with those four cards."""
    assert [(e.seat, e.card) for e in run.events[:-1]] == list(zip(SEATS, run.plays, strict=True)), run.events
    assert run.events[-1] == TrickCleared(run.events[-1].frame, tuple(run.plays)), run.events


# Whole tricks of the campaign (`_trick`) that once lost a play: each now comes out exactly.
ONCE_LOST = [
    # nicu-white's AH (pale table): its big heart, joined to the card's edge through the index's
    # heart, cut so deep into its paper that the blob was neither full enough to be one card nor
    # large enough to be split; the card was never outlined.
    pytest.param("kde:nicu-white", 11, id="a card whose ink cuts into its paper"),
    # nicu-white's LJ, the last play (pale table): its index is the word JOKER down the corner,
    # letters about 8 px tall at 720p. Detectors taught that design's joker as its J alone (the
    # training faces' box stopped there; vision/training/faces.py takes the whole word) read the
    # word as a club or as nothing; the detector trained on the whole word plays it.
    pytest.param("kde:nicu-white", 41, id="a joker whose index is a word of small letters"),
    # nicu-white's 3H in seat 1 (felt table), played as a 3D: settled, its two corners were its
    # look's only sure reads, one measured a quarter short; cut at that height, its crop lost the
    # heart's point and read a sure 3D, which outweighed the other corner's 3H. Of two sure reads
    # the shorter is now cut at the taller's height (vision.index_readers.agreed_heights).
    pytest.param("kde:nicu-white", 10, id="a heart whose crop was cut short of its point"),
    # The project's 2C in seat 3 (pale table), its club unsure at first, was read again only in
    # every other frame: the pale table's blob, larger than any trick and last in the budget's
    # order, went on with its split first, as the 2C's read was not in the plan. Read in the last
    # still frame only, its play and the 4C's after it were lost.
    pytest.param("project", 23, id="a card read unknown, read again in every still frame"),
    # Anglo's KC in the far seat, smallest in perspective, read "no readable index" in every still
    # frame (its K was joined to the piece of its picture's frame beside it), and the 4H played
    # after it waited for it.
    pytest.param("aisleriot:anglo", 85, id="a king's index beside its picture's corner"),
]


@pytest.mark.parametrize(("deck", "seed"), ONCE_LOST)
def test_a_trick_that_once_lost_a_play_is_played_exactly(deck, seed):
    assert_played_exactly(_trick(deck, seed))


def test_a_pale_tables_blob_waiting_for_work_makes_no_empty_zone_busy():
    # On a pale table (project seed 23) the table above the mat is one blob bent round the mat's
    # top: larger than any trick, its work waits behind the cards'. Its outline's centre lay on
    # the mat, in seat 3's zone, which was then busy in most frames though nothing lay there.
    run = _trick("project", 23)
    seen, frames = run.seen, run.frames
    for i in range(1, len(frames)):
        if frames[i] != frames[i - 1]:
            continue  # a card moving: its zones are busy
        zones = {LAYOUT.zone_at(*c.centre_mm).name for c in frames[i].cards if LAYOUT.zone_at(*c.centre_mm)}
        assert not (seen[i].busy - zones), (i, seen[i].busy, zones)


def test_the_tricks_benchmark_plays_with_the_model_files_it_is_given_and_names_a_missing_one(tmp_path):
    import subprocess
    import sys

    from vision.networks import model_path

    def tricks(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "benchmarks.tricks", "--tricks", "1", "--design", "project", "--json"]
        return subprocess.run([*command, *args], capture_output=True, text=True, timeout=600)

    given = tricks("--model", str(model_path()), "--reader", str(model_path("reader.onnx")))
    assert given.returncode == 0, given.stderr
    [row] = json.loads(given.stdout)
    assert row["design"] == "project" and row["plays"] == 4 and row["right"] + row["wrong"] + row["missed"] == 4
    missing = tricks("--reader", str(tmp_path / "reader.onnx"))
    assert missing.returncode == 2 and "reader.onnx: no such model file" in missing.stderr
