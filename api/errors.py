"""Every refusal is a 4xx with a JSON ``detail`` in words; a body over the cap is a 413."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.runtime import BadCommand, TableRefusal
from controller.store import JournalError
from engine.log import MalformedLog

MAX_BODY = 64 * 1024


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_exception_handler(TableRefusal, _conflict)  # type: ignore[arg-type]
    app.add_exception_handler(BadCommand, _unprocessable)  # type: ignore[arg-type]
    app.add_exception_handler(MalformedLog, _malformed)  # type: ignore[arg-type]
    app.add_exception_handler(JournalError, _journal)  # type: ignore[arg-type]


def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))} for e in exc.errors()]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(part) for part in first["loc"] if part != "body") or "body"
    return JSONResponse({"detail": f"{where}: {first['msg']}", "errors": errors}, status_code=422)


def _conflict(request: Request, exc: TableRefusal) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=409)


def _unprocessable(request: Request, exc: BadCommand) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=422)


def _malformed(request: Request, exc: MalformedLog) -> JSONResponse:
    return JSONResponse({"detail": exc.reason}, status_code=422)


def _journal(request: Request, exc: JournalError) -> JSONResponse:
    missing = str(exc).startswith("there is no match")
    return JSONResponse({"detail": str(exc)}, status_code=404 if missing else 503)


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
