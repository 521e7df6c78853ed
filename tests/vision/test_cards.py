"""Joining corner indices into cards (vision.cards): pure, on index reads made here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.cards import card
from vision.cards import DIAGONAL, INDEX_AT, Thresholds, join
from vision.index_reads import IndexRead


def read(code: str, centre, up_deg: float, p: float = 0.95, height: float = 24.0, others=()) -> IndexRead:
    c = card(code)
    candidates = ((c, p), *((card(o), (1 - p) / max(1, len(others))) for o in others))
    return IndexRead(centre, height, 14.0, up_deg, c, p, 0.97, candidates)


def corners_of(centre, up_deg: float, card_h: float):
    """Where a card's two indices lie, for a card centred at ``centre``, turned ``up_deg``."""
    a = math.radians(up_deg)
    up = np.array([math.sin(a), -math.cos(a)])
    right = np.array([-up[1], up[0]])
    w = card_h * 63.5 / 88.9
    offset = (0.5 - INDEX_AT[0]) * w * right + (0.5 - INDEX_AT[1]) * card_h * -up
    return tuple(np.array(centre) - offset), tuple(np.array(centre) + offset)


@pytest.mark.parametrize("turn", [0, 30, 95, 180, 271])
def test_two_indices_of_one_card_make_one_card_at_its_centre(turn):
    a, b = corners_of((400, 300), turn, 180)
    cards = join([read("QS", a, turn), read("QS", b, turn + 180)], (128.6, 180.0))
    assert len(cards) == 1
    assert cards[0].card == card("QS") and len(cards[0].index_centres) == 2
    assert np.allclose(cards[0].center, (400, 300), atol=1)
    assert math.dist(a, b) == pytest.approx(DIAGONAL * 180, rel=0.01)


def test_a_lone_index_stands_for_its_card_with_the_card_beside_it():
    a, _ = corners_of((400, 300), 0, 180)
    cards = join([read("7D", a, 0)], (128.6, 180.0))
    assert [c.card for c in cards] == [card("7D")]
    assert np.allclose(cards[0].center, (400, 300), atol=1)


def test_two_reads_that_point_the_same_way_are_two_cards():
    a, b = corners_of((400, 300), 0, 180)
    cards = join([read("7D", a, 0), read("7D", b, 0)], (128.6, 180.0))
    assert len(cards) == 2


def test_a_pair_settles_on_the_card_both_reads_make_likely():
    # One corner leans to 8H, the other is sure of 6H; 6H is likely under both.
    a, b = corners_of((400, 300), 10, 180)
    first = read("8H", a, 10, p=0.55, others=("6H",))
    second = read("6H", b, 190, p=0.9, others=("8H",))
    cards = join([first, second], (128.6, 180.0))
    assert len(cards) == 1 and cards[0].card == card("6H")


def test_two_sure_reads_that_contradict_each_other_are_two_cards_not_one():
    # A KS and a KC fanned side by side: the KS's top index and the KC's bottom one lie as one
    # card's pair, but each is read surely as its own card. Joined, they made one card of
    # whichever suit each thought least unlikely (a wrong card, surely), and lost both.
    a, b = corners_of((400, 300), 0, 180)
    spade = read("KS", a, 0, p=0.99, others=("KC",))
    club = read("KC", b, 180, p=0.99, others=("KS",))
    assert sorted(str(c.card) for c in join([spade, club])) == ["KC", "KS"]
    assert sorted(str(c.card) for c in join([spade, club], (128.6, 180.0))) == ["KC", "KS"]


def test_two_reads_of_one_card_unsure_of_its_suit_still_join():
    a, b = corners_of((400, 300), 0, 180)
    first = read("7S", a, 0, p=0.68, others=("7C",))
    second = read("7C", b, 180, p=0.6, others=("7S",))  # 7S 0.4: the two agree at 0.39
    cards = join([first, second], (128.6, 180.0))
    assert len(cards) == 1 and len(cards[0].index_centres) == 2


def faint(r: IndexRead, heat: float) -> IndexRead:
    return IndexRead(r.centre, r.height, r.width, r.up_deg, r.card, r.score * heat, heat, r.candidates)


def test_two_faint_reads_that_lie_and_read_as_one_card_s_corners_are_that_card():
    a, b = corners_of((400, 300), 0, 180)
    # Each read 0.9 sure of the JC: not all but certain (test_a_card_all_but_certain_stands_...).
    top, bottom = faint(read("JC", a, 0, p=0.9, others=("JS",)), 0.45), faint(read("JC", b, 180, p=0.9), 0.45)
    size = (128.6, 180.0)
    assert [c.card for c in join([top, bottom], size)] == [card("JC")]
    assert join([top], size) == []  # alone, a faint read is no card, not even an unknown one
    assert join([top, faint(read("JC", b, 180, p=0.9), 0.1)], size) == []
    assert join([top, bottom], size, limits=Thresholds(faint=0.5)) == []  # each read sure of itself, as before


def test_a_clear_read_of_an_index_surely_there_is_its_card_though_its_heat_is_low():
    # A QH in a phone photo: its index there at 0.59, read QH at 0.995; heat x probability
    # (0.59) is under the bar a card needs (0.6), yet nothing else is likely.
    a, _ = corners_of((400, 300), 0, 180)
    size = (128.6, 180.0)
    clear = faint(read("QH", a, 0, p=0.995, others=("KH",)), 0.59)
    assert [c.card for c in join([clear], size)] == [card("QH")]
    assert [c.card for c in join([clear], size, limits=Thresholds(certain=1.01))] == [None]
    unsure = faint(read("QH", a, 0, p=0.9, others=("KH",)), 0.59)
    assert [c.card for c in join([unsure], size)] == [None]  # 0.9 x 0.59: not sure enough


def test_a_card_all_but_certain_stands_where_the_detector_doubts_its_index():
    # A 7S in a webcam photo: the detector 0.42 sure of an index there, both readers sure of it and
    # of the 7S (0.99). A card so read stands from the least heat a read is read at (FAINT)...
    a, _ = corners_of((400, 300), 0, 180)
    size = (128.6, 180.0)
    assert [c.card for c in join([faint(read("7S", a, 0, p=0.99, others=("7C",)), 0.42)], size)] == [card("7S")]
    assert join([faint(read("7S", a, 0, p=0.99), 0.42)], size, limits=Thresholds(certain_present=0.5)) == []
    # ... but a faint read less sure of its card is no card, not even an unknown one, though the
    # referee's prior leaves it no other card (the readers alone must be certain),
    unsure = faint(read("7S", a, 0, p=0.9, others=("7C",)), 0.42)
    assert join([unsure], size) == [] and join([unsure], size, allowed={card("7S")}) == []
    # nor is a joker so read: its index is whatever a design prints, and the readers see jokers in pictures,
    assert join([faint(read("BJ", a, 0, p=0.99, others=("LJ",)), 0.42)], size) == []
    # and so is a pair too faint together (with pairs' corners taken down to 0.2): certain, or no card.
    b = corners_of((400, 300), 0, 180)[1]
    limits = Thresholds(faint=0.2)
    pair = [
        faint(read("7S", a, 0, p=0.99, others=("7C",)), 0.2),
        faint(read("7S", b, 180, p=0.99, others=("7C",)), 0.2),
    ]
    assert [c.card for c in join(pair, size, limits=limits)] == [card("7S")]  # 0.36 sure of an index there
    unsure = [
        faint(read("7S", a, 0, p=0.6, others=("7C",)), 0.2),
        faint(read("7S", b, 180, p=0.6, others=("7C",)), 0.2),
    ]
    assert join(unsure, size, limits=limits) == []


def test_a_near_tie_is_no_card_and_the_referee_s_prior_breaks_it():
    a, _ = corners_of((400, 300), 0, 180)
    unsure = read("9S", a, 0, p=0.55, others=("6S",))  # 9S 0.55, 6S 0.45
    assert join([unsure], (128.6, 180.0))[0].card is None
    assert join([unsure], (128.6, 180.0), allowed={card("6S"), card("AH")})[0].card == card("6S")
    assert join([unsure], (128.6, 180.0), allowed={card("9S")})[0].card == card("9S")
    assert join([unsure], (128.6, 180.0), allowed={card("AH")})[0].card is None


def test_the_prior_may_differ_from_place_to_place_as_a_seats_zone_holds_that_seats_cards():
    left, _ = corners_of((200, 300), 0, 180)
    right, _ = corners_of((600, 300), 0, 180)
    reads = [read("9S", at, 0, p=0.55, others=("6S",)) for at in (left, right)]

    def seat_of(centre):
        return {card("6S"), card("AH")} if centre[0] < 400 else {card("9S"), card("KD")}

    cards = sorted(join(reads, (128.6, 180.0), allowed=seat_of), key=lambda c: c.center[0])
    assert [c.card for c in cards] == [card("6S"), card("9S")]


def test_a_card_read_clearly_stays_itself_where_the_prior_does_not_expect_it():
    # The prior weighs near-ties; it does not overrule the camera (a card put down in the wrong
    # seat's zone is still that card).
    a, _ = corners_of((400, 300), 0, 180)
    clear = read("QH", a, 0, p=0.99, others=("QD",))
    assert join([clear], (128.6, 180.0), allowed={card("QD")})[0].card == card("QH")
    fair = read("QH", a, 0, p=0.9, others=("QD",))  # sure, but not beyond the prior: unknown, never QD
    assert join([fair], (128.6, 180.0), allowed={card("QD")})[0].card is None


def test_a_read_unsure_of_everything_is_no_card_whatever_the_prior():
    a, _ = corners_of((400, 300), 0, 180)
    vague = IndexRead(a, 24.0, 14.0, 0.0, card("5C"), 0.2, 0.97, ((card("5C"), 0.3), (card("5S"), 0.1)))
    assert join([vague], (128.6, 180.0))[0].card is None
    assert join([vague], (128.6, 180.0), allowed={card("5C")})[0].card is None  # 0.6 of the scale is elsewhere


def test_indices_too_far_apart_for_the_mat_s_card_size_are_two_cards():
    a, b = corners_of((400, 300), 0, 260)
    assert len(join([read("KC", a, 0), read("KC", b, 180)], (128.6, 180.0))) == 2


@pytest.mark.parametrize(("turn", "errors"), [(20, (25, -20)), (200, (-25, 30)), (95, (18, 18))])
def test_a_pair_s_outline_follows_where_its_indices_lie_not_their_rough_up_directions(turn, errors):
    # Each index's own up direction is off by tens of degrees (small indices); the outline is
    # placed by the line between the two, which crosses the card at a known angle.
    a, b = corners_of((400, 300), turn, 180)
    cards = join([read("QS", a, turn + errors[0]), read("QS", b, turn + 180 + errors[1])], (128.6, 180.0))
    assert len(cards) == 1
    up = np.subtract(cards[0].corners[0], cards[0].corners[3])  # the card's left side, bottom to top
    measured = math.degrees(math.atan2(up[0], -up[1])) % 360
    assert min(abs(measured - turn) % 360, 360 - abs(measured - turn) % 360) < 1.0, measured


def test_with_the_mat_s_card_size_a_pair_is_joined_though_its_up_directions_differ_by_60_degrees():
    a, b = corners_of((400, 300), 10, 180)
    reads = [read("3H", a, 10 - 30), read("3H", b, 190 + 30)]
    assert len(join(reads, (128.6, 180.0))) == 1
    assert len(join(reads)) == 2  # without it, the rough directions alone must agree


@pytest.mark.parametrize("card_size", [None, (128.6, 180.0)])
def test_a_court_picture_between_the_indices_does_not_take_the_place_of_the_card_s_other_index(card_size):
    # A queen's picture holds a large Q and a suit between the card's two indices; read as
    # another card, it lies as a pair with the top index, and nearer than the bottom one. In an
    # enrolment (any pair) it was joined to the top index, and the card's outline was a small
    # card's: the real bottom index was left over as a second card, and the queen never captured.
    top, bottom = corners_of((400, 300), 10, 180)
    picture_at = tuple(np.add(top, 0.6 * np.subtract(bottom, top)) + np.array((6.0, 0.0)))
    reads = [
        read("QC", top, 10, p=0.97, height=36.0, others=("QS",)),
        read("QH", picture_at, 190, p=0.7, height=36.0, others=("QD",)),
        read("QC", bottom, 190, p=0.9, height=36.0, others=("QS",)),
    ]
    cards = join(reads, card_size, any_pair=True)
    whole = [c for c in cards if len(c.index_centres) == 2]
    assert len(whole) == 1 and whole[0].card == card("QC")
    assert np.allclose(whole[0].center, (400, 300), atol=2)
