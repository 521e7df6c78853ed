"""Temporal voting: cards count as played only when seen the same, still, for several frames.

The tracker follows every card read in a seat's zone from frame to frame by identity and position
(mat millimetres). A candidate becomes a :class:`CardPlayed` event only after ``stable_frames``
consecutive frames in which it was read identically, did not move, and its zone was not busy (no
motion, no hand over it). So a hand passing over, a card slid across zones into place, a blurred
frame or a single misread never create or change an event: each of them breaks a streak, and only
a streak makes an event. An event, once made, is never changed.

Each seat plays one card per trick, so a seat's zone takes one event per trick; two identical
cards (a double pack) in two zones are two tracks apart by position, and their events come in the
order they settled. The trick is cleared (:class:`TrickCleared`) when every seat zone has been
seen empty and quiet for ``clear_frames`` frames after at least one card was played.

Plays come out in the order the cards were put down, not the order they were read: a card that
settles while another seat's zone still holds a card put down before it but not yet read (a
glare, a blur, a reader unsure of it) waits for that one. Otherwise the referee would hear a
later seat first and refuse its card as out of turn: a false accusation for a misread. The wait
ends when the earlier card is read and played, when it goes, or after ``max_hold_frames``.

A card the referee refused (played out of turn, or a revoke under the revoke policy ``reject``) is
*withdrawn*: its seat may play another card in the same trick, and the refused card, while it lies
there, never counts again; put down again (it moved), it is a new play.

Cards first seen in the same frame (two put down while a hand hid both, or a ring of pale table
that hid the mat until it broke) cannot be told apart by when they were put down; they come out
in the order of ``turn`` when the referee gives it (the seats' zones in the order they are due to
play), and otherwise in the order they were read.

The tracker needs no knowledge of the game to be right; ``allowed`` (the cards each seat may still
hold, from the referee) can only make it stricter: a read outside it is ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.cards import Card
from vision.observe import FrameObservation, Observed

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card settled in a seat's zone."""

    seat: str
    card: Card
    frame: int
    centre_mm: tuple[float, float]


@dataclass(frozen=True, slots=True)
class TrickCleared:
    """The seat zones emptied after a trick: the cards played in it, in order."""

    frame: int
    cards: tuple[Card, ...]


Event = CardPlayed | TrickCleared


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    stable_frames: int = 4  # identical, still, unoccluded reads before a card counts
    clear_frames: int = 6  # empty, quiet frames before a trick counts as cleared
    still_mm: float = 4.0  # a card moving less than this between frames is still
    same_card_mm: float = 25.0  # a read this close to a track, of the same card, continues it
    min_confidence: float = 0.5
    max_hold_frames: int = 100  # a play waits at most this long for an earlier card to be read


@dataclass(slots=True)
class _Track:
    card: Card
    zone: str
    centre_mm: tuple[float, float]
    streak: int = 1
    missed: int = 0
    refused: bool = False  # withdrawn by the referee: never settles again unless it moves
    since: int = 0  # the frame it was first seen (read) there


@dataclass(slots=True)
class _Trick:
    played: dict[str, CardPlayed] = field(default_factory=dict)  # seat zone -> its event
    empty_frames: int = 0
    complete: bool = False  # the referee said so: the next card in an emptied zone starts a new trick


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)


class Tracker:
    """Feed it every :class:`FrameObservation` in order; it returns the events each one settles."""

    def __init__(self, seat_zones: list[str], settings: TrackerSettings | None = None) -> None:
        self.seat_zones = list(seat_zones)
        self.settings = settings or TrackerSettings()
        self._tracks: list[_Track] = []
        self._trick = _Trick()
        # Zones without a play that hold a card not read yet: since when, and when last seen so.
        self._unread: dict[str, tuple[int, int]] = {}

    def update(
        self, obs: FrameObservation, allowed: dict[str, set[Card]] | None = None, turn: Sequence[str] | None = None
    ) -> list[Event]:
        """The events ``obs`` settles. ``allowed``: the cards each seat's zone may still hold;
        ``turn``: the seats' zones in the order they are due to play (see the module's docstring)."""
        if not obs.mat_found:
            return []  # no mat, no zones: the frame says nothing, and breaks no streak
        seen = [o for o in obs.cards if o.zone in self.seat_zones]
        reads = [o for o in seen if self._usable(o, obs, allowed)]
        self._follow(reads, obs.busy, obs.index)
        self._note_unread(seen, obs)
        events: list[Event] = self._settle(obs.index, list(turn or ()))
        cleared = self._check_cleared(obs, seen)
        if cleared is not None:
            events.append(cleared)
        return events

    def trick_complete(self) -> None:
        """The referee says the trick is complete: a card that settles in a zone whose played card
        has gone starts the next trick, even if the camera never saw every zone empty and quiet
        at once (a leader quicker than the gathering)."""
        self._trick.complete = True

    def withdraw(self, zone: str) -> CardPlayed | None:
        """The referee refused the card played in ``zone``: the zone takes a new card, and the
        refused one counts again only if it is put down anew. Returns the withdrawn event."""
        event = self._trick.played.pop(zone, None)
        if event is not None:
            for track in self._tracks:
                if track.zone == zone and track.card == event.card:
                    track.refused = True
            log.info("%s in %s withdrawn (refused by the referee)", event.card, zone)
        return event

    def _usable(self, o: Observed, obs: FrameObservation, allowed: dict[str, set[Card]] | None) -> bool:
        if o.card is None or o.confidence < self.settings.min_confidence or o.zone in obs.busy:
            return False
        return allowed is None or o.zone is None or o.card in allowed.get(o.zone, {o.card})

    def _note_unread(self, seen: list[Observed], obs: FrameObservation) -> None:
        """Remember the zones without a play that hold a card not read yet (seen there as a card
        whose identity is unknown or unsure), from the frame it was first seen. A zone stays so
        while its card is seen unread, or read but not yet settled, or hidden under a hand; it is
        forgotten when it plays or when nothing has been seen there for a while."""
        for o in seen:
            if o.zone is None or o.zone in self._trick.played:
                continue
            if o.zone in obs.busy and o.zone not in self._unread:
                continue  # a card under motion or a hand is blurred, not unreadable: seen still, it counts
            if o.card is None or o.confidence < self.settings.min_confidence:
                first, _ = self._unread.get(o.zone, (obs.index, obs.index))
                self._unread[o.zone] = (first, obs.index)
        for zone, (first, last) in list(self._unread.items()):
            pending = any(t.zone == zone and not t.refused for t in self._tracks)
            if zone in self._trick.played:
                del self._unread[zone]
            elif pending or zone in obs.busy:
                self._unread[zone] = (first, obs.index)
            elif obs.index - last > 2 * self.settings.stable_frames:
                del self._unread[zone]  # it went (or was never a card)

    def _appeared(self, track: _Track) -> int:
        """The frame a track's card was first seen in its zone, read or not."""
        first, _ = self._unread.get(track.zone, (track.since, track.since))
        return min(first, track.since)

    def _waits(self, track: _Track, frame: int) -> bool:
        """Whether a card put down earlier in another zone, not read yet, must play first."""
        appeared = self._appeared(track)
        return any(
            zone != track.zone and first < appeared and frame - first <= self.settings.max_hold_frames
            for zone, (first, _) in self._unread.items()
        )

    def _follow(self, reads: list[Observed], busy: frozenset[str], frame: int) -> None:
        s = self.settings
        matched: set[int] = set()
        for o in reads:
            assert o.card is not None and o.zone is not None
            track = self._nearest(o, matched)
            if track is None:
                self._tracks.append(_Track(o.card, o.zone, o.centre_mm, since=frame))
                matched.add(id(self._tracks[-1]))
                continue
            matched.add(id(track))
            still = _distance(track.centre_mm, o.centre_mm) <= s.still_mm and track.zone == o.zone
            track.streak = track.streak + 1 if still else 1
            track.refused = track.refused and still
            track.centre_mm, track.zone, track.missed = o.centre_mm, o.zone, 0
        for track in self._tracks:
            if id(track) not in matched:
                # Unseen, misread or under a hand this frame: the streak starts again.
                track.streak, track.missed = 0, track.missed + 1
        self._tracks = [t for t in self._tracks if t.missed <= 2 * s.stable_frames]

    def _nearest(self, o: Observed, taken: set[int]) -> _Track | None:
        near = [
            t
            for t in self._tracks
            if id(t) not in taken
            and t.card == o.card
            and _distance(t.centre_mm, o.centre_mm) <= self.settings.same_card_mm
        ]
        return min(near, key=lambda t: _distance(t.centre_mm, o.centre_mm), default=None)

    def _settle(self, frame: int, turn: list[str]) -> list[Event]:
        def due(zone: str) -> int:  # how soon the zone's seat is due to play (unknown: last)
            return turn.index(zone) if zone in turn else len(turn)

        events: list[Event] = []
        # Sorted is stable: without a turn, ties stay in the order read.
        for track in sorted(self._tracks, key=lambda t: (self._appeared(t), due(t.zone))):
            if track.streak < self.settings.stable_frames or track.refused:
                continue
            if track.zone not in self._trick.played and self._waits(track, frame):
                continue  # an earlier card elsewhere is not read yet: it plays first
            held = self._trick.played.get(track.zone)
            if held is not None and self._trick.complete and not self._lies_there(held):
                events.append(self._new_trick(frame))
                held = None
            if held is None:
                event = CardPlayed(track.zone, track.card, frame, track.centre_mm)
                self._trick.played[track.zone] = event
                self._unread.pop(track.zone, None)  # read and played: it holds nothing back now
                events.append(event)
                log.info("%s played in %s (frame %d)", track.card, track.zone, frame)
            elif held.card != track.card or _distance(held.centre_mm, track.centre_mm) > self.settings.same_card_mm:
                log.warning("%s settled in %s, which already holds %s: ignored", track.card, track.zone, held.card)
        return events

    def _lies_there(self, event: CardPlayed) -> bool:
        """Whether the card of a play is still being seen (or was, a moment ago) where it was played."""
        return any(
            t.zone == event.seat
            and t.card == event.card
            and _distance(t.centre_mm, event.centre_mm) <= self.settings.same_card_mm
            for t in self._tracks
        )

    def _new_trick(self, frame: int) -> TrickCleared:
        order = sorted(self._trick.played.values(), key=lambda e: e.frame)
        self._trick = _Trick()
        self._unread = {}
        log.info("trick cleared (frame %d): the next trick began before the mat was seen clear", frame)
        return TrickCleared(frame, tuple(e.card for e in order))

    def _check_cleared(self, obs: FrameObservation, seen: list[Observed]) -> TrickCleared | None:
        trick = self._trick
        quiet = not (set(self.seat_zones) & obs.busy)
        if not trick.played or seen or not quiet:
            trick.empty_frames = 0
            return None
        trick.empty_frames += 1
        if trick.empty_frames < self.settings.clear_frames:
            return None
        order = sorted(trick.played.values(), key=lambda e: e.frame)
        self._trick = _Trick()
        self._tracks = []
        self._unread = {}
        log.info("trick cleared (frame %d)", obs.index)
        return TrickCleared(obs.index, tuple(e.card for e in order))
