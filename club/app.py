"""The club's page and API (FastAPI): every table live, each match's record, standings, rounds,
exports; control actions (a round, a flag) need the club's token. docs/club.md lists the routes.
``/api/live`` is a WebSocket telling a page which tables changed as soon as the intake committed
them (``club/live.py``): public, as the page's other reads are."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from club import store
from club.db import DatabaseError
from club.intake import Intake
from club.live import LiveFeed
from club.rounds import RoundError
from club.service import Club, NotFound, RoundRequest
from club.settings import NAME
from club.token import token_matches

STATIC = Path(__file__).with_name("static")
TableName = Annotated[str, PathParam(pattern=NAME.pattern, description="the table's name")]
MatchNumber = Annotated[int, PathParam(ge=1, le=2**31 - 1)]
_Entrant = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]


class RoundBody(BaseModel):
    """A new round. Entrants, tables, seats and sides default to the last round's."""

    model_config = ConfigDict(extra="forbid")
    method: Literal["rotation", "swiss"]
    entrants: list[_Entrant] | None = Field(default=None, max_length=2000)
    tables: list[Annotated[str, Field(pattern=NAME.pattern)]] | None = Field(default=None, max_length=1000)
    seats: int | None = Field(default=None, ge=2, le=6)
    sides: int | None = Field(default=None, ge=2, le=6)


class FlagBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$")


def create_app(club: Club, token: str, intake: Intake | None = None) -> FastAPI:
    feed = LiveFeed(club.table_views)
    if intake is not None:
        intake.on_stored = feed.changed  # the intake runs in this process: told after each commit

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        running = asyncio.create_task(feed.run())
        try:
            yield
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            club.close()  # the database connections kept between requests

    app = FastAPI(title=f"Croupier club {club.name}", docs_url="/docs", redoc_url=None, lifespan=lifespan)

    def control(request: Request) -> None:
        header = request.headers.get("authorization", "")
        given = header[7:] if header.lower().startswith("bearer ") else None
        if not token_matches(token, given):
            raise HTTPException(
                401,
                "this action needs the club's token (Authorization: Bearer <token>)",
                headers={"WWW-Authenticate": "Bearer"},
            )

    Control = Depends(control)

    @app.exception_handler(DatabaseError)
    def _database(request: Request, exc: DatabaseError) -> Response:
        return PlainTextResponse(str(exc), status_code=503)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        with club.connection() as conn:
            stored = store.message_count(conn, club.name)
        return {"club": club.name, "broker": intake is not None and intake.subscribed.is_set(), "messages": stored}

    @app.get("/api/tables")
    def tables() -> list[dict[str, Any]]:
        return club.tables()

    @app.websocket("/api/live")
    async def live(socket: WebSocket) -> None:
        """``{"tables": [...]}`` each time tables change: each as ``/api/tables`` gives it, with
        ``latest``, its latest message stored (``{"match", "seq"}``, or null for a status)."""
        await socket.accept()
        with feed.watcher() as updates:
            hears = asyncio.create_task(_until_closed(socket))
            try:
                while not hears.done():
                    got = asyncio.create_task(updates.get())
                    await asyncio.wait({got, hears}, return_when=asyncio.FIRST_COMPLETED)
                    if not got.done():
                        got.cancel()
                        break
                    update = got.result()
                    if update is None:  # too slow to take its updates: it reconnects and reads afresh
                        await socket.close(1013, "too slow for the live updates; reconnect")
                        break
                    await socket.send_json(update)
            except (WebSocketDisconnect, RuntimeError):  # the page went away while being sent to
                pass
            finally:
                hears.cancel()

    @app.get("/api/tables/{table}/matches")
    def matches(table: TableName) -> list[dict[str, Any]]:
        with club.connection() as conn:
            return [r.summary() for r in club.records(conn, table)]

    @app.get("/api/tables/{table}/matches/{match}")
    def match(table: TableName, match: MatchNumber) -> dict[str, Any]:
        record = _found(lambda: club.match(table, match))
        return {**record.summary(), "report": record.report, "in_play": record.in_play}

    @app.get("/api/tables/{table}/matches/{match}/log")
    def match_log(table: TableName, match: MatchNumber) -> Response:
        record = _found(lambda: club.match(table, match))
        if record.log is None:
            raise HTTPException(409, f"match {match} of table {table}: {record.problem}")
        from club.exports import table_log_text

        name = f"{club.name}-{table}-{match}.json"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(table_log_text(record), media_type="application/json", headers=headers)

    @app.get("/api/tables/{table}/next-seating")
    def next_seating(table: TableName) -> dict[str, Any]:
        return _found(lambda: club.next_seating(table))

    @app.get("/api/standings")
    def standings() -> list[dict[str, Any]]:
        return club.standings()

    @app.get("/api/results.csv")
    def results() -> Response:
        headers = {"Content-Disposition": f'attachment; filename="{club.name}-results.csv"'}
        return Response(club.results_csv(), media_type="text/csv; charset=utf-8", headers=headers)

    @app.get("/api/rounds")
    def rounds() -> list[dict[str, Any]]:
        return [_round_json(r) for r in club.rounds()]

    @app.post("/api/rounds", dependencies=[Control], status_code=201)
    def start_round(body: RoundBody) -> dict[str, Any]:
        try:
            return _round_json(club.start_round(RoundRequest(**body.model_dump())))
        except RoundError as exc:
            raise HTTPException(422, str(exc)) from None

    @app.post("/api/tables/{table}/flag", dependencies=[Control], status_code=204)
    def flag(table: TableName, body: FlagBody) -> None:
        club.flag(table, body.reason)
        feed.changed({table: None})

    @app.delete("/api/tables/{table}/flag", dependencies=[Control], status_code=204)
    def unflag(table: TableName) -> None:
        _found(lambda: club.unflag(table))
        feed.changed({table: None})

    @app.get("/api/rejected")
    def rejected() -> list[dict[str, Any]]:
        with club.connection() as conn:
            return store.rejected(conn)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _until_closed(socket: WebSocket) -> None:
    """Read (and ignore) what the page sends until it goes: a page only listens."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            await socket.receive_text()


def _found(get):  # type: ignore[no-untyped-def]
    try:
        return get()
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None


def _round_json(r: store.StoredRound) -> dict[str, Any]:
    return {
        "round": r.number,
        "method": r.method,
        "seats": r.seats,
        "sides": r.sides,
        "started_at": r.started_at.isoformat() if r.started_at else None,
        "tables": r.seating,
    }
