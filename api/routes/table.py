"""The table: its public state, and the actions entered on the page (all need the token).

An action the referee accepts answers 200 with the outcome; one that breaks a rule is
accepted too, with its violation in the body (``applied`` tells whether it stood: under the
revoke policy ``reject`` an illegal card is recorded but not applied). A malformed action (a
card the seat does not hold, a call the game does not have) is a 422 and changes nothing;
a paused table, or one with no match, answers 409.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from api.auth import CONTROL, READ
from api.errors import refusals
from api.routes import done, runtime_of
from api.routing import TableRoute
from api.schemas import (
    ActionResponse,
    CallBody,
    CorrectBody,
    DealBody,
    DealingStarted,
    DeclareBody,
    DiscardBody,
    JokerSwapBody,
    PauseBody,
    PlayBody,
    SeatingBody,
)
from controller.runtime import Result

router = APIRouter(prefix="/api", tags=["table"], route_class=TableRoute)
EVENT_REFUSALS = refusals(401, 409, 413, 422, 503)


@router.get("/table", dependencies=READ, responses=refusals(401))
async def table(request: Request) -> dict[str, Any]:
    """The table as everyone may see it: the hand in progress, the standing, the pause."""
    snapshot = await done(runtime_of(request).snapshot())
    return {"seq": snapshot["seq"], **snapshot["state"]}


async def _answer(result: Result) -> ActionResponse:
    outcome = result.outcome
    if not outcome.accepted:
        raise HTTPException(status_code=422, detail=outcome.reason or "the table refused the event")
    return ActionResponse(
        accepted=True,
        applied=result.applied,
        index=outcome.index,
        violation=outcome.violation,
        seq=result.seq,
        state=result.state,
    )


async def _event(request: Request, event: dict[str, Any]) -> ActionResponse:
    return await _answer(await done(runtime_of(request).submit(event)))


@router.post(
    "/deals",
    dependencies=CONTROL,
    response_model=None,
    responses={200: {"model": ActionResponse}, 202: {"model": DealingStarted}, **EVENT_REFUSALS},
)
async def deal(request: Request, body: DealBody) -> ActionResponse | JSONResponse:
    """A deal: the cards as entered (a predetermined deal), or, with no cards, dealt by the
    dealing machine (202: it has started; its progress follows on the WebSocket) or, with no
    machine, shuffled here."""
    if body.hands is None and body.rest is not None:
        raise HTTPException(status_code=422, detail="'rest' without 'hands': give both, or neither to shuffle")
    runtime = runtime_of(request)
    if body.hands is None and runtime.machine_deal is not None:
        state = await done(runtime.machine_deal(body.dealer))
        return JSONResponse(status_code=202, content={"accepted": True, "dealing": True, "state": state})
    result = await done(runtime.deal(body.hands, body.rest, body.dealer))
    return await _answer(result)


@router.post("/calls", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def call(request: Request, body: CallBody) -> ActionResponse:
    """A call of the auction: a bid, a pass, a double."""
    return await _event(request, {"type": "call", **body.model_dump()})


@router.post("/declare", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def declare(request: Request, body: DeclareBody) -> ActionResponse:
    """The declarer names trumps (a suit letter) or, in Bid Whist no-trump, the direction."""
    return await _event(request, {"type": "declare", **body.model_dump(exclude_none=True)})


@router.post("/discard", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def discard(request: Request, body: DiscardBody) -> ActionResponse:
    """The declarer lays away cards after taking the widow or kitty (never shown until the hand ends)."""
    return await _event(request, {"type": "discard", **body.model_dump()})


@router.post("/joker-swap", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def joker_swap(request: Request, body: JokerSwapBody) -> ActionResponse:
    """Bid Whist no-trump: a joker's holder gives it up for a kitty card, or declines (card null)."""
    return await _event(request, {"type": "joker-swap", **body.model_dump()})


@router.post("/plays", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def play(request: Request, body: PlayBody) -> ActionResponse:
    """A card played to the trick, entered by hand (the camera sends the same)."""
    return await _event(request, {"type": "play", **body.model_dump()})


@router.post("/undo", dependencies=CONTROL, responses=refusals(401, 409, 422, 503))
async def undo(request: Request) -> ActionResponse:
    """Take back the last action of the current hand."""
    return await _event(request, {"type": "undo"})


@router.post("/correct", dependencies=CONTROL, responses=EVENT_REFUSALS)
async def correct(request: Request, body: CorrectBody) -> ActionResponse:
    """ "That card was the 6 of hearts": the last play is undone and replayed as this card, in one
    step, both journalled with a note saying it was a correction."""
    return await _answer(await done(runtime_of(request).correct(body.card, body.seat)))


@router.post("/pause", dependencies=CONTROL, responses=refusals(401, 413, 422, 503))
async def pause(request: Request, body: PauseBody | None = None) -> dict[str, Any]:
    """Pause the table: every event is refused (409) until it resumes; survives a restart."""
    reason = body.reason if body is not None else PauseBody().reason
    return await done(runtime_of(request).pause(reason))


@router.post("/resume", dependencies=CONTROL, responses=refusals(401, 503))
async def resume(request: Request) -> dict[str, Any]:
    """Resume a paused table."""
    return await done(runtime_of(request).resume())


@router.post("/seating", dependencies=CONTROL, responses=refusals(401, 413, 422, 503))
async def seating(request: Request, body: SeatingBody) -> dict[str, Any]:
    """Name the seats (and choose Fifty-Six's card letters) for every screen at the table: the page,
    its alerts, the violations' sentences. Kept beside the journal for the matches to come; answers
    the table's new snapshot. A name that cannot be used is a 422 naming the seat."""
    return await done(runtime_of(request).seat(body.names, body.letters))
