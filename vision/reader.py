"""Reading a warped card with no knowledge of its deck: the out-of-the-box reader.

The index is found, not assumed: in the top-left corner of the canonical card, the ink blobs
(connected components of the darkness) nearest the corner are the rank (with its neighbour on the
same line: the two digits of a 10), and the nearest blob under it is the suit. Each is classified
by the deck-independent glyph models of :mod:`vision.glyphs`; the ink's colour (red or black)
restricts the suit to two. The far corner, turned upright, must agree on rank and colour; the
suit is decided by the evidence of both indices and the body's top pip added up (log-odds), since
a blurred club looks like a spade. The body must not look like another rank (a single large pip,
a picture, or a count of pips: A/4, 6/8/9). A number card whose near index is clear and whose
body bears it out twice (its exact pip count, a top pip firmly of its suit) is read without the
far index. Whatever is weak or contradictory is ``card=None``: a wrong card is a false
accusation at the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np

from engine.cards import BIG_JOKER, LITTLE_JOKER, Card, Suit
from vision.classify import CardRead, reading_of_blobs
from vision.detect import CANONICAL_H, CANONICAL_PAD, CANONICAL_W
from vision.glyphs import RANKS, STAR, GlyphMatch, GlyphModel, glyph_model, glyph_vector

Box = tuple[int, int, int, int]  # x0, y0, x1, y1
# A corner's index: the rank's and the suit's boxes, the ink's component labels, the rank's and
# the suit's labels among them, the paper-relative darkness and the paper's colour.
_Index = tuple[Box, Box, np.ndarray, tuple[int, ...], int, np.ndarray, np.ndarray]

# Where an index can lie: this share of the card's width and height from a corner.
_REGION = (0.36, 0.56)
_MIN_CONTRAST = 70  # darkness above the paper's that the darkest ink must reach
_MIN_GLYPH_H = 7  # canonical pixels: smaller blobs are specks or a corner of the table
_SUIT_SHARE = 0.3  # a suit's width and height are at least this share of its rank's height
# Glyph thresholds: correlation with the label's nearest synthetic examples (is it a glyph like
# these at all), and the softmax's probability for the label (is it this rank rather than another).
_RANK_SCORE, _RANK_SURE = 0.6, 0.9
# Below _RANK_SURE, down to this, a rank is tentative: it stands only when both corners read it
# and the body shows exactly its pips (or its picture) and not what its rival would show.
_RANK_MAYBE = 0.4
_SUIT_SCORE = 0.7
# A "rank" as big as its suit (either way, each side) and this like it in shape is a pip.
_PIP_SIZE, _PIP_ALIKE = 1.25, 0.7
# A rank wider than this (of its height) is no character (anglo's Q, the widest, is 1.0-1.1).
_WIDEST_RANK = 1.15
# The suit's summed log-odds (both indices and a pip) must reach these. Blurred, a club's three
# lobes merge into a spade's outline: a black suit must be surer. The two indices are one design
# seen twice, not independent witnesses: hence sums well above one confident glance.
_RED_ODDS, _BLACK_ODDS = 4.5, 6.5
_PIP_SURE = 3.0  # a pip's log-odds (p 0.95) for its suit, to stand as a witness on its own
SUIT_VETO = 2.0  # one witness this firmly for the other suit (p 0.88) vetoes
_LONE_SCORE = 0.75  # a card read from one corner only must match this well
_LONE_SCORE_COUNTED = 0.7  # ... or this well, when its body shows exactly its pips (see read)
_SURE_ALONE = 0.9  # a lone corner's confidence (rank >= 0.76 close, 0.96 sure) that needs no other witness
ACCEPT = 0.5
_SQUARE_3 = np.ones((3, 3), np.uint8)
_SQUARE_9 = np.ones((9, 9), np.uint8)
_BODY_INK = 60  # as vision.classify judges a body's ink (darkness over 2 x this)
_BODY_INK_DARK = 160  # the second look at a body that ran together into one blob
_RED, _BLACK = 0.5, 0.2  # redness over darkness of the ink: above is red, below is black


@dataclass(frozen=True, slots=True)
class CornerRead:
    """One corner's index: labels, match scores, colour, and how far right the index reaches."""

    rank: str
    suit: str
    score: float  # the weaker of the rank's and the suit's match scores
    confidence: float
    red: bool | None
    right: int  # the index's right edge, canonical pixels (the body lies beyond)
    suit_odds: float = 0.0  # log-odds of the suit against the other suit of its colour
    rival: str = ""  # when the rank is tentative, the rank it was nearly read as
    inset: int = 0  # canonical pixels between the index and the card's edges (the nearer of the two)
    probability: float = 0.0  # the rank model's belief in ``rank``
    ranks: tuple[tuple[str, float], ...] = ()  # the rank model's likeliest labels, most likely first


_NOTHING = CornerRead("", "", 0.0, 0.0, None, 0)


class GenericReader:
    """Reads cards of any ordinary French-suited deck (A K Q J 10 9 ... 2 indices)."""

    def __init__(self, models: dict[str, GlyphModel] | None = None) -> None:
        self.models = models if models is not None else glyph_model()

    def read(self, card: np.ndarray, body_visible: bool = True) -> CardRead:
        """Read a canonical upright card (BGR, as :func:`vision.detect.warp_card` gives it)."""
        top = self.read_corner(card)
        glance = self._at_a_glance(card, top) if body_visible else None
        if glance is not None:
            return glance
        bottom = self.read_corner(card, far=True)
        if top.rank and bottom.rank and top.rank != bottom.rank and top.red == bottom.red:
            # One corner unsure between the other's rank and its own: the other's, tentatively
            # (the body must then tell the two apart). The less sure corner yields first.
            if top.probability < bottom.probability and top.rival == bottom.rank:
                top = replace(top, rank=bottom.rank, rival=top.rank)
            elif bottom.rival == top.rank:
                bottom = replace(bottom, rank=top.rank, rival=bottom.rank)
            elif top.rival == bottom.rank:
                top = replace(top, rank=bottom.rank, rival=top.rank)
        corners = [c for c in (top, bottom) if c.rank]
        if not corners:
            return self._joker_by_word(card, body_visible)
        outvoted = False  # the other corner read another card, unsurely (see _outvoting)
        if len({(c.rank, c.red) for c in corners}) > 1:
            sure = None if body_visible else _outvoting(top, bottom)
            if sure is None:
                return CardRead(None, 0.0, f"corners disagree: {top.rank}{top.suit} / {bottom.rank}{bottom.suit}")
            corners, outvoted = [sure], True
        rivals = {c.rival for c in corners if c.rival}
        # The suit the indices lean to together (they may split a club and a spade when blurred).
        first = max(corners, key=lambda c: sum(c.suit_odds if o.suit == c.suit else -o.suit_odds for o in corners))
        if len(corners) == 2:
            confidence = 1 - (1 - top.confidence) * (1 - bottom.confidence)
        elif first.score < (_LONE_SCORE_COUNTED if body_visible else _LESS_CLOSE[1]):
            # Below the least any lone index may match (the rest is judged below, once the body
            # and the rivals are known).
            return CardRead(None, 0.0, f"one corner only, and not a close match: {first.rank}{first.suit}")
        else:
            confidence = 0.8 * first.confidence
        identity = _identity(first)
        if identity is None:
            return CardRead(None, 0.0, f"not a card: {first.rank}{first.suit}")
        number = not identity.is_joker and str(identity)[0] not in "JQK"
        pip: float | None = None  # the top pip's log-odds for the index's suit
        seen = ""  # what the body shows, when it is visible
        if body_visible:
            seen, pip = self._body(card, max(c.right for c in corners), identity)
            if _body_contradicts(identity, seen):
                chosen = self._body_chooses(card, corners, identity, seen, pip)
                if chosen is None:
                    return CardRead(None, 0.0, f"index says {identity} but the body shows {seen}")
                rivals = {_rank_label(identity)}
                identity = chosen
        # A number card whose body shows exactly its pips, none as its rival would, with a top
        # pip firmly of its suit: two witnesses besides the index, enough for a lone index that
        # is tentative or a little less close (anglo's flat-topped 3, whose far corner blurs).
        counted = (
            number
            and seen == expected_body(identity)
            and not any(_shows_rank(seen, r) for r in rivals)
            and pip is not None
            and pip >= _PIP_SURE
        )
        # A lone index with its body hidden a little short of clear, where an index lies, stands
        # only as sure as one against the outline's edge: in a pile, another outline must read
        # the same card.
        nearly = (
            len(corners) == 1
            and not body_visible
            and not _clear_alone(first)
            and (_clear_alone(first, _NEARLY) or _less_close_court(first))
            and _where_an_index_lies(first)
        )
        if len(corners) == 1 and first.score < _LONE_SCORE and not counted and not nearly:
            lean = identity if not body_visible and _nearly_close(first) else None
            glimpse = identity if not body_visible and _glimpsed(first) else None
            return CardRead(
                None, 0.0, f"one corner only, and not a close match: {identity}", leaning=lean, glimpse=glimpse
            )

        # With the body hidden (a card under others in a fan), the column of pips beside an index
        # is in view, and its count tells a 5 from a 6, or a 7 from a 3 or a joker. Looked at only
        # where the read would fail without it (most pile outlines read nothing).
        @cache
        def by_column() -> bool:
            return number and not body_visible and self._column_bears_out(card, corners, bottom, identity, rivals)

        # With the body hidden, both indices leaning clearly to the rank and one of them sure of
        # it: the other's doubt is outweighed (a corner that took the other's rank does not lean
        # to it; an index against the outline's edge may be cut off, a 3 read as a 5 at 0.99).
        outweighed = (
            not body_visible
            and len(corners) == 2
            and any(not c.rival for c in corners)
            and all(c.ranks and c.ranks[0][0] == c.rank and c.probability >= _OUTWEIGHED for c in corners)
            and all(c.inset >= _LONE_INSET for c in corners)
        )
        column_needed = False  # the column of pips let the read stand (see the end)
        if rivals and not outweighed:
            # A tentative rank: both corners read it (or the body counts it), and the body tells
            # it from its rival.
            if (len(corners) < 2 and not counted) or not body_visible:
                if not by_column():
                    return CardRead(None, 0.0, f"rank unsure, one corner only: {identity}", leaning=identity)
                column_needed = True
            if body_visible and (not _body_fits(identity, seen) or any(_shows_rank(seen, r) for r in rivals)):
                return CardRead(None, 0.0, f"rank unsure ({identity} or {'/'.join(sorted(rivals))}), body {seen}")
        # A lone index (the other one covered) needs the body as a second witness: an outline
        # grown across two cards has one card's pips in its far corner, which can pass for an
        # index. The witness: for a number card the top pip's suit or, for a very close and
        # clear read, a body that shows exactly this rank; for a court card a body that does
        # not contradict it (a picture is often too pale to be seen as one).
        if len(corners) == 1:
            if not body_visible and not _clear_alone(first) and not nearly:
                if not by_column():
                    glimpse = identity if _glimpsed(first) else None
                    return CardRead(None, 0.0, f"one corner only, and the body hidden: {identity}", glimpse=glimpse)
                column_needed = True
            # With the body hidden, a clear lone index is its own witness (checked just above).
            sure = not body_visible or (first.confidence >= _SURE_ALONE and seen == expected_body(identity))
            if number and pip is None and not sure:
                return CardRead(None, 0.0, f"one corner only, and nothing else confirms {identity}")
        lone_hidden = len(corners) == 1 and not body_visible  # a card under others read from one index
        if lone_hidden and first.inset > _NEARLY_INSET:
            # However clear, a lone index this deep inside the outline is another card's, seen
            # through an outline hung from the wrong glyphs: two outlines hung from anglo's 3S's
            # spade pips, under the KD's edge, read an AS at 0.93 (inset 16-19).
            return CardRead(None, 0.0, f"one corner only, deep inside the outline: {identity}")
        suit_leans = False  # the suit short of sure, but leaning to it (see _suit_leaning)
        if not identity.is_joker:
            # The suit: the evidence of both indices and the top pip added up (log-odds); any one
            # of them firmly for the other suit of the colour vetoes.
            evidence = [c.suit_odds if c.suit == first.suit else -c.suit_odds for c in corners]
            # An ace's one pip is often ornate (a spade's above all): it may confirm the indices'
            # suit, not contradict them.
            ornate = str(identity)[0] == "A" and pip is not None and pip < 0
            evidence += [pip] if pip is not None and not ornate else []
            needed = _LONE_ODDS if lone_hidden else (_RED_ODDS, _BLACK_ODDS)
            if abs(sum(evidence)) < (needed[0] if first.red else needed[1]):
                # Short of evidence: a number card under others still shows the strip along its
                # index (its first pips); a court card's picture shows a suit symbol beside the
                # figure in most decks.
                right = max(c.right for c in corners)
                more = None
                if number and not body_visible:
                    more = self._side_pip(card, right, identity)
                elif not number:
                    more = self._picture_suit(card, right, identity, body_visible)
                evidence += [more] if more is not None else []
            if sum(evidence) < 0:
                # Together they lean to the colour's other suit (the indices blurred, the pips clear).
                identity = Card.from_str(str(identity)[0] + _OTHER_SUIT[str(identity)[1]])
                evidence = [-e for e in evidence]
            if min(evidence) < -SUIT_VETO:
                return CardRead(None, 0.0, f"the suit of {identity} is contradicted")
            if sum(evidence) < (needed[0] if first.red else needed[1]):
                if body_visible or not _suit_leaning(corners, sum(evidence)):
                    return CardRead(None, 0.0, f"unsure of the suit: {identity}", leaning=identity)
                suit_leans = True
        # A lone index against the outline's edge, a little short of clear, only leaning to its
        # suit, or outvoting the other corner, and a read borne out only by a column of pips, stand
        # no surer than this: in a pile, another outline must read the same card.
        if nearly:
            # A little short of clear stands exactly this sure, however close: a less close
            # queen's read (0.8 of 0.6) would fall short of ACCEPT, and another outline must
            # read the same card anyway.
            confidence = _AGAINST_THE_EDGE
        elif column_needed or suit_leans or (lone_hidden and (first.inset < _LONE_INSET or outvoted)):
            confidence = min(confidence, _AGAINST_THE_EDGE)
        if confidence < ACCEPT:
            return CardRead(None, confidence, f"unsure: {identity}", leaning=identity)
        return CardRead(identity, float(confidence), "")

    def _column_bears_out(
        self, card: np.ndarray, corners: list[CornerRead], bottom: CornerRead, identity: Card, rivals: set[str]
    ) -> bool:
        """Whether the column of pips beside an index (either corner's, where plain to see:
        :func:`_pip_column`) bears out this number card: every column seen shows its count and
        not its rivals', and every index leans to it (``_COLUMN_LEANING``) with the ranks of that
        count besides it implausible (a count is three ranks': the index must tell them apart)."""
        label = _rank_label(identity)
        counts = [n for c in corners if (n := _pip_column(card, c, far=c is bottom)) is not None]
        if not counts or not all(_column_fits(identity, rivals, n) for n in counts):
            return False
        for c in corners:
            likely = dict(c.ranks)
            same_count = sum(p for r, p in likely.items() if r != label and _COLUMN_PIPS.get(r, set()) & set(counts))
            if likely.get(label, 0.0) < _COLUMN_LEANING or same_count >= _PLAUSIBLE:
                return False
        return True

    def _body_chooses(
        self, card: np.ndarray, corners: list[CornerRead], identity: Card, seen: str, pip: float | None
    ) -> Card | None:
        """The rank the body shows, when the indices are unsure between it and the rank they
        lean to: both indices found, neither sure of its rank (probability under ``_RANK_SURE``),
        the body's rank plausible in both (``_PLAUSIBLE``), both number cards whose pip counts
        differ by two or more (a pip lost to glare or merged with its neighbour makes the count
        one less), the body's pips alike in size and laid out as that count's pips are, and its
        top pip firmly of the suit. Anglo's flat-topped 3 reads as a 5 at 0.4-0.6 while its
        body shows three pips. None when any of this fails."""
        letter = _rank_label(identity)
        if len(corners) != 2 or letter not in _NUMBERS or not seen.isdigit() or pip is None or pip < _PIP_SURE:
            return None
        body = str(int(seen))
        if body not in _NUMBERS or abs(_NUMBERS[body] - _NUMBERS[letter]) < 2:
            return None
        for c in corners:
            if c.probability >= _RANK_SURE or dict(c.ranks).get(body, 0.0) < _PLAUSIBLE:
                return None
        if _plain_count(_body_blobs(card, max(c.right for c in corners))) != int(body):
            return None
        return Card.from_str(("T" if body == "10" else body) + str(identity)[1])

    def _joker_by_word(self, card: np.ndarray, body_visible: bool) -> CardRead:
        """A card whose corners show no rank and suit may be a joker whose index is the word
        JOKER set down the edge, letter under letter or turned on its side: a column of four or
        more letter-sized blobs in each corner, in one colour (red: the big joker, black: the
        little one). Both corners must show it, or one corner and a picture in the body (or one
        large blob, as a pale picture may be seen: nicu-white's jester, :func:`_body_fits`). With
        the body hidden (a joker under others in a fan shows one corner), one corner is read no
        surer than an index against the outline's edge: in a pile, another outline must read it
        too (a word seen through a wrong outline is seldom seen through the next as well)."""
        near = _corner_patch(card, False)
        first = _word_column(near)
        if not body_visible and (first is None or _in_colour(near) > _PICTURE_COLOUR):
            # A joker under others: its near corner must show the word, on paper (a court
            # picture's column of beads is no word: kde's JS, read as a big joker).
            return CardRead(None, 0.0, "no readable index")
        columns = [first, _word_column(_corner_patch(card, True))]
        seen = [red for red in columns if red is not None]
        if not seen or len(set(seen)) > 1:
            return CardRead(None, 0.0, "no readable index")
        joker = Card(BIG_JOKER if seen[0] else LITTLE_JOKER)
        if len(seen) == 2:
            return CardRead(joker, 0.9, "")
        if body_visible and _body_fits(joker, self._body(card, CANONICAL_PAD + CANONICAL_W // 5, joker)[0]):
            return CardRead(joker, 0.8, "")
        if not body_visible:
            return CardRead(joker, _AGAINST_THE_EDGE, "")
        return CardRead(None, 0.0, f"one corner only, and nothing else confirms {joker}")

    def _at_a_glance(self, card: np.ndarray, top: CornerRead) -> CardRead | None:
        """A number card read from its near index alone, when the body bears it out twice over:
        exactly this many pips, and a top pip firmly of this suit. Most cards are number cards,
        and this spares reading the far index; anything less goes the long way (None)."""
        if not top.rank or top.rival or top.confidence < _SURE_ALONE:
            return None
        identity = _identity(top)
        if identity is None or identity.is_joker or str(identity)[0] in "AJQK":
            return None
        seen, pip = self._body(card, top.right, identity)
        if seen != expected_body(identity) or pip is None or pip < _PIP_SURE:
            return None
        if top.suit_odds + pip < (_RED_ODDS if top.red else _BLACK_ODDS):
            return None
        return CardRead(identity, top.confidence, "")

    def _body(self, card: np.ndarray, index_right: int, identity: Card) -> tuple[str, float | None]:
        """What the body shows (see :func:`vision.classify.reading_of_blobs`) and, for a number
        card, its top pip's log-odds for the card's suit."""
        x0, y0, x1, y1 = box = _body_box(index_right)
        body, labels, stats = _ink_at_half_size(card, box)
        n = len(stats)
        seen = reading_of_blobs(stats[1:n], body.shape)
        number = not identity.is_joker and str(identity)[0] not in "JQK"
        if seen == "picture" and number:
            # Blurred, close pips (a 9's middle one) run together into one large blob: at darker
            # ink only, they stand apart again; a picture does not then show a plain count.
            n2, labels2, stats2, _ = cv2.connectedComponentsWithStats((body > _BODY_INK_DARK).astype(np.uint8))
            second = reading_of_blobs(stats2[1:n2], body.shape)
            if second.isdigit():
                seen, labels, stats = second, labels2, stats2
        return seen, self._pip_odds(card[y0:y1, x0:x1], body, labels, stats, identity) if number else None

    def _side_pip(self, card: np.ndarray, index_right: int, identity: Card) -> float | None:
        """The log-odds for ``identity``'s suit of the top pip in the strip beside the index
        (a number card's first column of pips, in view when others lie across the card's
        middle), or None when none is seen there."""
        p = CANONICAL_PAD
        x0, y0 = min(index_right + 2, p + CANONICAL_W // 3), p + round(0.05 * CANONICAL_H)
        x1, y1 = p + round(_SIDE_STRIP * CANONICAL_W), p + round(0.6 * CANONICAL_H)
        if x1 - x0 < 8:
            return None
        body, labels, stats = _ink_at_half_size(card, (x0, y0, x1, y1))
        return self._pip_odds(card[y0:y1, x0:x1], body, labels, stats, identity)

    def _picture_suit(self, card: np.ndarray, index_right: int, identity: Card, body_visible: bool) -> float | None:
        """The log-odds for ``identity``'s suit (a court card) of the symbol its picture shows in
        its upper half, beside the index column (with the body hidden, in the strip along it):
        the pip-sized, solid blob that best matches a suit of the ink's colour, if one matches
        at all. Measured on the scenes' court cards: found on 118 of 176 (none on nicu-white's),
        and never for the other suit."""
        x0, y0, x1, _ = _body_box(index_right)
        p = CANONICAL_PAD
        x1 = x1 if body_visible else p + round(_SIDE_STRIP * CANONICAL_W)
        y1 = p + round(0.5 * CANONICAL_H)
        if x1 - x0 < 8:
            return None
        dark = _darkness(card[y0:y1, x0:x1])
        suit = str(identity)[1]
        black = suit in "SC" and "black" in self.models
        pair = frozenset({"H", "D"} if suit in "HD" else {"S", "C"})
        best: GlyphMatch | None = None
        for level in (2 * _BODY_INK, _BODY_INK_DARK):
            n, labels, stats, _ = cv2.connectedComponentsWithStats((dark > level).astype(np.uint8))
            for i in range(1, n):
                x, y, w, h, area = (int(v) for v in stats[i])
                if not (_SYMBOL_H[0] * CANONICAL_H <= h <= _SYMBOL_H[1] * CANONICAL_H and 0.6 <= w / h <= 1.4):
                    continue
                if area < 0.35 * w * h:
                    continue  # a frame's corner or a stroke of the drawing, not a solid symbol
                ink = _glyph(dark, labels, (x, y, x + w, y + h), (i,))
                match = self.models["black"].match(ink) if black else self.models["suit"].match(ink, pair)
                if match.score >= _SUIT_SCORE and (best is None or match.score > best.score):
                    best = match
        return None if best is None else _log_odds(best.distribution[suit])

    def body_evidence(self, card: np.ndarray, identity: Card) -> tuple[str, float | None]:
        """What the body shows (see :func:`vision.classify.reading_of_blobs`) and, for a number
        card, its pips' log-odds for ``identity``'s suit; the index column judged from the near
        corner."""
        top = next(_index_glyphs(_corner_patch(card, False)), None)
        right = CANONICAL_PAD + 1 + max(top[0][2], top[1][2]) if top else CANONICAL_PAD + CANONICAL_W // 5
        return self._body(card, right, identity)

    def suit_witnesses(self, card: np.ndarray, identity: Card, body_visible: bool = True) -> tuple[list[float], bool]:
        """This reader's own evidence for ``identity``'s suit against the other suit of its
        colour, witness by witness: the log-odds of each index found and (with the body in view)
        of the top pip (negative: for the other suit); and whether a pip was seen. For judging
        a second reader's read: a club or a spade blurs alike in a deck's own templates too."""
        suit = str(identity)[1]
        corners = [c for c in (self.read_corner(card), self.read_corner(card, far=True)) if c.suit]
        witnesses = [c.suit_odds if c.suit == suit else -c.suit_odds for c in corners]
        pip = self.body_evidence(card, identity)[1] if body_visible else None
        return witnesses + ([pip] if pip is not None else []), pip is not None

    def read_corner(self, card: np.ndarray, far: bool = False) -> CornerRead:
        """The top-left index of a canonical card (``far``: the bottom-right one, turned
        upright): rank, suit and colour, or ``_NOTHING``."""
        for patch, glyphs, shift in _index_candidates(card, far):
            corner = self._read_index(patch, glyphs, shift)
            if corner.rank:
                return corner
        return _NOTHING

    def _read_index(self, patch: np.ndarray, glyphs: _Index, shift: int) -> CornerRead:
        """One way of cutting a corner's ink into a rank and a suit, read (or ``_NOTHING``)."""
        rank_box, suit_box, labels, rank_ids, suit_id, dark, paper = glyphs
        suit_ink = _glyph(dark, labels, suit_box, (suit_id,))
        both = (min(rank_box[0], suit_box[0]), rank_box[1], max(rank_box[2], suit_box[2]), suit_box[3])
        red = _colour(patch, labels, (*rank_ids, suit_id), paper, both)
        if red is None:
            return _NOTHING
        rank = self._rank(dark, labels, rank_box, rank_ids)
        if len(rank_ids) == 1:
            rank = _no_ten_in_one_blob(rank)
        suit = self.models["suit"].match(suit_ink, frozenset({"H", "D", STAR} if red else {"S", "C", STAR}))
        if rank.label in ("J", "JK"):
            # A joker's index: "JK" over a star, or "JOKER" set downwards (J over O).
            letter = self.models["rank"].match(suit_ink, frozenset({"O"}))
            if letter.score > suit.score:
                joker = _corner(GlyphMatch("JK", rank.score, rank.probability), letter, red, rank_box, suit_box)
                return replace(joker, right=joker.right - shift) if joker.rank else joker
        if rank.label == "O" or (suit.label == STAR) != (rank.label == "JK"):
            return _NOTHING  # half a joker's index is no card
        if rank.label == "JK":
            joker = _corner(rank, suit, red, rank_box, suit_box)
            return replace(joker, right=joker.right - shift) if joker.rank else joker
        pair = {k: v for k, v in suit.distribution.items() if k != STAR}
        odds = _log_odds(pair[suit.label] / max(sum(pair.values()), 1e-9))
        if not red and "black" in self.models:
            # Club or spade: the model of that pair alone decides, and says how surely.
            black = self.models["black"].match(suit_ink).distribution
            label = max(black, key=black.__getitem__)
            suit, odds = replace(suit, label=label), _log_odds(black[label])
        corner = _corner(rank, suit, red, rank_box, suit_box)
        if not corner.rank:
            return corner
        if _too_wide(rank_box, rank.label) or _rank_is_a_pip(dark, labels, rank_box, rank_ids, suit_box, suit_ink):
            return _NOTHING
        inset = min(rank_box[0], rank_box[1], suit_box[0]) - shift
        return replace(corner, suit_odds=odds, right=corner.right - shift, inset=inset)

    def _pip_odds(
        self, full: np.ndarray, body: np.ndarray, labels: np.ndarray, stats: np.ndarray, card: Card
    ) -> float | None:
        """The log-odds for ``card``'s suit against the other of its colour of the body's top pip
        (with ``_PIPS`` 2, averaged with its bottom one's, turned upright), if it looks like a
        suit at all (a pip is several times the size of the index's suit); None when none does,
        or when the two contradict each other. Found at half size, judged at full size (``full``, the body's
        pixels): blurred at half size, a club's lobes merge into a spade's outline."""
        big = [i for i in range(1, len(stats)) if stats[i, cv2.CC_STAT_AREA] >= 0.003 * body.size]
        # The upper half's pips (and an ace's, a 3's, a 5's middle one) are upright; the others turned.
        middle = [stats[i, cv2.CC_STAT_TOP] + stats[i, cv2.CC_STAT_HEIGHT] / 2 for i in range(len(stats))]
        upright = [i for i in big if middle[i] < 0.55 * len(body)]
        if not upright:
            return None
        pips = [(min(upright, key=lambda i: stats[i, cv2.CC_STAT_TOP]), False)]
        turned = [i for i in big if middle[i] > 0.6 * len(body)]
        if turned and _PIPS > 1:
            pips.append((max(turned, key=lambda i: middle[i]), True))
        suit = str(card)[1]
        pair = frozenset({"H", "D"} if suit in "HD" else {"S", "C"})
        odds = []
        for i, flip in pips:
            x, y, w, h = (int(v) for v in stats[i, :4])
            crop = _darkness(full[max(0, 2 * y - 1) : 2 * (y + h) + 1, max(0, 2 * x - 1) : 2 * (x + w) + 1])
            if flip:
                crop = cv2.flip(crop, -1)
            ink = (crop > 2 * _BODY_INK).astype(np.uint8)
            n, parts, part_stats, _ = cv2.connectedComponentsWithStats(ink)
            if n < 2:
                continue
            biggest = 1 + int(np.argmax(part_stats[1:, cv2.CC_STAT_AREA]))
            px, py, pw, ph = (int(v) for v in part_stats[biggest, :4])
            ink = _glyph(crop, parts, (px, py, px + pw, py + ph), (biggest,))
            # A club or a spade: the pair's own model, whose examples also say whether it is a suit.
            black = suit in "SC" and "black" in self.models
            pip = self.models["black"].match(ink) if black else self.models["suit"].match(ink, pair)
            if pip.score >= _SUIT_SCORE:
                odds.append(_log_odds(pip.distribution[suit]))
        if not odds or (len(odds) == 2 and min(odds) < -SUIT_VETO < SUIT_VETO < max(odds)):
            return None
        return sum(odds) / len(odds)  # one design seen twice: one witness, steadier

    def _rank(self, dark: np.ndarray, labels: np.ndarray, box: Box, ids: tuple[int, ...]) -> GlyphMatch:
        """The rank glyph's label. Two blobs side by side are most often a 10 (typefaces draw
        its 1 in many ways, a bar, a flag, a serif): a thin upright bar and a round 0 read as
        10 on their own, as closely as the 0 matches or the pair as one glyph matches a 10,
        whichever is closer (a 0 narrower than any O); otherwise the pair is read as one glyph."""
        whole = self.models["rank"].match(_glyph(dark, labels, box, ids))
        if len(ids) != 2:
            return whole
        left, right = sorted(ids, key=lambda i: int(np.nonzero(labels == i)[1].min()))
        ys, xs = np.nonzero(labels == left)
        thin = (xs.max() - xs.min() + 1) < 0.6 * (ys.max() - ys.min() + 1)
        zero = self.models["rank"].match(_glyph(dark, labels, _box_of(labels, right), (right,)), frozenset({"O"}))
        if thin and zero.score >= _RANK_SCORE:
            return GlyphMatch("10", max(zero.score, whole.score if whole.label == "10" else 0.0), 1.0)
        return whole


def _no_ten_in_one_blob(rank: GlyphMatch) -> GlyphMatch:
    """A rank glyph of one blob, read as something else than a 10 first, with the 10 taken out
    of its likely labels: a 10 is two characters, and as the runner-up it left a K tentative
    (kde's serif K at 720p, its stem joined to its arms only thinly: 10 at 5-25 %), which under
    others is no read at all."""
    if rank.label == "10" or "10" not in rank.distribution:
        return rank
    rest = {label: p for label, p in rank.distribution.items() if label != "10"}
    total = max(sum(rest.values()), 1e-9)
    rest = {label: p / total for label, p in rest.items()}
    return replace(rank, probability=rest[rank.label], distribution=rest)


def _corner(rank: GlyphMatch, suit: GlyphMatch, red: bool, a: Box, b: Box) -> CornerRead:
    """A corner's read with its confidence: each glyph close to its label's examples, and the
    label clearly preferred over the others."""
    if rank.score < _RANK_SCORE or suit.score < _SUIT_SCORE:
        return _NOTHING
    rival = ""
    if rank.probability < _RANK_SURE:
        # The O of a joker's word is no rank: a Q unsure against it is unsure against no card.
        others = {k: v for k, v in rank.distribution.items() if k not in (rank.label, "O")}
        if rank.probability < _RANK_MAYBE or not others:
            return _NOTHING
        rival = max(others, key=others.__getitem__)  # the body must tell the two apart
    closeness = min(rank.score - _RANK_SCORE, suit.score - _SUIT_SCORE) / 0.2
    sureness = (max(rank.probability, _RANK_SURE) - 0.8) / 0.2
    confidence = float(np.clip(0.5 + 0.5 * min(closeness, sureness), 0, 1))
    right = CANONICAL_PAD + 1 + max(a[2], b[2])
    suit_label = STAR if rank.label == "JK" else suit.label
    ranks = tuple(sorted(rank.distribution.items(), key=lambda kv: -kv[1])[:_LIKELIEST])
    return CornerRead(
        rank.label,
        suit_label,
        min(rank.score, suit.score),
        confidence,
        red,
        right,
        rival=rival,
        probability=rank.probability,
        ranks=ranks,
    )


# A lone index with its body hidden (a card under others) stands only this sure and close.
_LONE_HIDDEN = (0.9, 0.78)
# ... or, a little short of that, this sure and close, when another outline reads the same card.
# ... and where an index lies (not against the outline's edge, not deep inside: a neighbour's).
_NEARLY = (0.85, 0.75)
_NEARLY_INSET = 14
# ... and one only this close, as sure and where an index lies, leans to its card (a weak witness,
# ``CardRead.leaning``): anglo's and kde:standard's 2s at 1080p match 0.72-0.75 at a rank
# probability of 0.91-0.98 through outlines a few pixels apart, and only one in four or five
# reached 0.75. Reads further from a close match are no witness (anglo's AS seen as a KS).
_NEARLY_LEANING = 0.72
# ... and one only this close, sure of its rank but not of its card, glimpsed it: a pile's outline
# that glimpsed a card is read again grown (vision.scan). kde:standard's courts at 720p: their
# index lies against the outline split out of the pile (inset 0-1) and matches 0.72-0.84, sure
# of its letter at 0.91-0.99, but not of the card (a J against a 4 at 0.04-0.06).
_GLIMPSE = 0.7
# ... or, for a queen, a king or a joker's "JK", this sure of its rank (and no rival) but only this
# close: a Q in a typeface unlike the models' (anglo's at 720p match 0.64-0.73), the project's JK
# at 720p (0.73-0.75). Not a J or an A: a 10 cut off by a wrong outline leaves its 1 or its 0
# (anglo's 10D read a J at 0.90, 0.72 close).
_LESS_CLOSE = (0.9, 0.63)
_LONE_ODDS = (3.0, 4.0)  # and its suit's log-odds (red, black) at least these, by itself
# ... or, for an index this close a match, its suit's log-odds at least these (red, black), when
# another outline reads the same card: the project's club or spade at 720p is 6-7 camera pixels
# tall, a cross or a drop, and one in three of them leans to its suit at under 4. Not for a less
# close index: an outline across anglo's AC read its A and the card's edge as a K (0.76 close),
# its club as a spade at 2.1-2.3, from two outlines. Both indices of a card under others, each
# this close a match, need together only what one index needs by itself (``_LONE_ODDS``), on
# the same terms: the project's QS and 5C atop a fan at 720p lean to their suit at 4-6.
_LEANING = 0.85
_LEANING_ODDS = (1.5, 2.0)
# A lone index with the body hidden that lies against the outline's edge may be a fragment of a
# neighbour's pips cut off by a wrong outline (read 9S, 5H for a 3H): its read is kept only this
# sure, which in a pile needs another outline to read the same card (vision.scan._SURE is 0.7).
_LONE_INSET, _AGAINST_THE_EDGE = 2, 0.65


def _rank_is_a_pip(
    dark: np.ndarray, labels: np.ndarray, rank: Box, ids: tuple[int, ...], suit: Box, suit_ink: np.ndarray
) -> bool:
    """Whether the "rank" is a pip like the suit under it (``suit_ink``, its glyph): two pips of a
    card's body one above the other, cut like an index by a wrong outline (anglo's 8C, its bottom
    pips read as an AC). A rank and its suit differ in shape, or in size (a 9 over a heart of half
    its height can look alike)."""
    heights = (rank[3] - rank[1]) / max(suit[3] - suit[1], 1)
    widths = (rank[2] - rank[0]) / max(suit[2] - suit[0], 1)
    if not (1 / _PIP_SIZE <= heights <= _PIP_SIZE and 1 / _PIP_SIZE <= widths <= _PIP_SIZE):
        return False
    a, _ = glyph_vector(_glyph(dark, labels, rank, ids))
    b, _ = glyph_vector(suit_ink)
    return float(a @ b) >= _PIP_ALIKE


def _too_wide(box: Box, label: str) -> bool:
    """Whether a rank's glyph is wider than any single character is (a 10 has two): a pip turned
    on its side, cut in two by a wrong outline across a fan (nicu-white's 10C read as a 9S)."""
    return label != "10" and box[2] - box[0] > _WIDEST_RANK * (box[3] - box[1])


def _less_close_court(corner: CornerRead) -> bool:
    """A queen's, king's or joker's lone index sure of its rank but not a close match (see
    ``_LESS_CLOSE``)."""
    sure, close = _LESS_CLOSE
    return corner.rank in ("Q", "K", "JK") and not corner.rival and corner.probability >= sure and corner.score >= close


def _nearly_close(corner: CornerRead) -> bool:
    """Whether a lone index with its body hidden, not close enough a match to stand, leans to its
    card (``_NEARLY_LEANING``)."""
    return _clear_alone(corner, (_NEARLY[0], _NEARLY_LEANING)) and _where_an_index_lies(corner)


def _glimpsed(corner: CornerRead) -> bool:
    """Whether a lone index with its body hidden, too unsure of its card even to lean to it,
    glimpsed it (``CardRead.glimpse``): sure of its rank (no rival), this close a match
    (``_GLIMPSE``), and not cut off by the outline's edge."""
    return (
        not corner.rival
        and corner.probability >= _RANK_SURE
        and corner.score >= _GLIMPSE
        and 0 <= corner.inset <= _NEARLY_INSET
    )


def _where_an_index_lies(corner: CornerRead) -> bool:
    """Whether a lone index lies where a card's index does: not deep inside the outline (a
    neighbour's), and not against its edge (a fragment of a neighbour's pips cut off by a wrong
    outline), unless it is a joker's "JK" over a star, which no pips make, and which is set wider
    than a rank, out to the card's edge (the project's, at an inset of 0)."""
    return corner.inset <= _NEARLY_INSET and (corner.inset >= _LONE_INSET or corner.rank == "JK")


def _suit_leaning(corners: list[CornerRead], odds: float) -> bool:
    """Whether the indices of a card with its body hidden, short of sure of its suit, lean to
    it enough to stand when another outline reads the same card (see ``_LEANING``): ``odds``,
    the suit's evidence added up."""
    least = _LEANING_ODDS if len(corners) == 1 else _LONE_ODDS
    return all(c.score >= _LEANING for c in corners) and odds >= least[0 if corners[0].red else 1]


def _clear_alone(corner: CornerRead, thresholds: tuple[float, float] = _LONE_HIDDEN) -> bool:
    """A lone index with its body hidden that may stand on its own: sure of its rank and a close
    match (its suit must then be sure by itself: ``_LONE_ODDS``, checked with the suit)."""
    confidence, score = thresholds
    return not corner.rival and corner.confidence >= confidence and corner.score >= score


def _outvoting(top: CornerRead, bottom: CornerRead) -> CornerRead | None:
    """Of two indices that read different cards with the body hidden, the one that stands alone
    while the other is unsure of its rank: under a pile's neighbours, a far corner often shows a
    neighbour's pips or part of its index, read as some rank at 0.4-0.8. The sure one is then
    read as a lone index, no surer than one against the outline's edge: in a pile another outline
    must read the same card. None when neither or both are sure."""
    for sure, other in ((top, bottom), (bottom, top)):
        if (
            _clear_alone(sure)
            and sure.probability >= _RANK_SURE
            and sure.inset >= _LONE_INSET
            and other.probability < _RANK_SURE
        ):
            return sure
    return None


def _log_odds(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return float(np.log(p / (1 - p)))


def _member(labels: np.ndarray, ids: tuple[int, ...]) -> np.ndarray:
    """Pixels of any of a few blobs (np.isin is several times slower for one or two ids)."""
    out = labels == ids[0]
    for i in ids[1:]:
        out |= labels == i
    return out


def _box_of(labels: np.ndarray, i: int) -> Box:
    ys, xs = np.nonzero(labels == i)
    return (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


def _ink_at_half_size(card: np.ndarray, box: Box) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A part of the card (a body, a strip of pips) at half size, where pips are large and
    counting them costs a quarter: its darkness, and the labels and stats of its ink blobs."""
    x0, y0, x1, y1 = box
    dark = _darkness(cv2.resize(card[y0:y1, x0:x1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    _, labels, stats, _ = cv2.connectedComponentsWithStats((dark > 2 * _BODY_INK).astype(np.uint8))
    return dark, labels, stats


def _body_blobs(card: np.ndarray, index_right: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The body's ink blobs at half size (as :meth:`GenericReader._body` first finds them, the
    background left out) and the body's shape there."""
    dark, _, stats = _ink_at_half_size(card, _body_box(index_right))
    return stats[1:], dark.shape[:2]


def _darkness(image: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(image)
    return 255 - cv2.min(cv2.min(b, g), r)


def _corner_patch(card: np.ndarray, far: bool, out: int = 0) -> np.ndarray:
    """Where an index can lie, inside the card (the margin shows the table), upright, and
    contiguous (OpenCV copies a strided view on every call); ``out`` pixels further out."""
    p = CANONICAL_PAD + 1 - out
    w, h = round(_REGION[0] * CANONICAL_W), round(_REGION[1] * CANONICAL_H)
    if not far:
        return np.ascontiguousarray(card[p : p + h, p : p + w])
    x1, y1 = card.shape[1] - p, card.shape[0] - p
    return cv2.flip(card[y1 - h : y1, x1 - w : x1], -1)


_OUTWARD = 6  # pixels: how far out a corner is looked at again when its index was not found


def _index_candidates(card: np.ndarray, far: bool) -> Iterator[tuple[np.ndarray, _Index, int]]:
    """The ways a corner's ink may be cut into an index, likeliest first: each as the patch,
    the index in it, and how far out the patch was taken. The reader takes the first that reads.
    When an outline lies a few pixels inside the card's edge (a pale border on a pale table),
    the index touches the patch's edge and is not taken for one; the corner is then looked at
    again from further out, where the card's paper goes on past the outline. Last, the corner
    without a court picture's frame (:func:`_index_off_the_frame`)."""
    patch = _corner_patch(card, far)
    corner = _corner_ink(patch)
    found = False
    for glyphs in _index_glyphs(patch, corner) if corner is not None else ():
        found = True
        yield patch, glyphs, 0
    if not found:
        outward = _corner_patch(card, far, _OUTWARD)
        for glyphs in _index_glyphs(outward):
            yield outward, glyphs, _OUTWARD
    glyphs = _index_off_the_frame(corner) if corner is not None else None
    if glyphs is not None:
        yield patch, glyphs, 0


# A corner patch's ink: the paper's colour, the darkness above the paper's, the ink mask and its
# blobs (see _Blobs below).
_CornerInk = tuple[np.ndarray, np.ndarray, np.ndarray, "_Blobs"]


def _index_glyphs(patch: np.ndarray, corner: _CornerInk | None = None) -> Iterator[_Index]:
    """The rank's and the suit's boxes in a corner patch, with the component labels they are
    made of, the paper-relative darkness, and the paper's colour: the plain reading of its ink
    first, then, should that not read, the ink cut other ways. ``corner``: the patch's ink,
    when it was found already (:func:`_corner_ink`)."""
    corner = corner if corner is not None else _corner_ink(patch)
    if corner is None:
        return
    paper, dark, ink, blobs = corner
    for cut in _ink_cuts(ink, blobs):
        found = _index_in(cut, dark, paper)
        if found is not None:
            yield found
    # An outline a pixel or two inside the card's edge cuts the index off at the patch's outer
    # side: let a glyph-shaped blob touch the left or the top edge (not both: that is the table
    # in the card's rounded corner).
    outer = _index_in(blobs, dark, paper, outer=True)
    if outer is not None:
        yield outer
    # The rank's neighbour on its line (a 10's 0 beside its 1) may be the corner of a court
    # picture's frame beside its letter: the rank by itself too (anglo's K at 720p).
    alone = _index_in(blobs, dark, paper, alone=True)
    if alone is not None:
        yield alone


def _corner_ink(patch: np.ndarray) -> _CornerInk | None:
    """A corner patch's paper colour, its darkness above the paper's, its ink mask and the ink's
    blobs, or None when nothing in it is dark enough to be ink."""
    paper = np.median(patch.reshape(-1, 3)[::29], axis=0)  # a few hundred pixels judge the paper
    # Darkness above the paper's (saturating: brighter than the paper is none).
    dark = cv2.subtract(_darkness(patch), int(255 - paper.min()))
    if int(dark.max()) < _MIN_CONTRAST:
        return None
    # Each stroke against its own neighbourhood's darkest ink: a thin, blurred rank is grey where
    # the suit under it is black, and one threshold for both would break the rank apart.
    local = cv2.dilate(dark, _SQUARE_9)
    ink = ((dark > 35) & (dark > local // 2)).astype(np.uint8)
    return paper, dark, ink, _components(ink)  # the blobs found once: every cut starts from them


def _index_off_the_frame(corner: _CornerInk) -> _Index | None:
    """The index in a corner's ink taken without the lines of a court picture's frame, dashed
    or solid (:func:`_frame_lines`); None when there are none, or when the index is the one
    the ink as it is shows (it was read already)."""
    paper, dark, ink, blobs = corner
    lines = _frame_lines(ink)
    if lines is None:
        return None
    found = _index_in(_components(ink & ~cv2.dilate(lines, _SQUARE_3)), dark, paper)
    if found is None:
        return None
    plain = _index_in(blobs, dark, paper)
    return None if plain is not None and plain[:2] == found[:2] else found


# A picture's frame may be dashed: its dashes' gaps (this many pixels, less one) are bridged
# along a line (three rows or columns across, for a line turned a little) before its length is
# judged. A line is thin: where ink this thick across it runs through or beside it (a glyph's
# upright through a horizontal line), the ink is the glyph's; ink a little thicker both ways (a
# neighbour card's mass) makes no line.
_DASH_GAP, _STROKE = 9, 5
_EDGE = 2  # the patch's outer rows and columns: the card's edge and the table, not a frame


def _frame_lines(ink: np.ndarray) -> np.ndarray | None:
    """The ink of a court picture's frame: straight lines, dashed or solid, at least half the
    patch wide or tall, where the ink across them is thinner than ``_STROKE``, and the corner
    where two of them meet; or None when there is none. Aisleriot:anglo's hollow Q touches the
    corner of its picture's dashed frame with its tail or its bowl: one blob, too wide and tall
    for a glyph, whose dashes no opening by a solid line finds (:func:`_long_lines`)."""
    h, w = ink.shape
    slender = ink & ~cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((_STROKE + 2, _STROKE + 2), np.uint8))
    slender[:_EDGE] = 0
    slender[:, :_EDGE] = 0
    rows = _runs(cv2.morphologyEx(slender, cv2.MORPH_CLOSE, np.ones((3, _DASH_GAP), np.uint8)), round(0.5 * w))
    down = cv2.morphologyEx(slender, cv2.MORPH_CLOSE, np.ones((_DASH_GAP, 3), np.uint8))
    columns = _runs(np.ascontiguousarray(down.T), round(0.5 * h))
    if rows is None and columns is None:
        return None
    rows = rows if rows is not None else np.zeros_like(ink)
    columns = columns.T if columns is not None else np.zeros_like(ink)
    thick_down = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((_STROKE, 1), np.uint8))
    thick_across = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, _STROKE), np.uint8))
    lines = ink & ((rows & columns) | (rows & ~thick_down) | (columns & ~thick_across))
    return lines if lines.any() else None


def _runs(mask: np.ndarray, length: int) -> np.ndarray | None:
    """The runs along the rows of a mask at least ``length`` long (an opening by a line, with
    nothing beyond the mask's ends), or None when there is none; only rows with that much ink
    at all are looked at."""
    rows = np.flatnonzero(cv2.reduce(mask, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S)[:, 0] >= length)
    if len(rows) == 0:
        return None
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    found = cv2.morphologyEx(mask[y0:y1], cv2.MORPH_OPEN, np.ones((1, length), np.uint8), borderValue=0)
    if not found.any():
        return None
    out = np.zeros_like(mask)
    out[y0:y1] = found
    return out


# An ink mask's connected blobs (8-connected): their count, the label image, and their stats
# (cv2.connectedComponentsWithStats: x, y, width, height, area per blob, the background first).
_Blobs = tuple[int, np.ndarray, np.ndarray]


def _components(ink: np.ndarray) -> _Blobs:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    return n, labels, stats


def _ink_cuts(ink: np.ndarray, blobs: _Blobs) -> Iterator[_Blobs]:
    """The ink's ``blobs`` as they are; then with a tall blob cut at its waist (blurred, a rank
    set close above its suit runs into it); then without long straight lines (a court card's
    frame or the card's edge touching the index, a Q's tail on the frame: no glyph has such
    strokes). Each as the blobs of that ink."""
    yield blobs
    cut = _cut_at_waist(ink, blobs)
    if cut is not None:
        yield _components(cut)
    lines = _long_lines(ink, blobs)
    if lines is not None:
        yield _components(ink & ~cv2.dilate(lines, _SQUARE_3))


def _long_lines(ink: np.ndarray, blobs: _Blobs) -> np.ndarray | None:
    """The ink's straight runs at least 0.3 of the patch tall or half of it wide (an opening by
    a line), or None when there is none. A run lies within one blob, and the opening keeps only
    runs as long as its line (half as long at the patch's edge, which erosion takes for ink):
    only blobs that tall or wide are looked at, in a window around them a line's length wider
    (so that the window's own edges, taken for ink too, change nothing)."""
    h, w = ink.shape
    tall, wide = round(0.3 * h), round(0.5 * w)
    n, labels, stats = blobs
    heights, widths = stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_WIDTH]
    long = [i for i in range(1, n) if heights[i] >= tall // 2 or widths[i] >= wide // 2]
    if not long:
        return None
    reach = max(tall, wide)
    x0 = max(0, int(min(stats[i, cv2.CC_STAT_LEFT] for i in long)) - reach)
    y0 = max(0, int(min(stats[i, cv2.CC_STAT_TOP] for i in long)) - reach)
    x1 = min(w, int(max(stats[i, cv2.CC_STAT_LEFT] + stats[i, cv2.CC_STAT_WIDTH] for i in long)) + reach)
    y1 = min(h, int(max(stats[i, cv2.CC_STAT_TOP] + stats[i, cv2.CC_STAT_HEIGHT] for i in long)) + reach)
    window = _member(labels[y0:y1, x0:x1], tuple(long)).astype(np.uint8)
    found = cv2.morphologyEx(window, cv2.MORPH_OPEN, np.ones((tall, 1), np.uint8))
    found |= cv2.morphologyEx(window, cv2.MORPH_OPEN, np.ones((1, wide), np.uint8))
    if not found.any():
        return None
    lines = np.zeros_like(ink)
    lines[y0:y1, x0:x1] = found
    return lines


# A corner with more than this share of its pixels in strong colour (saturation above this) shows
# a court picture: jokers' corners under others show 1-16 %, kde's JS's beads 40-48 %.
_PICTURE_COLOUR, _SATURATED = 0.3, 80


def _word_column(patch: np.ndarray) -> bool | None:
    """Whether a corner shows a word set down its edge (JOKER): four or more letter-sized blobs
    one under the other, of like size, close together, in one colour. Red (True), black (False),
    or None when there is no such column (a rank and a suit are two blobs; a dashed frame's
    dashes are thinner than letters and lie further in)."""
    paper = np.median(patch.reshape(-1, 3)[::29], axis=0)
    dark = cv2.subtract(_darkness(patch), int(255 - paper.min()))
    if int(dark.max()) < _MIN_CONTRAST:
        return None
    ink = ((dark > 35) & (dark > cv2.dilate(dark, _SQUARE_9) // 2)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    h, w = ink.shape
    letters = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        inside = x > 0 and y > 0 and x + bw < w and y + bh < h
        if inside and 5 <= bh < 0.3 * h and bw >= max(5, 0.35 * bh) and bw < 0.45 * w and area >= 10 and x < 0.4 * w:
            letters.append((i, x + bw / 2, y, bw, bh))
        elif inside and x < 0.3 * w and _word_on_its_side(bw, bh, h) and _written(labels[y : y + bh, x : x + bw] == i):
            # The word turned on its side, its letters run together (a script face): one tall
            # blob, as wide as a letter is tall, that is no straight line.
            return _colour(patch, labels, (i,), paper, (x, y, x + bw, y + bh))
    letters.sort(key=lambda b: b[2])
    best: list[tuple[int, float, int, int, int]] = []
    for start in range(len(letters)):
        chain = [letters[start]]
        for b in letters[start + 1 :]:
            last = chain[-1]
            size = max(last[3], b[3])
            gap = b[2] - (last[2] + last[4])
            if abs(b[1] - last[1]) < 0.6 * size and -1 <= gap < max(last[4], b[4]) and 0.4 < b[4] / last[4] < 2.5:
                chain.append(b)
        best = max(best, chain, key=len)
    if len(best) < 4:
        return _word_in_pieces(patch, labels, stats, paper)
    ids = tuple(b[0] for b in best)
    x0, x1 = round(min(b[1] - b[3] / 2 for b in best)), round(max(b[1] + b[3] / 2 for b in best))
    return _colour(patch, labels, ids, paper, (x0, best[0][2], x1, best[-1][2] + best[-1][4]))


def _in_colour(patch: np.ndarray) -> float:
    """The share of a patch's pixels in strong colour (a court picture's, not an index's ink)."""
    return float(np.count_nonzero(cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)[..., 1] > _SATURATED)) / (patch.size // 3)


def _word_on_its_side(width: int, height: int, patch_height: int) -> bool:
    """Whether ink of this size (one blob, or pieces one under the other) could be the word set
    down a corner turned on its side: a third to three fifths of the corner tall, as wide as a
    letter is tall."""
    return 0.3 * patch_height <= height < 0.6 * patch_height and 8 <= width < height / 3


def _word_in_pieces(patch: np.ndarray, labels: np.ndarray, stats: np.ndarray, paper: np.ndarray) -> bool | None:
    """The word turned on its side and run together (see :func:`_word_column`), blurred into two
    or three pieces one under the other (anglo's JOKER at 720p, as "JOKE" and "R", or "JO" and
    "KER"): each piece letter-wide and near the edge, each touching the next or ``_WORD_GAP``
    pixels from it, and together the size of the word and written-like. Red (True), black (False),
    or None when there are no such pieces. A dashed frame's dashes are thinner than a letter."""
    h, w = labels.shape
    pieces = []
    for i in range(1, len(stats)):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        inside = x > 0 and y > 0 and x + bw < w and y + bh < h
        if inside and x < 0.3 * w and bh >= 5 and 8 <= bw < 0.3 * w and area >= 10:
            pieces.append((y, i, x, bw, bh))
    pieces.sort()
    for start, first in enumerate(pieces):
        chain = [first]
        for piece in pieces[start + 1 :]:
            y, _, x, bw, bh = piece
            last_y, _, last_x, last_bw, last_bh = chain[-1]
            touching = 0 <= y - (last_y + last_bh) <= _WORD_GAP
            if touching and abs((x + bw / 2) - (last_x + last_bw / 2)) < 0.6 * max(bw, last_bw):
                chain.append(piece)
        if not 2 <= len(chain) <= 3:
            continue
        x0, y0 = min(p[2] for p in chain), chain[0][0]
        x1, y1 = max(p[2] + p[3] for p in chain), max(p[0] + p[4] for p in chain)
        ids = tuple(p[1] for p in chain)
        if _word_on_its_side(x1 - x0, y1 - y0, h) and _written(_member(labels[y0:y1, x0:x1], ids)):
            return _colour(patch, labels, ids, paper, (x0, y0, x1, y1))
    return None


_WORD_GAP = 2  # canonical pixels between two pieces of a word blurred apart


def _written(member: np.ndarray) -> bool:
    """Whether ink (a boolean box around it) is handwriting-like rather than a bar or a frame's
    line: it fills a quarter to two thirds of its box, and its width changes from row to row."""
    widths = np.count_nonzero(member, axis=1)
    filled = np.count_nonzero(member) / member.size
    return 0.25 < filled < 0.65 and float(np.std(widths)) > 0.25 * float(np.mean(widths))


def _cut_at_waist(ink: np.ndarray, blobs: _Blobs) -> np.ndarray | None:
    """The ink with each tall blob near the corner (a rank and its suit run together, twice as
    tall as wide) cut along its narrowest row between a third and three quarters of its height,
    where the rank's foot meets the suit's top; None when there is no such blob."""
    n, labels, stats = blobs
    h, w = ink.shape
    out = None
    for i in range(1, n):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        if bh < 2 * bw or bh > 0.75 * h or bh < 3 * _MIN_GLYPH_H or x + bw >= w or x > 0.5 * w:
            continue
        widths = np.count_nonzero(labels[y : y + bh, x : x + bw] == i, axis=1)
        lo, hi = round(0.33 * bh), round(0.75 * bh)
        waist = lo + int(np.argmin(widths[lo:hi]))
        if widths[waist] > 0.5 * np.median(widths[widths > 0]):
            continue  # no waist: one tall glyph
        out = ink.copy() if out is None else out
        out[y + waist, x : x + bw][labels[y + waist, x : x + bw] == i] = 0
        if waist + 1 < bh:
            out[y + waist + 1, x : x + bw][labels[y + waist + 1, x : x + bw] == i] = 0
    return out


def _index_in(
    ink: _Blobs, dark: np.ndarray, paper: np.ndarray, outer: bool = False, alone: bool = False
) -> _Index | None:
    """The index's glyphs among the blobs of an ink mask (see :func:`_index_glyphs`); with
    ``outer``, glyphs cut off by the patch's left or top edge count too; with ``alone``, the rank
    is the blob nearest the corner by itself, without the neighbour on its line it would be
    joined to (None when there is no such neighbour: that index is the plain one)."""
    n, labels, stats = ink
    h, w = labels.shape
    blobs = []
    for i, (x, y, bw, bh, area) in enumerate(stats.tolist()[1:n], start=1):
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        if outer and touches and x + bw < w and y + bh < h and (x > 0 or y > 0):
            touches = bw < 0.3 * bh or bh > 0.3 * h or bw > 0.4 * w  # a sliver of table, not a glyph
        # Not glyphs: specks, the table past the card's edge or rounded corner, a picture's frame
        # or a pip running out of the corner.
        if not touches and bh >= _MIN_GLYPH_H and area >= 12 and bh < 0.5 * h:
            blobs.append((i, (x, y, x + bw, y + bh)))
    if len(blobs) < 2:
        return None
    seed_id, seed_box = min(blobs, key=lambda b: b[1][0] + b[1][1])
    rank_box, rank_ids = seed_box, [seed_id]
    height = rank_box[3] - rank_box[1]
    for i, b in sorted(blobs, key=lambda b: b[1][0]):
        overlap = min(b[3], rank_box[3]) - max(b[1], rank_box[1])
        beside = b[0] >= rank_box[2] - 1 and b[0] - rank_box[2] < 0.5 * height
        alike = 0.7 * height < b[3] - b[1] < 1.4 * height  # not a picture's frame beside a J
        if i != seed_id and beside and alike and overlap > 0.6 * min(height, b[3] - b[1]):
            rank_box = (rank_box[0], min(rank_box[1], b[1]), max(rank_box[2], b[2]), max(rank_box[3], b[3]))
            rank_ids.append(i)
    if alone:
        if len(rank_ids) == 1:
            return None
        rank_box, rank_ids = seed_box, [seed_id]
    height = rank_box[3] - rank_box[1]
    below = [
        (i, b)
        for i, b in blobs
        if b[1] >= rank_box[3] - 1
        and b[1] - rank_box[3] < 1.2 * height
        and min(b[2], rank_box[2]) - max(b[0], rank_box[0]) > 0.3 * min(b[2] - b[0], rank_box[2] - rank_box[0])
        # A suit is no dash of a court card's frame, nor a speck: as wide and as tall as a good
        # share of the rank's height.
        and min(b[2] - b[0], b[3] - b[1]) >= _SUIT_SHARE * height
    ]
    if not below:
        return None
    suit_id, suit_box = min(below, key=lambda b: b[1][1])
    return rank_box, suit_box, labels, tuple(rank_ids), suit_id, dark, paper


def _glyph(dark: np.ndarray, labels: np.ndarray, box: Box, ids: tuple[int, ...]) -> np.ndarray:
    """A glyph's darkness within its box, other blobs' ink (a neighbour's corner) blanked out."""
    x0, y0, x1, y1 = box
    own = _member(labels[y0:y1, x0:x1], ids).astype(np.uint8)
    # The blob's soft edge lies just outside its thresholded pixels: keep a pixel around it.
    own = cv2.dilate(own, _SQUARE_3)
    return dark[y0:y1, x0:x1] * own


def _colour(patch: np.ndarray, labels: np.ndarray, ids: tuple[int, ...], paper: np.ndarray, box: Box) -> bool | None:
    """Red ink (True), black (False), or None when it cannot be told: judged relative to the
    paper's own colour, so a warm light does not redden black ink. Only ``box`` is looked at."""
    x0, y0, x1, y1 = box
    patch, labels = patch[y0:y1, x0:x1], labels[y0:y1, x0:x1]
    ink = _member(labels, ids).astype(np.uint8)
    if cv2.countNonZero(ink) < 10:
        return None
    b, g, r = np.array(cv2.mean(patch, mask=ink)[:3]) / np.maximum(paper.astype(np.float64), 30)
    strength = 1 - min(b, g, r)  # how far the ink is from the paper
    if strength < 0.25:
        return None  # ink washed out by glare: pale red and grey look alike
    # Red ink keeps the paper's red and loses the rest: its redness is about its strength.
    share = (r - (b + g) / 2) / strength
    if share > _RED:
        return True
    return False if share < _BLACK else None


def _identity(corner: CornerRead) -> Card | None:
    if corner.rank == "JK":
        return Card(BIG_JOKER if corner.red else LITTLE_JOKER)
    rank = "T" if corner.rank == "10" else corner.rank
    card = Card.from_str(rank + corner.suit)
    if corner.red != (card.suit in (Suit.HEARTS, Suit.DIAMONDS)):
        return None
    return card


def _body_box(index_right: int) -> Box:
    """The card's middle, between the index columns on either side."""
    p = CANONICAL_PAD
    right = min(index_right + 2, p + CANONICAL_W // 3)
    return (right, p + round(0.05 * CANONICAL_H), CANONICAL_W + 2 * p - right, p + round(0.95 * CANONICAL_H))


_SYMBOL_H = (0.06, 0.2)  # of the card's height: a court picture's suit symbol
_SIDE_STRIP = 0.45  # of the card's width: the strip beside the index a card under others shows
_PIPS = 1  # pips judged: the top one (2: and the bottom one turned upright; measured, it added nothing)

_OTHER_SUIT = {"S": "C", "C": "S", "H": "D", "D": "H"}
_NUMBERS = {r: int(r) for r in RANKS if r.isdigit()}


# The pips of a number card by column (left, middle, right), as ordinary decks lay them out.
_COLUMNS = {2: (0, 2, 0), 3: (0, 3, 0), 4: (2, 0, 2), 5: (2, 1, 2), 6: (3, 0, 3), 7: (3, 1, 3), 8: (3, 2, 3),
            9: (4, 1, 4), 10: (4, 2, 4)}  # fmt: skip
# A rank is plausible for an index when the rank model gives it at least this; the likeliest
# ranks kept per corner.
_PLAUSIBLE, _LIKELIEST = 0.1, 4
_OUTWEIGHED = 0.7  # a tentative index outweighed by a sure one must still give its rank this


# The pips in the column beside the index (the first column), by rank, as ordinary decks lay
# them out: a 7's middle pip in the centre (3) or one a side (2, nicu-white's), an 8 as 3-2-3 (3)
# or 4-0-4 (4). An ace, a 2 or a 3 has none there (no count to bear out), a court card a picture.
_COLUMN_PIPS = {"4": {2}, "5": {2}, "6": {3}, "7": {2, 3}, "8": {3, 4}, "9": {4}, "10": {4}}
_COLUMN_STRIP = 0.47  # of the card's width: the first column, and the centre column's left edge
_COLUMN_PIP = 25  # half-size pixels: a pip is larger (a speck or a cut-off corner is not)
_COLUMN_LEANING = 0.5  # the rank model's least belief in a rank the column bears out


def _pip_column(card: np.ndarray, corner: CornerRead, far: bool) -> int | None:
    """The number of pips in the column beside a corner's index (``far``: the bottom-right one),
    when they are plain to see: two to four solid blobs of the index's colour, alike in size,
    one above the other, the first in the column's top third and the last in its bottom third,
    evenly spaced; else None. The centre column's pips reach into the strip and are cut by its
    edge: they are left out, as long as they lie right of the column."""
    if far:
        card = cv2.rotate(card, cv2.ROTATE_180)
    p = CANONICAL_PAD
    x0, y0 = min(corner.right + 2, p + CANONICAL_W // 3), p + round(0.05 * CANONICAL_H)
    x1, y1 = p + round(_COLUMN_STRIP * CANONICAL_W), p + round(0.95 * CANONICAL_H)
    dark, labels, stats = _ink_at_half_size(card, (x0, y0, x1, y1))
    h, w = dark.shape
    big = [i for i in range(1, len(stats)) if stats[i, cv2.CC_STAT_AREA] >= _COLUMN_PIP]
    cut = [i for i in big if stats[i, cv2.CC_STAT_LEFT] + stats[i, cv2.CC_STAT_WIDTH] >= w]
    ids = [i for i in big if i not in cut]
    if not 2 <= len(ids) <= 4:
        return None
    x, y, bw, bh, area = (stats[ids, k].astype(np.float64) for k in range(5))
    if x.min() <= 0 or y.min() <= 0 or (y + bh).max() >= h:
        return None  # cut by the strip's other edges: a picture, another card
    if cut and stats[cut, cv2.CC_STAT_LEFT].min() < (x + bw / 2).mean():
        return None  # cut pips that are not the centre column's
    if not _alike(area, bh) or (area / (bw * bh)).min() < 0.35:
        return None  # a pip run into its neighbour, half hidden, or no pip (a stroke)
    if np.ptp(x + bw / 2) > 0.25 * bw.mean():
        return None  # not one above the other
    middles = np.sort((y + bh / 2) / h)
    gaps = np.diff(middles)
    if middles[0] > 1 / 3 or middles[-1] < 2 / 3 or gaps.max() > 1.3 * gaps.min():
        return None
    half = cv2.resize(card[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_AREA)
    paper = np.median(half[labels == 0], axis=0)
    if _colour(half, labels, tuple(ids), paper, (0, 0, w, h)) != corner.red:
        return None
    return len(ids)


def _column_fits(card: Card, rivals: set[str], count: int) -> bool:
    """Whether a column of ``count`` pips is this number card's and none of its rivals' (a court
    card, an ace or a joker shows no such column)."""
    if count not in _COLUMN_PIPS.get(_rank_label(card), set()):
        return False
    return not any(count in _COLUMN_PIPS.get(r, set()) for r in rivals)


def _rank_label(card: Card) -> str:
    letter = str(card)[0]
    return "10" if letter == "T" else letter


def _alike(areas: np.ndarray, heights: np.ndarray) -> bool:
    """Blobs alike in size, as one card's pips are (none two run together, none half hidden)."""
    return bool(areas.max() <= 1.6 * areas.min() and heights.max() <= 1.3 * heights.min())


def _plain_count(body: tuple[np.ndarray, tuple[int, int]]) -> int | None:
    """The number of pips of a body whose pips are plain to count: all of like size (none two
    run together, none half hidden), in the columns a number card of that count has them, the
    top one in the body's upper quarter and the bottom one in its lower quarter; else None."""
    stats, (bh, bw) = body
    big = [s for s in stats if s[cv2.CC_STAT_AREA] >= 0.003 * bh * bw]
    if not 2 <= len(big) <= 10:
        return None
    areas = np.array([s[cv2.CC_STAT_AREA] for s in big], np.float64)
    heights = np.array([s[cv2.CC_STAT_HEIGHT] for s in big], np.float64)
    if not _alike(areas, heights):
        return None
    xs = np.array([(s[cv2.CC_STAT_LEFT] + s[cv2.CC_STAT_WIDTH] / 2) / bw - 0.5 for s in big])
    ys = np.array([(s[cv2.CC_STAT_TOP] + s[cv2.CC_STAT_HEIGHT] / 2) / bh for s in big])
    columns = (int(np.sum(xs < -0.12)), int(np.sum(np.abs(xs) <= 0.08)), int(np.sum(xs > 0.12)))
    if sum(columns) != len(big) or _COLUMNS.get(len(big)) != columns:
        return None
    if ys.min() > 0.25 or ys.max() < 0.75:
        return None
    return len(big)


def expected_body(card: Card) -> str:
    """What :func:`vision.classify.reading_of_blobs` says of a plain body of this card."""
    letter = str(card)[0]
    if card.is_joker or letter in "JQK":
        return "picture"
    return "ace" if letter == "A" else str(10 if letter == "T" else int(letter))


def _body_fits(card: Card, seen: str) -> bool:
    """The body shows what this card shows: its pips, its ace, or for a court card (or a joker)
    a picture or one large blob (a pale picture's figure, as kde:standard's kings are seen)."""
    if card.is_joker or str(card)[0] in "JQK":
        return seen in ("picture", "ace")
    return _shows_rank(seen, "A") if str(card)[0] == "A" else seen == expected_body(card)


def _shows_rank(seen: str, label: str) -> bool:
    """Whether a body shows what a plain body of a rank label does (a letter that is no rank: a
    picture). An ace's one pip may be no larger than any other card's (kde:standard's AD): one
    pip is an ace too, as no other card shows one."""
    if label in _NUMBERS:
        return seen == str(_NUMBERS[label])
    return seen in ("ace", "1") if label == "A" else seen == "picture"


def _body_contradicts(card: Card, seen: str) -> bool:
    """True when the body shows another rank: one large pip (an ace), a picture (J Q K, joker),
    or a count of pips from 2 to 10 that is not this card's. A body that says nothing clear (no
    pips, one small one, a count past ten) contradicts nothing."""
    if card.is_joker or str(card)[0] in "JQK":
        return seen in {str(n) for n in range(2, 11)}  # a picture may well be one large blob
    if str(card)[0] == "A":
        return seen in {str(n) for n in range(2, 11)}  # an ornate ace may look like a picture
    count = 10 if str(card)[0] == "T" else int(str(card)[0])
    return seen in ("ace", "picture") or (seen in {str(n) for n in range(2, 11)} and int(seen) != count)
