"""Every refusal is a 4xx (or a 503) with a JSON ``detail`` in words, as the OpenAPI schema says
(:func:`refusals`); a body over the cap is a 413."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.routing import methods_at
from api.schemas import InvalidRequest, Refusal
from controller.runtime import BadCommand, TableRefusal
from controller.store import JournalError, JournalUnavailable
from engine.log import MalformedLog

MAX_BODY = 64 * 1024

WHEN_REFUSED = {
    401: "no control token, or a wrong one (a read needs it only when reading is closed: api.open_reading = false)",
    404: "there is no such match in the journal",
    409: "the table cannot take it now: it is paused or held by a device, no match has been started, "
    "or there is no card to correct",
    413: "the request body is larger than the limit (64 KiB)",
    422: "a body or parameter of the wrong shape (every fault in errors), "
    "or an event the referee calls malformed (no errors then)",
    503: "the journal cannot be read or written",
}


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route that may refuse with these statuses."""
    return {
        status: {"model": InvalidRequest if status == 422 else Refusal, "description": WHEN_REFUSED[status]}
        for status in statuses
    }


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_exception_handler(TableRefusal, _conflict)  # type: ignore[arg-type]
    app.add_exception_handler(BadCommand, _unprocessable)  # type: ignore[arg-type]
    app.add_exception_handler(MalformedLog, _malformed)  # type: ignore[arg-type]
    app.add_exception_handler(JournalError, _journal)  # type: ignore[arg-type]
    app.add_exception_handler(JournalUnavailable, _journal_unavailable)  # type: ignore[arg-type]
    app.add_exception_handler(405, _method_not_allowed)  # type: ignore[arg-type]


def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = [_field_error(error) for error in exc.errors()]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(part) for part in first["loc"] if part != "body") or "body"
    return JSONResponse({"detail": f"{where}: {first['msg']}", "errors": errors}, status_code=422)


def _field_error(error: dict[str, Any]) -> dict[str, Any]:
    """One fault as the schema's ``FieldError``; a body that is not JSON is named with why and where
    (FastAPI's own words are only "JSON decode error", at a position given as a field)."""
    loc = list(error.get("loc", ()))
    if error.get("type") == "json_invalid":
        reason = error.get("ctx", {}).get("error", "")
        return {"loc": ["body"], "msg": f"not JSON: {reason} (at character {loc[-1]})"}
    return {"loc": loc, "msg": str(error.get("msg", ""))}


def _method_not_allowed(request: Request, exc: HTTPException) -> JSONResponse:
    allowed = methods_at(request.app.state.api_routes, request.scope["path"])
    headers = {"Allow": ", ".join(allowed)} if allowed else exc.headers
    return JSONResponse({"detail": "Method Not Allowed"}, status_code=405, headers=headers)


def _conflict(request: Request, exc: TableRefusal) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=409)


def _unprocessable(request: Request, exc: BadCommand) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=422)


def _malformed(request: Request, exc: MalformedLog) -> JSONResponse:
    return JSONResponse({"detail": exc.reason}, status_code=422)


def _journal(request: Request, exc: JournalError) -> JSONResponse:
    missing = str(exc).startswith("there is no match")
    return JSONResponse({"detail": str(exc)}, status_code=404 if missing else 503)


def _journal_unavailable(request: Request, exc: JournalUnavailable) -> JSONResponse:
    """The disk refused a write (full, read-only, failing): the server's trouble, not the request's.
    Nothing was recorded; the same request may be sent again once the disk takes writes."""
    return JSONResponse({"detail": str(exc)}, status_code=503)


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413 when a route reads it: at once by its
    declared length, else counted as it arrives. Nothing is checked until the body is read, and a
    route reads it only after its caller's rights (``api/routing.py``): a caller without the token
    is told so (401), whatever it sent."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = self._declared(scope)
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":  # not a disconnect, which a response may listen for
                received += len(message.get("body", b""))
                if max(declared, received) > self.limit:  # received: a chunked body that did not say its length
                    raise HTTPException(status_code=413, detail=_too_large_text(self.limit))
            return message

        await self.app(scope, counted, send)

    @staticmethod
    def _declared(scope: Scope) -> int:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0


def _too_large_text(limit: int) -> str:
    return f"the request body is larger than {limit // 1024} KiB"
