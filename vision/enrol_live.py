"""Guided enrolment from the live camera: the operator shows each card of the pack once.

:class:`Enrolment` is a state machine fed one frame at a time (and the time, so that tests need
no clock). It asks for a card (:class:`Prompt`), waits until exactly one card lies still in view,
warps it upright, refuses it when it looks like a card already captured (:class:`Refused`),
otherwise keeps it (:class:`Captured`); then it waits for the mat to be clear before asking for
the next one. The faces are written as ``CODE.png`` into the deck folder as each card is
captured, the way :func:`vision.enrol.enrol_folder` writes them, so an interrupted enrolment
loses nothing and :func:`vision.enrol.load_deck` reads the folder back.

Only pixels come in: the machine never knows what the camera (or a simulated operator) meant to
show, and nothing here identifies a card by reading it, since the deck is not known yet. So the
only wrong card it can catch is one shown before (compared pixel by pixel with every capture),
and only when the two differ in rank or colour: the clubs and spades of one rank differ in fewer
pixels than two photos of one card in some designs (the project's own), and a refusal that is
wrong would leave the operator stuck.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import cv2
import numpy as np

from engine.cards import FIFTY_SIX_48, POLEY_22, STANDARD_52, WITH_JOKERS_54, Card, Suit
from vision.card_image import cards_in_view, sole_card, upright_face
from vision.cards import Recognition
from vision.enrol import EnrolError, load_deck
from vision.sources import FrameSource, SourceError

log = logging.getLogger(__name__)

# The fifty-six pack is two copies of 24 cards: a copy looks like its twin, so each is shown once.
PACKS: dict[str, tuple[Card, ...]] = {
    "standard-52": STANDARD_52,
    "with-jokers-54": WITH_JOKERS_54,
    "poley-22": POLEY_22,
    "fifty-six-48": tuple(dict.fromkeys(FIFTY_SIX_48)),
}
STILL_FRAMES = 4  # consecutive frames with the card in the same place before it is taken
CLEAR_FRAMES = 3  # consecutive frames without a card before the next one is asked for
STILL_PX = 4.0  # how far (frame pixels) an index may move between frames and the card still count as still
TIMEOUT_S = 120.0


class EnrolTimeout(EnrolError):
    """Nothing happened for too long: no card shown, or the card never taken away."""


def pack_cards(name: str) -> tuple[Card, ...]:
    """The distinct cards of a pack named as on the command line (``poley-22``)."""
    if name not in PACKS:
        raise EnrolError(f"unknown pack {name!r} (use {', '.join(PACKS)})")
    return PACKS[name]


def saved_faces(deck: Path) -> dict[Card, np.ndarray]:
    """The faces already in a deck folder (empty if there is none yet): what ``--resume`` keeps."""
    if not deck.is_dir() or not any(deck.glob("*.png")):
        return {}
    return dict(load_deck(deck))


# --- what the machine says --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prompt:
    """Show this card: the ``number``-th of ``total``."""

    card: Card
    number: int
    total: int


@dataclass(frozen=True, slots=True)
class Captured:
    """The card asked for was seen still, warped and saved at ``path``; take it away."""

    card: Card
    number: int
    total: int
    path: Path


@dataclass(frozen=True, slots=True)
class Refused:
    """The card shown looks like ``looks_like``, captured before: take it away and show ``card``."""

    card: Card
    looks_like: Card

    @property
    def message(self) -> str:
        return f"that looks like the {self.looks_like} you showed before; show the {self.card}"


@dataclass(frozen=True, slots=True)
class Finished:
    """Every card of the pack is in the deck folder."""

    deck: Path
    total: int


Event = Prompt | Captured | Refused | Finished


class _Phase(Enum):
    CLEARING = "clearing"  # waiting for the mat to be clear of cards
    WAITING = "waiting"  # a card has been asked for
    DONE = "done"


# --- comparing a capture with the cards captured before ------------------------------------

_SHIFT = 8  # canonical pixels: two warps of one card differ by a pixel or two, a tilt by more
_TOLERANCE = np.ones((5, 5), np.uint8)
_DIFFERENT_INK = 0.25  # darkness difference that no neighbouring pixel explains
_SAME_CARD_MAX_PIXELS = 100  # two photos of one card: up to ~55 measured; different cards: 200+


def _darkness(face: np.ndarray) -> np.ndarray:
    """Per-channel darkness relative to the paper around it: red and black ink differ in it, and
    the light's falloff across the card cancels."""
    f = face.astype(np.float32)
    paper = cv2.GaussianBlur(cv2.dilate(f, np.ones((15, 15), np.uint8)), (0, 0), 8)
    return np.clip(1 - f / np.maximum(paper, 1), 0, 1)


def _aligned(target: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """``moving`` shifted (within ``_SHIFT`` pixels) to lie best on ``target``."""
    m = _SHIFT
    padded = cv2.copyMakeBorder(moving, m, m, m, m, cv2.BORDER_REPLICATE)
    score = cv2.matchTemplate(padded.max(axis=2), target.max(axis=2), cv2.TM_CCOEFF_NORMED)
    _, _, _, (x, y) = cv2.minMaxLoc(score)
    return padded[y : y + target.shape[0], x : x + target.shape[1]]


def differing_pixels(a: np.ndarray, b: np.ndarray) -> int:
    """How many pixels of two upright faces differ in ink beyond what a 2-pixel misalignment
    explains, in blobs (not thin lines); the smaller count of the two ways up, since a warp does
    not know which end of a card is up. Two photos of one card differ by a few; 8H and 8S by the
    colour of every pip, far more."""
    return _differing(_darkness(a), _darkness(b))


def _differing(da: np.ndarray, db_upright: np.ndarray) -> int:
    best = None
    for other in (db_upright, db_upright[::-1, ::-1]):
        db = _aligned(da, other)
        darker = np.maximum(0, da - cv2.dilate(db, _TOLERANCE)).max(axis=2)
        lighter = np.maximum(0, cv2.erode(db, _TOLERANCE) - da).max(axis=2)
        m = _SHIFT
        differ = (np.maximum(darker, lighter)[m:-m, m:-m] > _DIFFERENT_INK).astype(np.uint8)
        count = int(cv2.morphologyEx(differ, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)).sum())
        best = count if best is None else min(best, count)
    assert best is not None
    return best


def _tellable(a: Card, b: Card) -> bool:
    """Whether :func:`differing_pixels` can tell two cards apart in every design: a different rank
    or colour, yes; clubs from spades (or hearts from diamonds) of one rank, not always (the
    project's small pips differ in fewer pixels than two photos of one card do)."""
    if a.is_joker or b.is_joker:
        return True
    red = {Suit.HEARTS, Suit.DIAMONDS}
    return a.rank != b.rank or (a.suit in red) != (b.suit in red)


def most_alike(face: np.ndarray, asked: Card, inks: dict[Card, np.ndarray]) -> Card | None:
    """The card captured before (``inks``: their :func:`_darkness`) that ``face``, shown for
    ``asked``, is a picture of, or None. Only cards that can be told from ``asked`` are
    considered: a refusal must never be wrong, since the operator could not get past it."""
    ink = _darkness(face)
    scored = [(_differing(ink, other), card) for card, other in inks.items() if _tellable(card, asked)]
    close = [(n, card) for n, card in scored if n < _SAME_CARD_MAX_PIXELS]
    return min(close)[1] if close else None


# --- the state machine -------------------------------------------------------------------


def _same_place(a: Recognition, b: Recognition, tolerance_px: float) -> bool:
    """Whether a whole card lies where it lay: each of its two indices within ``tolerance_px``
    of one of the other's (in either order). The indices are what is measured; the outline drawn
    from them turns with their up direction, and a degree of it moves a corner by more."""
    ours, theirs = np.array(a.index_centres), np.array(b.index_centres)
    if ours.shape != theirs.shape:
        return False
    return any(float(np.abs(ours - t).max()) <= tolerance_px for t in (theirs, theirs[::-1]))


def _write_face(path: Path, face: np.ndarray) -> None:
    """Write to a temporary name and rename: a Ctrl-C mid-write never leaves half a face behind
    for ``--resume`` to trust."""
    ok, png = cv2.imencode(".png", face)
    part = path.with_name(path.name + ".part")  # not *.png: load_deck must never see it
    try:
        if not ok:
            raise OSError("PNG encoding failed")
        part.write_bytes(png.tobytes())
        os.replace(part, path)
    except OSError as exc:
        raise EnrolError(f"{path}: cannot be written ({exc})") from exc


class Enrolment:
    """The guided enrolment of ``cards`` into the folder ``deck``; ``known`` are faces already
    saved there (``--resume``): they are not asked for again, and new captures are checked
    against them."""

    def __init__(
        self,
        cards: Iterable[Card],
        deck: Path,
        known: dict[Card, np.ndarray] | None = None,
        timeout_s: float = TIMEOUT_S,
        still_frames: int = STILL_FRAMES,
        clear_frames: int = CLEAR_FRAMES,
        still_px: float = STILL_PX,
    ) -> None:
        self.deck = deck
        self.faces: dict[Card, np.ndarray] = dict(known or {})
        # Each face's ink is worked out once: every later capture is compared with all of them.
        self._inks = {card: _darkness(face) for card, face in self.faces.items()}
        pack = list(dict.fromkeys(cards))
        self.total = len(pack)
        self.todo = [c for c in pack if c not in self.faces]
        self.timeout_s = timeout_s
        self._still_frames, self._clear_frames, self._still_px = still_frames, clear_frames, still_px
        self._phase = _Phase.CLEARING
        self._run = 0  # consecutive frames of the current condition (still card, or clear mat)
        self._last: Recognition | None = None
        self._since: float | None = None  # when the current wait began

    @property
    def done(self) -> int:
        return self.total - len(self.todo)

    def feed(self, frame: np.ndarray, now: float) -> Event | None:
        """One frame, seen at ``now`` (seconds, any monotonic clock): what changed, if anything."""
        if self._phase is _Phase.DONE:
            return None
        if self._since is None:
            self._since = now
        found = cards_in_view(frame)
        event = self._clearing(found) if self._phase is _Phase.CLEARING else self._waiting(frame, found)
        if event is not None:
            self._since = now
        elif now - self._since > self.timeout_s:
            raise EnrolTimeout(self._timeout_message())
        return event

    def _timeout_message(self) -> str:
        seconds = f"{self.timeout_s:g} s"
        if self._phase is _Phase.WAITING:
            card = self.todo[0]
            return f"no card was shown still, alone, for {card.name()} ({card}) in {seconds}"
        return f"the mat was not cleared of cards in {seconds}"

    def _clearing(self, found: list[Recognition]) -> Event | None:
        self._run = 0 if found else self._run + 1
        if self._run < self._clear_frames:
            return None
        self._run, self._last = 0, None
        if not self.todo:
            self._phase = _Phase.DONE
            return Finished(self.deck, self.total)
        self._phase = _Phase.WAITING
        return Prompt(self.todo[0], self.done + 1, self.total)

    def _waiting(self, frame: np.ndarray, found: list[Recognition]) -> Event | None:
        # Exactly one card, its outline sure: a hand over it, or a second card, spoils it.
        quad = sole_card(frame, found)
        if quad is None:
            self._run, self._last = 0, None
            return None
        still = self._last is not None and _same_place(quad, self._last, self._still_px)
        self._run = self._run + 1 if still else 1
        self._last = quad
        if self._run < self._still_frames:
            return None
        return self._take(upright_face(frame, quad))

    def _take(self, face: np.ndarray) -> Event:
        card = self.todo[0]
        self._phase, self._run, self._last = _Phase.CLEARING, 0, None
        twin = most_alike(face, card, self._inks)
        if twin is not None:
            log.info("refused a capture for %s: it looks like %s", card, twin)
            return Refused(card, twin)
        self.deck.mkdir(parents=True, exist_ok=True)
        path = self.deck / f"{card}.png"
        _write_face(path, face)
        self.faces[card] = face
        self._inks[card] = _darkness(face)
        self.todo.pop(0)
        return Captured(card, self.done, self.total, path)


def run_enrolment(
    source: FrameSource, enrolment: Enrolment, tell: Callable[[Event], None], clock: Callable[[], float]
) -> None:
    """Feed the source's frames to the enrolment until it has every card; ``tell`` hears every
    event (the terminal, and a simulated operator, read the prompts there)."""
    frames = 0
    while True:
        frame = source.read()
        if frame is None:
            raise SourceError(f"the camera stopped delivering frames (after {frames} frames)")
        frames += 1
        event = enrolment.feed(frame, clock())
        if event is not None:
            tell(event)
            if isinstance(event, Finished):
                return
