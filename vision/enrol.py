"""Enrolment: a deck's own faces, from one photo of each card.

A photo named by the card's code (``QS.jpg``, ``TH.png``, ``BJ.png``) shows that card alone, face
up, anywhere in the frame; the card is found by its two corner indices, warped upright and kept
as that deck's face. The faces of a deck are a folder of ``CODE.png`` files, which
:func:`load_deck` reads back: ``croupier vision check --deck FOLDER`` tells how well the reader
reads them, and the training (``python -m vision.training.train --faces FOLDER``) learns from
them. The guided version, card by card from the live camera, is :mod:`vision.enrol_live`; it
writes the same folders.
"""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from engine.cards import Card
from vision.card_image import cards_in_view, sole_card, upright_face
from vision.sources import IMAGE_SUFFIXES

log = logging.getLogger(__name__)


class EnrolError(ValueError):
    """A photo or deck folder that cannot be used: which one, and why."""


def face_from_photo(photo: np.ndarray, card: Card) -> np.ndarray:
    """The one card in ``photo``, upright at the canonical size."""
    found = cards_in_view(photo)
    sole = sole_card(photo, found)
    if sole is None:
        shows = "one card partly hidden" if len(found) == 1 else f"{len(found)}"
        raise EnrolError(f"{card}: the photo must show exactly one card on its own, it shows {shows}")
    return upright_face(photo, sole)


def _card_of(path: Path) -> Card:
    try:
        return Card.from_str(path.stem)
    except ValueError as exc:  # engine's BadNotation is a ValueError: vision imports only engine.cards
        raise EnrolError(f"{path.name}: name the photo by its card's code (QS.jpg, TH.png, BJ.png)") from exc


def enrol_folder(photos: Path, out: Path) -> list[Card]:
    """Every ``CODE.<image>`` photo in ``photos`` turned into ``out/CODE.png``; the cards enrolled."""
    paths = sorted(p for p in photos.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if photos.is_dir() else []
    if not paths:
        raise EnrolError(f"{photos}: no photos of cards (CODE.jpg or CODE.png) found")
    out.mkdir(parents=True, exist_ok=True)
    enrolled = []
    for path in paths:
        card = _card_of(path)
        photo = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if photo is None:
            raise EnrolError(f"{path.name}: not an image")
        cv2.imwrite(str(out / f"{card}.png"), face_from_photo(photo, card))
        enrolled.append(card)
    log.info("enrolled %d cards into %s", len(enrolled), out)
    return enrolled


def load_deck(folder: Path) -> list[tuple[Card, np.ndarray]]:
    """The faces of an enrolled deck (a folder of ``CODE.png``)."""
    faces = []
    for path in sorted(folder.glob("*.png")) if folder.is_dir() else []:
        face = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if face is None:
            raise EnrolError(f"{path}: not an image")
        faces.append((_card_of(path), face))
    if not faces:
        raise EnrolError(f"{folder}: not an enrolled deck (no CODE.png faces)")
    return faces


def check_deck(folder: Path) -> list[tuple[Card, Card | None]]:
    """Each enrolled face laid on a plain grey table with room around it, and what the reader
    reads there: (card, card read or None)."""
    from vision.scan import scan

    results = []
    for card, face in load_deck(folder):
        h, w = face.shape[:2]
        table = np.full((2 * h, 2 * w, 3), 90, np.uint8)
        table[h // 2 : h // 2 + h, w // 2 : w // 2 + w] = face
        read = [r.card for r in scan(table) if r.card is not None]
        results.append((card, card if card in read else (read[0] if read else None)))
    return results
