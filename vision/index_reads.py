"""What passes between the card reader's steps: an image to look at (:class:`Look`), a peak of
the detector's heat map (:class:`Peak`), and an index read (:class:`IndexRead`): where one
printed corner index lies, which way is up, its likeliest cards and how sure each is. With them,
the networks' class order and the thresholds a read is judged by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.cards import Card

RANKS = "23456789TJQKAX"  # the network's rank classes in order; X: a joker (training imports these)
SUITS = ("C", "D", "H", "S", "BJ", "LJ")  # a joker's "suit" is which joker it is
RED_SUITS = (1, 2)  # diamonds and hearts, in SUITS
JOKER_SUITS = (4, 5)  # the big and the little joker, in SUITS
SURE = 0.5  # a read this sure that an index lies there is an index (the cards' PRESENT)
FAINT = 0.35  # ... and one this sure may be a corner of a card whose other corner is read too (vision.cards)
PEAK = 0.25  # heat-map peaks below this are no index
# The share of an index's box that must lie in the image for it to be read: the network was taught
# an index as one from this share in view (vision.training.synth); less, and a cut-off corner is
# read as a whole one (an 8 cut at its waist is a 0, a 6 or nothing).
IN_VIEW = 0.8


@dataclass(frozen=True, slots=True)
class Look:
    """One image for the detector: run at ``scale``; ``index_height`` (image pixels) the indices'
    size when known (:meth:`vision.indices.IndexDetector.detect`)."""

    image: np.ndarray
    scale: float = 1.0
    index_height: float | None = None


@dataclass(frozen=True, slots=True)
class Peak:
    """A heat-map peak as the detector sees it (the pixels it ran on), before it is read."""

    centre: tuple[float, float]
    height: float
    width: float
    up_deg: float
    heat: float
    p_rank: np.ndarray
    p_suit: np.ndarray


@dataclass(frozen=True, slots=True)
class IndexRead:
    """One corner index found in an image (image pixels)."""

    centre: tuple[float, float]
    height: float  # along the index's up direction
    width: float
    up_deg: float  # which way the index's top points: 0 = up the image, clockwise
    card: Card | None  # the most likely card (None: the rank and suit disagree)
    score: float  # heat x p(rank) x p(suit): how sure the read is, 0-1
    heat: float  # how sure an index lies here at all
    # The likeliest cards with their probabilities (rank x suit), best first, for the prior.
    candidates: tuple[tuple[Card, float], ...] = ()
    # The reader's share of ``heat``: its chance that the upright crop holds an index (1 when no
    # reader looked). The detector's own heat is ``heat / (presence * ink)``.
    presence: float = 1.0
    # The share of ``heat`` the check of red ink left (vision.ink): the chance that the read is no
    # red card, where its crop shows no red ink in a frame with colour; else 1.
    ink: float = 1.0

    @property
    def index_heat(self) -> float:
        """How sure an index lies here, whatever card it is: ``heat`` before the check of red ink."""
        return self.heat / self.ink if self.ink > 0 else 0.0

    @property
    def up(self) -> tuple[float, float]:
        a = math.radians(self.up_deg)
        return (math.sin(a), -math.cos(a))

    def scaled(self, factor: float, offset: tuple[float, float] = (0.0, 0.0)) -> IndexRead:
        centre = (self.centre[0] * factor + offset[0], self.centre[1] * factor + offset[1])
        return replace(self, centre=centre, height=self.height * factor, width=self.width * factor)


def as_read(
    centre: tuple[float, float],
    height: float,
    width: float,
    up_deg: float,
    heat: float,
    p_rank: np.ndarray,
    p_suit: np.ndarray,
    presence: float = 1.0,
    ink: float = 1.0,
) -> IndexRead:
    """An index read from its rank's and suit's probabilities (in :data:`RANKS` and
    :data:`SUITS` order): the likeliest of each named, and the likeliest cards kept."""
    r, s = int(p_rank.argmax()), int(p_suit.argmax())
    return IndexRead(
        centre,
        height,
        width,
        up_deg,
        card_of(r, s),
        float(heat * p_rank[r] * p_suit[s]),
        float(heat),
        candidates(p_rank, p_suit),
        float(presence),
        float(ink),
    )


def card_of(rank: int, suit: int) -> Card | None:
    """The card a rank class and a suit class name; None when they disagree (a joker's rank with
    a suit, or a rank with a joker)."""
    if (RANKS[rank] == "X") != (suit >= 4):
        return None
    return Card.from_str(SUITS[suit] if suit >= 4 else RANKS[rank] + SUITS[suit])


def candidates(p_rank: np.ndarray, p_suit: np.ndarray, keep: int = 4) -> tuple[tuple[Card, float], ...]:
    """The ``keep`` likeliest cards, best first, each with its probability (rank x suit)."""
    joint = p_rank[:, None] * p_suit[None, :]
    order = np.argsort(joint, axis=None)[::-1]
    out = []
    for flat in order:
        r, s = divmod(int(flat), len(SUITS))
        card = card_of(r, s)
        if card is not None:
            out.append((card, float(joint[r, s])))
        if len(out) == keep:
            break
    return tuple(out)


def softmax(x: np.ndarray) -> np.ndarray:
    """Logits as probabilities, along the first axis."""
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def normalised(p: np.ndarray) -> np.ndarray:
    """``p`` scaled to sum to 1 (even, where it is all zero)."""
    total = float(p.sum())
    return p / total if total > 0 else np.full_like(p, 1 / len(p))


def share_in_view(read: IndexRead, shape: tuple[int, ...]) -> float:
    """The share of ``read``'s box (its height along its up direction, its width across) that lies
    inside an image of ``shape``, from a 9 x 9 grid of points over the box."""
    h, w = shape[:2]
    reach = math.hypot(read.height, read.width) / 2  # no point of the box lies further from its centre
    x, y = read.centre
    if reach <= x and x + reach < w and reach <= y and y + reach < h:
        return 1.0  # most reads: the grid is for the few near an edge
    steps = np.linspace(-0.5, 0.5, 9)
    up, right = np.array(read.up), np.array((-read.up[1], read.up[0]))
    along, across = np.meshgrid(steps * read.height, steps * read.width)
    xs = read.centre[0] + along.ravel() * up[0] + across.ravel() * right[0]
    ys = read.centre[1] + along.ravel() * up[1] + across.ravel() * right[1]
    return float(np.mean((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)))


def in_view(reads: list[IndexRead], shape: tuple[int, ...], least: float = IN_VIEW) -> list[IndexRead]:
    """The reads whose index lies at least ``least`` inside an image of ``shape``: an index cut off
    by the image's edge is no index, as the network was taught (a card there is read from its
    other corner, if that is in view)."""
    return [r for r in reads if share_in_view(r, shape) >= least]
