"""The control token, and who may do what.

Anyone on the local network may read the table (unless ``api.open_reading`` is false); every
action needs the control token, sent as ``Authorization: Bearer <token>``. The token is made
at the first start with :func:`secrets.token_urlsafe`, kept beside the journal in a file only
its owner may read (mode 0600), and shown once, by whoever starts the server.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from fastapi import Depends, HTTPException, Request, Security, WebSocket
from fastapi.params import Depends as Dependency
from fastapi.security import HTTPBearer

TOKEN_BYTES = 32


def token_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".token")


def load_or_create_token(path: Path) -> tuple[str, bool]:
    """The token kept at ``path``, made (mode 0600) if there is none; and whether it was made."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        if path.stat().st_mode & 0o077:  # someone loosened it: only the owner may read a secret
            path.chmod(0o600)
        return token, False
    return new_token(path), True


def new_token(path: Path) -> str:
    """A new token, kept at ``path`` (mode 0600) in place of any old one: written beside it and
    renamed over it, so the file always holds a whole token."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    fresh = path.with_name(path.name + ".new")
    descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(token + "\n")
    fresh.chmod(0o600)  # O_CREAT's mode does not apply to a file that already existed
    os.replace(fresh, path)
    return token


def token_matches(given: str | None, expected: str) -> bool:
    if not given:
        return False
    return secrets.compare_digest(given.encode(), expected.encode())


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _refuse(detail: str) -> HTTPException:
    return HTTPException(status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"})


def require_control(request: Request) -> None:
    """A dependency of every action: the control token, or 401."""
    given = bearer(request.headers.get("authorization"))
    if given is None:
        raise _refuse("this action needs the control token (Authorization: Bearer <token>)")
    if not token_matches(given, request.app.state.runtime.token):
        raise _refuse("the control token is wrong")


def require_reader(request: Request) -> None:
    """A dependency of every read: open, unless the settings close reading to token holders."""
    if not request.app.state.runtime.settings.api.open_reading:
        require_control(request)


GUARDS = (require_control, require_reader)

# The token as the OpenAPI schema shows it (and /docs asks for it). It checks nothing itself
# (auto_error=False): require_control does, with its own words.
control_token = HTTPBearer(
    scheme_name="controlToken", description="the control token (croupier token shows it)", auto_error=False
)
CONTROL: list[Dependency] = [Security(control_token), Depends(require_control)]
READ: list[Dependency] = [Depends(require_reader)]


def may_read(websocket: WebSocket) -> bool:
    """The WebSocket's check: a browser cannot set headers there, so ``?token=`` also counts."""
    runtime = websocket.app.state.runtime
    if runtime.settings.api.open_reading:
        return True
    given = bearer(websocket.headers.get("authorization")) or websocket.query_params.get("token")
    return token_matches(given, runtime.token)
