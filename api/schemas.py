"""The request bodies of the API: strict pydantic models, so bad input is a 422 naming the field.

Types are strict (a seat is a JSON integer, not "2" nor 2.0 nor true) and unknown fields are
refused, as in the table log. What a model cannot know (how many seats this game has, which
calls it uses, which cards a seat holds) the referee checks, with its own words.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidationInfo,
)

from engine.game import SCORE_LIMIT
from engine.options import shown
from engine.seat_names import MAX_NAME, MAX_SEATS

Seat = Annotated[
    StrictInt, Field(ge=0, le=7, description="a seat, 0 to players - 1, clockwise; a JSON integer (2, not 2.0)")
]
CardCode = Annotated[
    StrictStr,
    StringConstraints(pattern=r"^(?i:[AKQJT98765432][SHDC]|BJ|LJ)$"),
    Field(description="a card: rank then suit (TH), or a joker (BJ, LJ)", examples=["TH"]),
]
CardList = Annotated[list[CardCode], Field(max_length=60)]
Name = Annotated[str, StringConstraints(max_length=40)]


def _numbers_within_bounds(values: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """No option, score, pool or chip count of any game comes near a billion: a number beyond is
    refused here, naming it; the referee then holds each to its own bounds, and names those.
    (Unbounded, a number of thousands of digits could not even be written back to the page.)"""
    for name, value in values.items():
        for number in value if isinstance(value, list) else (value,):
            if type(number) is int and not -SCORE_LIMIT <= number <= SCORE_LIMIT:
                where = f"{info.field_name}.{name}"
                raise ValueError(f"'{where}' must be from {-SCORE_LIMIT} to {SCORE_LIMIT}, not {shown(number)}")
    return values


Options = Annotated[
    dict[Name, StrictBool | StrictInt | StrictStr], Field(max_length=20), AfterValidator(_numbers_within_bounds)
]
Start = Annotated[
    dict[Name, Annotated[list[StrictInt], Field(max_length=8)] | StrictInt],
    Field(max_length=8),
    AfterValidator(_numbers_within_bounds),
]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallBody(Body):
    seat: Seat
    call: Annotated[StrictStr, StringConstraints(min_length=1, max_length=16)] = Field(examples=["pass", "4high"])


class DeclareBody(Body):
    seat: Seat
    trump: Annotated[StrictStr, StringConstraints(pattern=r"^[SHDCshdc]$")] | None = None
    direction: Literal["high", "low"] | None = None


class DiscardBody(Body):
    seat: Seat
    cards: CardList


class JokerSwapBody(Body):
    seat: Seat
    joker: CardCode
    card: CardCode | None = Field(default=None, description="the kitty card taken; null declines the swap")


class PlayBody(Body):
    seat: Seat
    card: CardCode


class CorrectBody(Body):
    card: CardCode = Field(description="the card that was really played")
    seat: Seat | None = Field(default=None, description="the seat that played it (default: as recorded)")


class DealBody(Body):
    dealer: Seat | None = None
    hands: Annotated[list[CardList], Field(max_length=8)] | None = Field(
        default=None, description="a predetermined deal, one card list per seat; omit to shuffle here"
    )
    rest: CardList | None = None


class PauseBody(Body):
    reason: Annotated[StrictStr, StringConstraints(min_length=1, max_length=200)] = "paused at the table"


class StartMatchBody(Body):
    game: Literal["poley", "shelem", "fifty-six", "bid-whist", "nap"]
    players: Annotated[StrictInt, Field(ge=2, le=8)] | None = None
    options: Options = {}
    start: Start | None = Field(default=None, description="the standing carried over from a score sheet")


class SeatingBody(Body):
    names: Annotated[list[Annotated[StrictStr, StringConstraints(max_length=64)]], Field(max_length=MAX_SEATS)] = Field(
        default=[],
        description=f"one name per seat from seat 0, at most {MAX_NAME} characters each; an empty name (or a "
        "seat past the list's end) goes by its compass point (North, East, ...)",
        examples=[["Anna", "Ben", "", "Dora"]],
    )
    letters: StrictBool = Field(default=False, description="Fifty-Six: write J 9 A 10 K Q as the sheet's P M S D N R")


class ActionResponse(BaseModel):
    accepted: bool
    applied: bool = Field(description="false when a violation was recorded but not applied (revoke policy reject)")
    index: int | None
    violation: dict[str, Any] | None
    seq: int
    state: dict[str, Any]


class DealingStarted(BaseModel):
    accepted: bool
    dealing: bool = Field(description="the dealing machine has started; its progress follows on the WebSocket")
    state: dict[str, Any]


class Refusal(BaseModel):
    """Every refusal (4xx, 503): what was wrong, in words."""

    detail: str = Field(examples=["the table is paused (the dealer jammed): resume it first"])


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where: 'body', 'path' or 'query', then the field's path")
    msg: str


class InvalidRequest(Refusal):
    """A 422: ``detail`` names the first fault in words; ``errors`` lists every fault of a body or
    parameter of the wrong shape (it is absent when the referee, not the shape, refused the event)."""

    errors: list[FieldError] = Field(default_factory=list)
