"""Which card reader the camera uses: the generic one (any ordinary deck, out of the box) or a
deck's own index templates with the generic reader behind them (the project's faces, a Debian
design, or an enrolled deck's folder: :class:`vision.enrolled.EnrolledReader`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ReaderError(ValueError):
    """The deck named for the camera cannot be loaded (the message says why)."""


def reader_for(deck: str | None) -> Any:
    """``None``: the generic reader; ``project``, a design name, or an enrolled deck's folder."""
    if deck is None:
        from vision.reader import GenericReader

        return GenericReader()
    from simulators.card_faces import all_faces
    from vision.classify import IndexTemplates, TemplateError
    from vision.decks import DECKS, DeckError, deck_faces
    from vision.enrol import EnrolError, load_deck
    from vision.enrolled import EnrolledReader

    try:
        if deck == "project":
            faces = all_faces()
        elif deck in DECKS:
            faces = deck_faces(deck)
        else:
            faces = load_deck(Path(deck))
        return EnrolledReader(IndexTemplates.from_faces(faces))
    except (DeckError, TemplateError, EnrolError) as exc:
        raise ReaderError(str(exc)) from None
