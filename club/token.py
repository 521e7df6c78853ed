"""The club's control token: made once, kept in a file only its owner may read, compared in
constant time. Reading the club's page needs nothing; every control action needs the token,
sent as ``Authorization: Bearer <token>``."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

TOKEN_BYTES = 32


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
    token = secrets.token_urlsafe(TOKEN_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, True


def token_matches(expected: str, given: str | None) -> bool:
    """Whether the token given is the club's, in time that does not depend on where they differ."""
    if given is None:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))
