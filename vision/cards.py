"""Corner indices joined into cards (pure: reads in, cards out).

A card shows two indices, the second turned 180 degrees in the opposite corner; in a fan or a
pile often only one. Two reads are one card's when they point opposite ways, each lies down and
to the right of the other in its own frame, and they lie a card's diagonal apart (the mat gives
the card's size; without it, the indices' own size bounds it), and their reads agree: the chance
that both name one card (the sum over cards of the two reads' products) is at least ``agree``.
Two cards of one rank fanned side by side lie as a pair too, and two sure reads that contradict
each other are two cards, not one card of whatever each thought least unlikely. A pair's
evidence is multiplied: the card is the likeliest under both, and the chance that an index lies
there is one less the chance that neither read is one, so two reads too faint to stand alone
(down to :data:`~vision.index_reads.FAINT`) may make a card together. A lone index stands for its
card by itself. Each card's outline is drawn from its indices and the card's size.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from engine.cards import Card
from vision.index_reads import FAINT, SURE, IndexRead

# Where an index's centre lies on a card, as shares of its width and height from the top-left
# corner (a standard poker card's index; designs differ by a few hundredths).
INDEX_AT = (0.085, 0.135)
CARD_ASPECT = 63.5 / 88.9  # width over height
# A card's height, in its index's heights, when nothing else tells it (designs: 3.5-6).
CARD_PER_INDEX = 4.5
DIAGONAL = math.hypot((1 - 2 * INDEX_AT[0]) * CARD_ASPECT, 1 - 2 * INDEX_AT[1])  # index to index, in heights
ACCEPT = 0.6  # a card less sure than this is reported unknown (a wrong card is a false accusation)
LEAD = 4.0  # ... and so is one less than this many times as likely as the runner-up
# ... unless its index is surely there (PRESENT) and its card this likely: a clear read of a
# faint index (chosen on the training photos: docs/vision.md).
CERTAIN = 0.95
# ... and such a card, but for a joker, is named from the least heat a read is read at: the
# detector's doubt (0.4-0.5 on some real indices) against the readers' certainty of an index and
# its card. Not a joker's: its index is whatever a design prints, and a joker is what the readers
# see in a texture or a picture (on the selection sets, the one phantom this rule made was a BJ).
CERTAIN_PRESENT = FAINT
# Two reads are one card's only if the chance that they name one card is at least this: two
# reads of one card agree at 0.4-1 even when one is unsure of its suit; the indices of a KS and a
# KC side by side, each read surely, at 0.04 (chosen on the training photos: docs/vision.md).
AGREE = 0.1
UNEXPECTED = 0.1  # the prior's weight on a card the referee says cannot be there (not 0: a misplaced card)
# An index read less sure than this that an index lies there at all is no card, not an unknown one,
# unless its card is all but certain (CERTAIN_PRESENT, above); reads under FAINT are not read at all
# (IndexDetector's ``least``).
PRESENT = SURE


@dataclass(frozen=True, slots=True)
class Recognition:
    """A card found in an image: its identity (None: unknown), confidence, outline and centre."""

    card: Card | None
    confidence: float
    corners: np.ndarray  # 4 x 2, image pixels, clockwise from the card's top-left
    center: tuple[float, float]
    index_centres: tuple[tuple[float, float], ...] = ()  # the corner indices it was read from
    candidates: tuple[tuple[Card, float], ...] = ()  # the likeliest cards, best first

    def to_json(self) -> dict[str, object]:
        return {
            "card": None if self.card is None else str(self.card),
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
        }


def _axes(up_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """A card's right and down directions in the image, from its index's up direction."""
    a = math.radians(up_deg)
    up = np.array([math.sin(a), -math.cos(a)])
    return np.array([-up[1], up[0]]), -up


def _distribution(read: IndexRead) -> dict[Card, float]:
    if read.candidates:
        return dict(read.candidates)
    return {read.card: read.score} if read.card is not None else {}


def _fit_as_pair(a: IndexRead, b: IndexRead, card_h: float | None) -> bool:
    turn = abs((a.up_deg - b.up_deg) % 360 - 180)
    # The detector's up direction is good to a few tens of degrees, and worse on small indices;
    # with the mat's card size the pair's distance is a strict check of its own.
    if turn > (70 if card_h is not None else 50):
        return False
    v = np.subtract(b.centre, a.centre)
    d = float(np.hypot(*v))
    for read, vec in ((a, v), (b, -v)):
        right, down = _axes(read.up_deg)
        if vec @ right <= 0.05 * d or vec @ down <= 0.3 * d:
            return False
    if card_h is not None:
        expected = DIAGONAL * card_h
        return 0.75 * expected < d < 1.25 * expected
    # Without the mat: a card is 3.5-6 index heights tall, and an index's height is read only
    # roughly (up to twice too tall), so the smaller of the two bounds it.
    h = min(a.height, b.height)
    return 1.1 * h * DIAGONAL < d < 7.0 * h * DIAGONAL


def _agreement(a: IndexRead, b: IndexRead) -> float:
    """The chance that two reads name one card: the sum over cards of their probabilities' products."""
    pa, pb = _distribution(a), _distribution(b)
    return sum(p * pb[c] for c, p in pa.items() if c in pb)


def _same_card_evidence(a: IndexRead, b: IndexRead) -> dict[Card, float]:
    pa, pb = _distribution(a), _distribution(b)
    joint = {c: pa[c] * pb[c] for c in pa if c in pb}
    total = sum(joint.values())
    return {c: p / total for c, p in joint.items()} if total > 0 else {}


def _outline(centre: np.ndarray, up_deg: float, card_h: float) -> np.ndarray:
    right, down = _axes(up_deg)
    hw, hh = CARD_ASPECT * card_h / 2, card_h / 2
    return np.array([centre + s * hw * right + t * hh * down for s, t in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _pair_up(a: IndexRead, b: IndexRead) -> float:
    """The card's up direction, with ``a`` as its top-left index, from where its two indices lie:
    the line between them crosses the card at a known angle (designs differ by a few degrees),
    which places the card better than the indices' own up directions (good to tens of degrees)."""
    across = (1 - 2 * INDEX_AT[0]) * CARD_ASPECT, 1 - 2 * INDEX_AT[1]  # a to b on an upright card
    v = np.subtract(b.centre, a.centre)
    return math.degrees(math.atan2(v[1], v[0]) - math.atan2(across[1], across[0])) % 360


@dataclass(frozen=True, slots=True)
class Thresholds:
    """How sure a read must be to name a card (chosen on the training photos: docs/vision.md)."""

    accept: float = ACCEPT
    lead: float = LEAD
    present: float = PRESENT
    lone: float = 0.0  # a lone index (its card's other corner unseen) must be at least this sure too
    agree: float = AGREE  # two reads are one card's only if they name one card at least this likely
    faint: float = FAINT  # the least heat of a read that is one corner of a pair (a lone read: ``present``, above)
    certain: float = CERTAIN  # a card this likely is named whatever its confidence, once its index is surely there
    certain_present: float = CERTAIN_PRESENT  # ... or, but for a joker, once its index is this likely there


def _pick(
    evidence: dict[Card, float], heat: float, allowed: set[Card] | None, limits: Thresholds, lone: bool = False
) -> tuple[Card | None, float, tuple]:
    """The card the evidence names, with its confidence (heat x probability), or None when it is
    not sure enough (its confidence below ``accept``, unless its index is surely there and the
    card all but certain) or not far enough ahead of the runner-up. With the referee's prior, cards
    that should not be there weigh :data:`UNEXPECTED` of their evidence and the rest are weighed
    again (the probability of cards outside the candidates stays in the scale): a near-tie goes
    to the card that can be there, while a card read clearly stays itself, expected or not."""
    ranked = sorted(evidence.items(), key=lambda kv: -kv[1])
    if allowed is not None:
        outside = max(0.0, 1.0 - sum(evidence.values()))
        weighed = [(c, p if c in allowed else p * UNEXPECTED) for c, p in ranked]
        total = sum(p for _, p in weighed) + outside
        ranked = sorted(((c, p / total) for c, p in weighed), key=lambda kv: -kv[1]) if total > 0 else []
    if not ranked:
        return None, 0.0, ()
    card, p = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    confidence = heat * p
    # A faint index stands for a card the readers are all but certain of by themselves, the prior aside.
    read_certain = heat >= limits.certain_present and not card.is_joker and evidence.get(card, 0.0) >= limits.certain
    certain = p >= limits.certain and (heat >= limits.present or read_certain)
    sure = (
        ((heat >= limits.present and confidence >= limits.accept) or certain)
        and confidence >= (limits.lone if lone else 0.0)
        and p >= limits.lead * runner_up
    )
    return (card if sure else None), confidence, tuple(ranked[:4])


def _partner(
    a: IndexRead, others: list[tuple[int, IndexRead]], card_h: float | None, any_pair: bool, agree: float
) -> int | None:
    """The nearest read that lies as ``a``'s card's other index (and, unless ``any_pair`` or one
    of the two reads nothing at all, names one card with it at least ``agree`` likely). A read
    that names ``a``'s card goes before a nearer one that does not: a court card's picture holds
    a large rank and suit between its two indices, which lies as a pair with either of them."""
    fits = []
    for j, b in others:
        if not _fit_as_pair(a, b, card_h):
            continue
        both_read = bool(a.candidates and b.candidates)
        agrees = both_read and _agreement(a, b) >= agree
        if agrees or any_pair or not both_read:
            fits.append((not agrees, math.dist(a.centre, b.centre), j))
    return min(fits)[2] if fits else None


Prior = set[Card] | Callable[[tuple[float, float]], set[Card] | None] | None


def join(
    reads: Iterable[IndexRead],
    card_size_px: tuple[float, float] | None = None,
    allowed: Prior = None,
    any_pair: bool = False,
    limits: Thresholds = Thresholds(),
) -> list[Recognition]:
    """The cards the index reads show. ``card_size_px`` (width, height), when the mat gives it,
    checks which reads pair and draws the outlines; ``allowed``, the cards that may be on the
    table (the referee's prior), decides between the likeliest: one set for the whole image, or
    a function of a card's centre (the cards that may lie there: a seat's zone holds that
    seat's cards). ``any_pair``: two indices that lie as one card's pair are joined even when
    their reads share no likely card."""
    least = min(limits.present, limits.certain_present, limits.faint)
    reads = sorted((r for r in reads if r.heat >= least), key=lambda r: -r.score)
    card_h = card_size_px[1] if card_size_px else None
    used: set[int] = set()
    cards = []
    for i, a in enumerate(reads):
        if i in used:
            continue
        # A pair's corners are reads down to ``faint``; one fainter may only stand alone, as a certain card.
        others = [(j, reads[j]) for j in range(i + 1, len(reads)) if j not in used and reads[j].heat >= limits.faint]
        partner = _partner(a, others, card_h, any_pair, limits.agree) if a.heat >= limits.faint else None
        used.add(i)
        b = reads[partner] if partner is not None else None
        heat = a.heat if b is None else 1 - (1 - a.heat) * (1 - b.heat)
        if heat < min(limits.present, limits.certain_present):
            continue  # a faint read that is no corner of a pair, or a pair of two too faint
        if b is not None:
            centre = (np.array(a.centre) + np.array(b.centre)) / 2
            here = (float(centre[0]), float(centre[1]))
            card, conf, cands = _pick(_same_card_evidence(a, b), heat, _prior_at(allowed, here), limits)
            if card is None and heat < limits.present:
                continue  # too faint for anything but a card all but certain: no card, not an unknown one
            used.add(partner)
            h = card_h or math.dist(a.centre, b.centre) / DIAGONAL
            cards.append(
                Recognition(card, conf, _outline(centre, _pair_up(a, b), h), here, (a.centre, b.centre), cands)
            )
            continue
        h = card_h or CARD_PER_INDEX * a.height
        right, down = _axes(a.up_deg)
        centre = np.array(a.centre) + (0.5 - INDEX_AT[0]) * CARD_ASPECT * h * right + (0.5 - INDEX_AT[1]) * h * down
        here = (float(centre[0]), float(centre[1]))
        card, conf, cands = _pick(_distribution(a), a.heat, _prior_at(allowed, here), limits, lone=True)
        if card is None and heat < limits.present:
            continue
        cards.append(Recognition(card, conf, _outline(centre, a.up_deg, h), here, (a.centre,), cands))
    return cards


def _prior_at(allowed: Prior, centre: tuple[float, float]) -> set[Card] | None:
    return allowed(centre) if callable(allowed) else allowed
