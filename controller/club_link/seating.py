"""The club's word on who sits where at this table next (docs/club-protocol.md, ``seating``).

The publisher hands over what arrives on ``croupier/<club>/<table>/seating``; a message that
breaks the contract is refused with the reason (:class:`BadSeating`) and the table keeps what
it showed before. A valid one becomes the table's ``next_round`` (None once cleared)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

MAX_PAYLOAD = 64 * 1024  # a table of six seats says a few hundred bytes
_Text = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]


class BadSeating(ValueError):
    """A seating message that breaks the club protocol; the message says how."""


class _Seat(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    seat: Annotated[int, Field(ge=0, le=5)]
    side: Annotated[int, Field(ge=0, le=5)]
    entrant: _Text


class _Seating(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)  # fields a later version adds are not relied on
    v: Literal[1]
    club: str
    table: str
    round: Annotated[int, Field(ge=1, le=2**31 - 1)] | None
    method: str | None = None
    seats: Annotated[list[_Seat], Field(max_length=6)]

    @model_validator(mode="after")
    def _seats(self) -> _Seating:
        if self.round is None and self.seats:
            raise ValueError("a cleared seating (round null) names no seats")
        if self.round is not None and not self.seats:
            raise ValueError(f"round {self.round} names no seats")
        if len({s.seat for s in self.seats}) != len(self.seats):
            raise ValueError("a seat is named twice")
        return self


def parse_seating(payload: bytes, club: str, table: str) -> dict[str, Any] | None:
    """The table's next round (round, method, seats), or None if the club cleared it; else BadSeating."""
    if len(payload) > MAX_PAYLOAD:
        raise BadSeating(f"{len(payload)} bytes, more than {MAX_PAYLOAD}")
    try:
        seating = _Seating.model_validate(json.loads(payload))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadSeating(_reason(exc)) from None
    if (seating.club, seating.table) != (club, table):
        raise BadSeating(f"it is for table {seating.table!r} of club {seating.club!r}, not {table!r} of {club!r}")
    if seating.round is None:
        return None
    return {"round": seating.round, "method": seating.method, "seats": [s.model_dump() for s in seating.seats]}


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the message"
        return f"{where}: {first['msg']}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg} at character {exc.pos}"
    return f"not readable: {exc}"
