"""The club service's settings: ``croupier club serve`` options, else ``CROUPIER_CLUB_*`` variables.

Every setting is checked here, once, with a message naming it: a club's operator types these."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

NAME = re.compile(r"^[a-z0-9-]{1,32}$")  # a club's or a table's name (docs/club-protocol.md)


class ClubSettingsError(ValueError):
    """A setting the club service cannot use; the message names it."""


class ClubSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CROUPIER_CLUB_", extra="forbid", frozen=True)

    club: str = "club"
    broker: str = "mqtt://127.0.0.1:1883"  # mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)
    broker_ca: Path | None = None  # the CA file that signed the broker's certificate (mqtts); None: the system's
    username: str = "club"
    password: str | None = None
    password_file: Path | None = None  # the password in a file (kept out of the process list)
    client_id: str | None = None  # the broker session's fixed id; default croupier-club-<club>
    database: str = "postgresql:///croupier"  # a libpq connection string or URI
    host: str = "127.0.0.1"
    port: int = Field(default=8100, ge=1, le=65535)
    token_file: Path = Path("club-token")  # the club's control token (made, mode 0600, if missing)

    @field_validator("club")
    @classmethod
    def _club_name(cls, value: str) -> str:
        if not NAME.fullmatch(value):
            raise ValueError(f"{value!r} is not a club name: 1-32 characters from a-z, 0-9 and -")
        return value

    @field_validator("broker")
    @classmethod
    def _broker_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f"{value!r} is not a broker URL: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        try:
            parts.port  # noqa: B018  (raises on a port that is not a number in range)
        except ValueError:
            raise ValueError(f"{value!r} has no valid port") from None
        return value

    @model_validator(mode="after")
    def _one_password(self) -> ClubSettings:
        if self.password is not None and self.password_file is not None:
            raise ValueError("give the password or password_file, not both")
        if self.broker_ca is not None and not self.tls:
            raise ValueError("broker_ca is for an mqtts:// broker")
        return self

    @property
    def tls(self) -> bool:
        return urlsplit(self.broker).scheme == "mqtts"

    @property
    def broker_host(self) -> str:
        return str(urlsplit(self.broker).hostname)

    @property
    def broker_port(self) -> int:
        return urlsplit(self.broker).port or (8883 if self.tls else 1883)

    @property
    def session_id(self) -> str:
        return self.client_id or f"croupier-club-{self.club}"

    def broker_password(self) -> str | None:
        """The broker password, read from its file if it is kept in one."""
        if self.password_file is None:
            return self.password
        try:
            return self.password_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ClubSettingsError(f"cannot read password_file {self.password_file}: {exc.strerror}") from None


def load_club_settings(**given: object) -> ClubSettings:
    """Settings from the options given (None: not given), the rest from the environment."""
    try:
        return ClubSettings(**{name: value for name, value in given.items() if value is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "settings"
        raise ClubSettingsError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None
