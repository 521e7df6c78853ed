"""A pile's places (vision/scan.py, ``_read_pile``): a candidate that overlaps a card read before
but lies well off its outline is read as a card of its own (a fan's neighbour), not taken for a
second look at that card (which skipped it, or let its read dispute the other); and such a place
stands only when a second candidate there reads the same card. A place whose first read is short
of sure takes more second looks than one whose read is sure. Scenes of the benchmark."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.cards import Card
from tests.vision.benchmark_scenes import missed, recognised
from vision import scan


def test_a_fanned_card_under_a_place_read_from_an_outline_between_two_cards_is_read():
    # A fan of three: the 3C's first read came from an outline halfway towards the KH under it,
    # and every KH candidate overlapped it by more than half: they were skipped as its second looks.
    found, truth = recognised("project", 11, (1280, 720), 2)
    assert [t for t in truth if t.face_up and t.visible < 0.9]  # fanned
    assert missed(found, truth) == []


def test_a_sure_read_from_an_outline_well_off_a_place_needs_a_second_candidate():
    # An outline between a 10 and the 9 on it reads both corners as a 6 (the 9 seen turned) at
    # 0.96; it lies off the 10's place, and no other candidate there reads a 6.
    found, truth = recognised("kde:nicu-white", 3, (1920, 1080), 10)
    assert len([t for t in truth if t.face_up]) - len(missed(found, truth)) >= 3


def test_a_card_grown_from_a_corner_of_the_pile_is_a_candidate_whatever_its_rank():
    # Anglo's QD under another card: its card grown from the pile's corner lies 3-6 px off it, but
    # its far sides cross the others' pictures (few edges) and it ranked below the pile's cap.
    assert missed(*recognised("aisleriot:anglo", 11, (1920, 1080), 13)) == []


@pytest.mark.parametrize(
    ("deck", "seed", "size", "index", "card"),
    [
        ("project", 3, (1280, 720), 27, "TC"),
        ("project", 4, (1280, 720), 3, "KH"),
        ("project", 4, (1280, 720), 21, "LJ"),
        ("project", 11, (1280, 720), 19, "JS"),
        ("project", 5, (1280, 720), 18, "4S"),  # these two agreed only at the fifth or sixth look
        ("project", 5, (1280, 720), 26, "KS"),
    ],
)
def test_a_place_first_read_short_of_sure_takes_more_looks(deck, seed, size, index, card):
    # The place's first read (at most 0.65: a lone index a little short of clear) needs another
    # candidate to read the same card; the next two, a pixel or two off, read nothing, and the
    # one that agreed came later.
    assert missed(*recognised(deck, seed, size, index), [card]) == []


def test_the_places_card_in_the_other_suit_of_its_colour_is_no_card_of_its_own():
    # The project's QD under a 7H (seed 9, 720p, scene 4): two outlines 14 px off it read a QH
    # (one corner, 0.8), which stood beside the QD as a card of its own: a wrong card.
    assert missed(*recognised("project", 9, (1280, 720), 4), ["QD"]) == []


def test_a_suit_misread_is_one_rank_in_two_suits_of_a_colour():
    card = Card.from_str
    assert scan._suit_misread(card("QD"), card("QH")) and scan._suit_misread(card("5S"), card("5C"))
    assert not scan._suit_misread(card("QD"), card("QS"))  # another colour: another card
    assert not scan._suit_misread(card("QD"), card("KD")) and not scan._suit_misread(card("QD"), card("QD"))


def test_a_place_once_confirmed_takes_no_more_looks_than_a_sure_one():
    # Anglo's 5S (seed 1, 720p, scene 15): first read at 0.65, confirmed at 0.78 by the next
    # candidate; a fourth look read a JS at 0.65, which disputed the place and dropped the 5S.
    assert missed(*recognised("aisleriot:anglo", 1, (1280, 720), 15), ["5S"]) == []


def test_a_weak_suit_misread_does_not_dispute_a_confirmed_place():
    # The project's 3C (seed 1, 1080p, scene 18): read at 0.8 by two outlines, then as a 3S at
    # 0.65 by a third, 19 px off, which disputed the place and dropped the 3C.
    assert missed(*recognised("project", 1, (1920, 1080), 18), ["3C"]) == []


def test_only_a_weak_suit_misread_of_a_place_confirmed_by_a_lean_is_outweighed():
    card = Card.from_str
    corners = np.zeros((4, 2))
    place = scan._Place(scan.Recognition(card("3C"), 0.8, corners, (0.0, 0.0)), confirmed=True)
    weak = scan.Recognition(card("3S"), 0.65, corners, (0.0, 0.0))
    assert scan._outweighed(weak, place)
    assert not scan._outweighed(replace(weak, confidence=scan._SURE), place)  # sure: it disputes
    assert not scan._outweighed(replace(weak, card=card("4C")), place)  # another rank
    assert not scan._outweighed(replace(weak, card=card("3D")), place)  # another colour
    assert not scan._outweighed(weak, replace(place, confirmed=False))  # nothing to outweigh it


def test_any_weak_read_of_another_card_is_outweighed_where_two_outlines_read_the_place():
    card = Card.from_str
    corners = np.zeros((4, 2))
    place = scan._Place(scan.Recognition(card("3H"), 0.79, corners, (0.0, 0.0)))
    place.second_look(scan.Recognition(card("3H"), 0.76, corners, (0.0, 0.0)))
    assert place.seconded and place.confirmed
    weak = scan.Recognition(card("5H"), 0.65, corners, (0.0, 0.0))
    assert scan._outweighed(weak, place)
    assert not scan._outweighed(replace(weak, confidence=scan._SURE), place)  # sure: it disputes
    leaned = scan._Place(place.first)
    leaned.second_look(replace(weak, card=None, leaning=card("3H")))  # a lean confirms, no more
    assert leaned.confirmed and not leaned.seconded and not scan._outweighed(weak, leaned)


@pytest.mark.parametrize(
    ("deck", "seed", "size", "index", "card"),
    [
        ("aisleriot:anglo", 10, (1280, 720), 12, "8H"),  # read 0.65 and 0.79, then an LJ at 0.65
        ("aisleriot:anglo", 13, (1280, 720), 1, "3H"),  # read 0.79 and 0.76, then a 5H at 0.65
        ("project", 13, (1280, 720), 7, "2D"),  # read twice at 0.8, then the LJ beside it at 0.65
    ],
)
def test_a_place_two_outlines_read_is_not_disputed_by_one_weak_read(deck, seed, size, index, card):
    assert missed(*recognised(deck, seed, size, index), [card]) == []
