"""The messages of docs/club-protocol.md, checked as they arrive from the broker.

A message that breaks the contract is refused with the reason (a :class:`BadMessage`), never
passed on: the intake stores it apart, with that reason, and carries on."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from club.settings import NAME

MAX_PAYLOAD = 1024 * 1024  # a reveal of a whole Fifty-Six hand is some kilobytes; nothing honest is near this
_TOPIC = re.compile(r"croupier/([^/]+)/([^/]+)/(events|status)")
_Name = Annotated[str, Field(pattern=NAME.pattern)]
_Count = Annotated[int, Field(ge=1, le=2**31 - 1)]  # the database's integer
_Index = Annotated[int, Field(ge=0, le=2**31 - 1)]
# Fields an event's public form never carries: they would show hidden cards, or free text.
_HIDDEN = {"hands", "rest", "cards", "note"}


class BadMessage(ValueError):
    """A message that breaks the club protocol; the message says how."""


class _Message(BaseModel):
    # Fields a later version adds are kept (the body is stored whole) but not relied on.
    model_config = ConfigDict(extra="allow", frozen=True)

    v: Literal[1]
    club: _Name
    table: _Name
    match: _Count
    seq: _Count
    at: AwareDatetime


class MatchStarted(_Message):
    kind: Literal["match"]
    game: str
    players: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    start: dict[str, Any] | None = None
    seats: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _first(self) -> MatchStarted:
        if self.seq != 1:
            raise ValueError(f"a match message is seq 1, not {self.seq}")
        return self


class PublicEvent(_Message):
    kind: Literal["event"]
    entry: _Index
    hand: _Count
    event: dict[str, Any]

    @model_validator(mode="after")
    def _public(self) -> PublicEvent:
        hidden = _HIDDEN & set(self.event)
        if hidden:
            raise ValueError(f"a public event carries {', '.join(sorted(hidden))}: hidden until its hand's reveal")
        return self


class Reveal(_Message):
    kind: Literal["reveal"]
    hand: _Count
    entries: Annotated[list[_Index], Field(min_length=1)]
    events: list[dict[str, Any]]

    @model_validator(mode="after")
    def _one_event_an_entry(self) -> Reveal:
        if len(self.entries) != len(self.events):
            raise ValueError(f"a reveal names {len(self.entries)} entries but carries {len(self.events)} events")
        if self.entries != list(range(self.entries[0], self.entries[0] + len(self.entries))):
            raise ValueError("a reveal's entries must follow one another")
        return self


class HandResult(_Message):
    kind: Literal["result"]
    hand: _Count
    score: dict[str, Any]
    over: bool


EventsMessage = Annotated[MatchStarted | PublicEvent | Reveal | HandResult, Field(discriminator="kind")]
_EVENTS = TypeAdapter(EventsMessage)


@dataclass(frozen=True, slots=True)
class Topic:
    club: str
    table: str
    kind: str  # "events" or "status"


def parse_topic(topic: str, club: str) -> Topic:
    """The topic's table and kind, if it is one of this club's topics; else BadMessage."""
    found = _TOPIC.fullmatch(topic)
    if found is None:
        raise BadMessage(f"topic {topic!r} is not croupier/<club>/<table>/events or status")
    if found[1] != club:
        raise BadMessage(f"topic {topic!r} is not this club's ({club})")
    if not NAME.fullmatch(found[2]):
        raise BadMessage(f"topic {topic!r}: the table's name is not 1-32 characters from a-z, 0-9 and -")
    return Topic(found[1], found[2], found[3])


def parse_events_message(topic: Topic, payload: bytes) -> tuple[MatchStarted | PublicEvent | Reveal | HandResult, dict]:  # type: ignore[type-arg]
    """The message on an ``events`` topic, checked, and its JSON body; else BadMessage."""
    body = _json_object(payload)
    try:
        message = _EVENTS.validate_python(body)
    except ValidationError as exc:
        raise BadMessage(_first_error(exc)) from None
    _same_table(topic, message.club, message.table)
    return message, body


def parse_status(topic: Topic, payload: bytes) -> dict:  # type: ignore[type-arg]
    """A table's status body, checked as far as the page relies on it; else BadMessage."""
    body = _json_object(payload)
    if body.get("v") != 1:
        raise BadMessage("a status message must have v 1")
    _same_table(topic, body.get("club"), body.get("table"))
    if not isinstance(body.get("online", True), bool):
        raise BadMessage("a status's online must be true or false")
    return body


def _json_object(payload: bytes) -> dict:  # type: ignore[type-arg]
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"a message of {len(payload):,} bytes, more than {MAX_PAYLOAD:,}")
    try:
        body = json.loads(payload.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, an integer of over 4,300 digits
        raise BadMessage(f"not UTF-8 JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadMessage("a message must be a JSON object")
    if _holds_nul(body):
        raise BadMessage("a text in the message holds a NUL character (\\u0000), which the club's database cannot keep")
    return body


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


def _refuse_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def _same_table(topic: Topic, club: object, table: object) -> None:
    if club != topic.club or table != topic.table:
        raise BadMessage(f"a message naming {club}/{table} on {topic.club}/{topic.table}'s topic")


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "message"
    return f"{where}: {first['msg']}"
