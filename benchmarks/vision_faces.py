"""Single cards as the reader receives them: a deck's faces seen small, turned, blurred, noisy,
under glare and tinted light, then warped to the canonical card from a slightly wrong outline.

Shared by the vision tests (small seeded sets) and ``croupier bench vision`` (larger ones), and
scored per card: precision (right identity over reported cards) and recall (over cards shown).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.cards import Card
from vision.classify import CardRead
from vision.detect import CardQuad, warp_card

_TABLE = (40, 90, 30)  # green felt, BGR


def seen_faces(faces: list[tuple[Card, np.ndarray]], rounds: int, seed: int = 0) -> Iterator[tuple[Card, np.ndarray]]:
    """Every face ``rounds`` times, each time differently degraded: (card, warped canonical BGR)."""
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        for card, face in faces:
            yield card, seen_once(face, rng)


def seen_once(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One face through a camera: 90-250 px tall, turned any way, blurred, noisy, tinted light,
    glare in one case of three, and an outline up to 2 px off at each corner."""
    height = rng.uniform(90, 250)
    scale = height / face.shape[0]
    w, h = face.shape[1] * scale, face.shape[0] * scale
    size = round(1.6 * h)
    angle = rng.uniform(0, 2 * np.pi)
    centre = np.array([size / 2, size / 2])
    half = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = half @ turn.T + centre
    src = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]], np.float32)
    # The face is shrunk with area averaging first, as a sensor integrates light, then placed.
    small = cv2.resize(face, (max(1, round(w)), max(1, round(h))), interpolation=cv2.INTER_AREA)
    src = src * np.float32(small.shape[1] / face.shape[1])
    m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    frame = np.empty((size, size, 3), np.float32)
    frame[:] = _TABLE
    placed = cv2.warpPerspective(small, m, (size, size), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.ones(small.shape[:2], np.float32), m, (size, size))[..., None]
    frame = frame * (1 - inside) + placed.astype(np.float32) * inside
    frame *= rng.uniform(0.7, 1.1) * rng.uniform(0.9, 1.1, 3)  # exposure and white balance
    if rng.random() < 1 / 3:
        frame = _glare(frame, rng, corners)
    sigma = rng.uniform(0.3, 1.2)
    frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    frame += rng.normal(0, rng.uniform(1, 5), frame.shape)
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    seen = corners + rng.uniform(-2, 2, corners.shape)
    return warp_card(frame, CardQuad(_from_short_side(seen, rng), single=True))


def _glare(frame: np.ndarray, rng: np.random.Generator, corners: np.ndarray) -> np.ndarray:
    """A soft bright spot somewhere on the card, up to a third of its width across."""
    spot = np.zeros(frame.shape[:2], np.float32)
    a, b = rng.random(2)
    centre = corners[0] + a * (corners[1] - corners[0]) + b * (corners[3] - corners[0])
    radius = rng.uniform(0.1, 0.35) * float(np.linalg.norm(corners[1] - corners[0]))
    cv2.circle(spot, (round(centre[0]), round(centre[1])), max(1, round(radius)), 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, radius / 2)) * rng.uniform(0.4, 0.8)
    return frame + (255 - frame) * spot[..., None]


def _from_short_side(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The outline as the detector gives it: from one end of a short side, either end (the
    card's top is not known), clockwise."""
    return np.roll(corners, 2 * int(rng.integers(0, 2)), axis=0)


@dataclass
class FaceScore:
    correct: int = 0
    wrong: int = 0
    unknown: int = 0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def cards(self) -> int:
        return self.correct + self.wrong + self.unknown

    @property
    def precision(self) -> float:
        reported = self.correct + self.wrong
        return self.correct / reported if reported else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.cards if self.cards else 1.0

    def add(self, truth: Card, read: CardRead) -> None:
        if read.card is None:
            self.unknown += 1
        elif read.card == truth:
            self.correct += 1
        else:
            self.wrong += 1
            self.confusions[(str(truth), str(read.card))] += 1


def score_faces(
    read: Callable[[np.ndarray], CardRead], faces: list[tuple[Card, np.ndarray]], rounds: int, seed: int = 0
) -> FaceScore:
    score = FaceScore()
    for card, seen in seen_faces(faces, rounds, seed):
        score.add(card, read(seen))
    return score


def reading_ms(read: Callable[[np.ndarray], CardRead], cards: list[np.ndarray], repeats: int = 5) -> float:
    """Milliseconds of CPU per card read (best of ``repeats`` passes; single thread). CPU time,
    not wall time: the machine is shared, and waiting for a core is not the reader's cost."""
    cv2.setNumThreads(1)
    read(cards[0])  # first-call allocations are not the steady state
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for c in cards:
            read(c)
        best = min(best, (time.process_time() - start) / len(cards) * 1000)
    return best


def main(rounds: int = 5, seed: int = 0) -> None:
    """Per design: precision, recall and confusions on single seen faces, for the generic reader,
    the design's own templates alone, and the two as an enrolled deck's reader
    (:class:`vision.enrolled.EnrolledReader`), and the reading time per card."""
    from simulators.card_faces import all_faces
    from vision.classify import IndexTemplates
    from vision.decks import DECKS, deck_available, deck_faces
    from vision.enrolled import EnrolledReader
    from vision.reader import GenericReader

    generic = GenericReader()
    for name in ("project", *DECKS):
        if name != "project" and not deck_available(name):
            continue
        faces = all_faces() if name == "project" else deck_faces(name)
        seen = list(seen_faces(faces, rounds, seed))
        enrolled = EnrolledReader(IndexTemplates.from_faces(faces), generic)
        readers = {"generic": generic.read, "templates": enrolled.templates.read, "enrolled": enrolled.read}
        for label, read in readers.items():
            score = FaceScore()
            for truth, image in seen:
                score.add(truth, read(image))
            ms = reading_ms(read, [image for _, image in seen[:54]])
            confusions = ", ".join(f"{t}->{r} x{n}" for (t, r), n in score.confusions.most_common(5)) or "-"
            print(
                f"{name:16} {label:9} cards {score.cards:4}  precision {score.precision:.4f}  recall {score.recall:.4f}"
                f"  wrong {score.wrong:3}  unknown {score.unknown:3}  {ms:.2f} ms/card  {confusions}"
            )


def corner_failure(reader, image: np.ndarray, far: bool) -> str:
    """Why a corner gives no index (the steps of ``GenericReader.read_corner``), or "" if it reads."""
    from vision import reader as r

    first = next(r._index_candidates(image, far), None)  # the reader's first way of cutting the ink
    if first is None:
        return "no index"
    patch, glyphs, _ = first
    rank_box, suit_box, labels, rank_ids, suit_id, dark, paper = glyphs
    both = (min(rank_box[0], suit_box[0]), rank_box[1], max(rank_box[2], suit_box[2]), suit_box[3])
    red = r._colour(patch, labels, (*rank_ids, suit_id), paper, both)
    if red is None:
        return "colour"
    if reader.read_corner(image, far).rank:
        return ""
    rank = reader._rank(dark, labels, rank_box, rank_ids)
    if rank.score < r._RANK_SCORE:
        return "rank score"
    if rank.probability < r._RANK_SURE:
        return "rank unsure"
    return "suit score"


def _bucket(reason: str) -> str:
    for key in (
        "corners disagree",
        "one corner only",
        "body shows",
        "contradicted",
        "unsure of the suit",
        "not a card",
        "no readable index",
        "unsure",
    ):
        if key in reason:
            return key
    return reason or "?"


def failures(rounds: int = 2, seed: int = 0, only: tuple[str, ...] = ()) -> None:
    """Per design, how many unread cards fall in each bucket: the read's reason, and for each corner
    that gave no index, why (`python -m benchmarks.vision_faces why [ROUNDS [DECK...]]`)."""
    from simulators.card_faces import all_faces
    from vision.decks import DECKS, deck_available, deck_faces
    from vision.reader import GenericReader

    generic = GenericReader()
    for name in ("project", *DECKS):
        if (name != "project" and not deck_available(name)) or (only and name not in only):
            continue
        faces = all_faces() if name == "project" else deck_faces(name)
        reasons: Counter[str] = Counter()
        corners: Counter[str] = Counter()
        ranks: Counter[str] = Counter()
        total = wrong = 0
        for truth, image in seen_faces(faces, rounds, seed):
            total += 1
            read = generic.read(image)
            if read.card == truth:
                continue
            if read.card is not None:
                wrong += 1
                continue
            reasons[_bucket(read.detail)] += 1
            ranks[str(truth)[0]] += 1
            for far in (False, True):
                why = corner_failure(generic, image, far)
                if why:
                    corners[why] += 1
        print(f"{name:16} cards {total}  wrong {wrong}  unread {sum(reasons.values())}")
        print("   reads:   " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
        print("   corners: " + ", ".join(f"{k} {v}" for k, v in corners.most_common()))
        print("   ranks:   " + ", ".join(f"{k} {v}" for k, v in ranks.most_common()))


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["why"]:
        failures(int(sys.argv[2]) if len(sys.argv) > 2 else 2, only=tuple(sys.argv[3:]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
