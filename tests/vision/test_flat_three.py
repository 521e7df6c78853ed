"""A flat-topped 3 (a bar, a diagonal, a bowl from a little over a third of the height down),
thin-stroked as aisleriot:anglo prints it: the generic model's drawn 3s span such forms, so its
index reads as a 3, surely, and not as the 5 it resembles (anglo's 3 read as 3 at 0.43-0.66 and
as 5 at 0.21-0.47 when the drawn 3s were all bold with a bowl at half height or lower)."""

from __future__ import annotations

import pytest

from tests.vision.benchmark_scenes import reader, recognised, warped
from vision.reader import _RANK_SURE

_1080P = (1920, 1080)


def corners_of(deck: str, index: int, card: str, size: tuple[int, int] = _1080P) -> list:
    upright = warped(deck, 11, size, index, card)
    return [reader().read_corner(upright, far) for far in (False, True)]


@pytest.mark.parametrize(("index", "card"), [(10, "3H"), (19, "3H")])
def test_anglos_flat_topped_3_reads_as_a_3_surely_in_both_corners(index, card):
    for corner in corners_of("aisleriot:anglo", index, card):
        assert (corner.rank, corner.suit) == ("3", "H")
        assert corner.probability >= _RANK_SURE, corner.ranks


def test_anglos_5_still_reads_as_a_5_surely():
    for corner in corners_of("aisleriot:anglo", 0, "5H"):
        assert (corner.rank, corner.suit) == ("5", "H")
        assert corner.probability >= _RANK_SURE, corner.ranks


def test_a_single_anglo_3_is_recognised_and_nothing_is_read_wrong():
    found, _ = recognised("aisleriot:anglo", 11, _1080P, 10)
    assert "3H" in {str(rec.card) for rec in found}, found
