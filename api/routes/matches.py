"""Matches: start one (token), the history, and any match's table log."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from api.auth import CONTROL, READ
from api.errors import refusals
from api.routes import done, runtime_of
from api.routing import TableRoute
from api.schemas import StartMatchBody

router = APIRouter(prefix="/api/matches", tags=["matches"], route_class=TableRoute)


@router.get("", dependencies=READ, responses=refusals(401, 503))
async def history(request: Request) -> list[dict[str, Any]]:
    """Every match in the journal, oldest first; ``current`` marks the one at the table."""
    return await done(runtime_of(request).matches())


@router.post("", dependencies=CONTROL, status_code=201, responses=refusals(401, 409, 413, 422, 503))
async def start(request: Request, body: StartMatchBody) -> dict[str, Any]:
    """Start a match (the previous one stays in the journal). 422 for an unknown option or player count."""
    runtime = runtime_of(request)
    match_id = await done(runtime.start_match(body.game, body.players, body.options, body.start))
    snapshot = await done(runtime.snapshot())
    return {"match_id": match_id, "seq": snapshot["seq"], "state": snapshot["state"]}


@router.get("/{match_id}/log", dependencies=READ, responses=refusals(401, 404, 422, 503))
async def export(request: Request, match_id: int) -> dict[str, Any]:
    """The match as a table log (``docs/table-log.md``). A hand still in progress is left out:
    the log then ends after the last hand that has ended, and replays with ``croupier referee``."""
    return await done(runtime_of(request).export(match_id))
