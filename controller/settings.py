"""Settings: one TOML file plus ``CROUPIER_*`` environment overrides.

Every section is a small pydantic model that forbids unknown keys, so a typo in the file
(``[dealer] bauds = 9600``) is an error naming the key, never a silently ignored line. Every
default runs in simulation, so a fresh checkout needs no file at all. Nested keys come from
the environment with a double underscore: ``CROUPIER_DEALER__PORT=/dev/ttyUSB0``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from engine.errors import EngineError
from engine.games import get_game
from hardware.config import PanelConfig


class SettingsError(ValueError):
    """The settings file or environment holds something the table cannot use."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DealerSettings(_Section):
    port: str = "sim"  # "sim", a device path or a pyserial URL such as socket://127.0.0.1:7001
    baud: int = Field(default=115200, gt=0)
    speed: float = Field(default=1.0, gt=0)  # the simulated machine's speed factor


class CameraSettings(_Section):
    source: str = "sim"  # "sim", "none", "picamera2", "uvc:0", "file:clip.mp4", "folder:DIR", "still:IMAGE"
    model: Path | None = (
        None  # None: the card reader shipped in vision/models; or a retrained indices.onnx (reader.onnx beside it)
    )
    width: int = Field(default=1280, gt=0)
    height: int = Field(default=720, gt=0)
    fps: float = Field(default=10.0, gt=0, le=120)  # a camera's fixed frame rate (the tracker needs a few a second)
    exposure_us: int = Field(default=8000, gt=0, le=1_000_000)  # fixed: the light the reader sees must not drift
    # A red card's index must show red ink (vision/ink.py); false for a deck that prints
    # diamonds or hearts in another colour than red.
    check_ink: bool = True


class StoreSettings(_Section):
    path: Path = Path("croupier.db")


class ApiSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    open_reading: bool = True  # anyone on the network may read the table; actions need the token
    # The server's limits (controller/server_limits.py): what keeps one client from stopping it.
    max_connections: int = Field(default=1000, ge=1)  # open connections of all clients together
    max_connections_per_client: int = Field(default=50, ge=1)  # ... of one address (a page uses a few)
    request_timeout: float = Field(default=10.0, gt=0, le=3600)  # seconds to send a whole request
    keep_alive_timeout: float = Field(default=5.0, gt=0, le=3600)  # seconds an idle connection is kept

    @model_validator(mode="after")
    def _per_client_within_all(self) -> ApiSettings:
        if self.max_connections_per_client > self.max_connections:
            raise ValueError(
                f"max_connections_per_client ({self.max_connections_per_client}) is more than "
                f"max_connections ({self.max_connections})"
            )
        return self


class TableSettings(_Section):
    game: str = "poley"
    players: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("game")
    @classmethod
    def _known_game(cls, name: str) -> str:
        get_game(name)  # raises BadNotation naming the known games
        return name

    @model_validator(mode="after")
    def _valid_for_the_game(self) -> TableSettings:
        game = get_game(self.game)
        if self.players is not None and self.players not in game.seat_counts:
            raise ValueError(
                f"{game.title} is played by {', '.join(map(str, game.seat_counts))} players, not {self.players}"
            )
        game.options(self.options, self.players or game.default_players())
        return self


NAME = re.compile(r"[a-z0-9-]{1,32}")  # a club's or a table's name (docs/club-protocol.md)
BROKER_PORTS = {"mqtt": 1883, "mqtts": 8883}


class ClubSettings(_Section):
    """Where the table publishes what it journals (docs/club-protocol.md); the section is left out
    of a table that belongs to no club, and then nothing is published."""

    broker: str  # mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)
    club: str
    table: str
    username: str | None = None  # the table's user at the broker; default: the table's name
    password: SecretStr | None = None
    password_file: Path | None = None  # the password in a file of its own (kept out of croupier.toml)
    ca_file: Path | None = None  # mqtts: the CA that signed the broker's certificate; default: the system's CAs
    cert_file: Path | None = None  # mqtts: the table's own certificate, for a broker that asks for one
    key_file: Path | None = None  # ... and its private key, if it is not in cert_file
    reconnect_max_s: float = Field(default=30.0, gt=0, le=3600)  # the longest wait between two tries to connect

    @field_validator("broker")
    @classmethod
    def _broker_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in BROKER_PORTS or not parts.hostname:
            raise ValueError(f"{url!r} is not a broker URL: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        if parts.username is not None or parts.password is not None:
            raise ValueError(f"{url!r}: give the credentials as username and password, not in the URL")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"{url!r}: a broker URL is mqtt://HOST[:PORT] with nothing after the port")
        try:
            parts.port  # noqa: B018  (raises on a port that is not a number from 0 to 65535)
        except ValueError:
            raise ValueError(f"{url!r} has no valid port") from None
        return url

    @field_validator("club", "table")
    @classmethod
    def _name(cls, name: str) -> str:
        if not NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a name of 1-32 characters from a-z, 0-9 and -")
        return name

    @field_validator("ca_file", "cert_file", "key_file")
    @classmethod
    def _readable(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_file():
            raise ValueError(f"{path} is not a file")
        return path

    @model_validator(mode="after")
    def _credentials_and_tls(self) -> ClubSettings:
        if (self.password is None) == (self.password_file is None):
            raise ValueError("give the broker's password as password or as password_file (one of them)")
        if not self.tls and (self.ca_file or self.cert_file or self.key_file):
            raise ValueError("ca_file, cert_file and key_file are for an mqtts:// broker (TLS)")
        if self.key_file is not None and self.cert_file is None:
            raise ValueError("key_file needs the cert_file it belongs to")
        if self.password_file is not None:
            self.secret()  # an unreadable or empty file is said now, not at the first connection
        return self

    @property
    def tls(self) -> bool:
        return urlsplit(self.broker).scheme == "mqtts"

    @property
    def host(self) -> str:
        return str(urlsplit(self.broker).hostname)

    @property
    def port(self) -> int:
        parts = urlsplit(self.broker)
        return parts.port or BROKER_PORTS[parts.scheme]

    @property
    def user(self) -> str:
        return self.username or self.table

    def secret(self) -> str:
        """The broker's password (from password_file if it is given there)."""
        if self.password is not None:
            return self.password.get_secret_value()
        assert self.password_file is not None
        try:
            text = self.password_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"password_file {self.password_file} cannot be read: {exc}") from None
        if not text:
            raise ValueError(f"password_file {self.password_file} is empty")
        return text


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CROUPIER_", env_nested_delimiter="__", extra="forbid", frozen=True)

    dealer: DealerSettings = DealerSettings()
    camera: CameraSettings = CameraSettings()
    panel: PanelConfig = PanelConfig()
    store: StoreSettings = StoreSettings()
    api: ApiSettings = ApiSettings()
    table: TableSettings = TableSettings()
    club: ClubSettings | None = None  # publishing to a club's broker; none: the table publishes nothing

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The file's values arrive as init values; the environment ranks above them.
        return (env_settings, init_settings)


LOCAL_FILE = Path("croupier.toml")  # read from the folder croupier starts in, when no file is given


def load_settings(path: Path | None = None) -> Settings:
    """Settings from ``path`` (else ``./croupier.toml`` when there is one) and the environment;
    SettingsError names the problem."""
    if path is None and LOCAL_FILE.is_file():
        path = LOCAL_FILE
    values = _read_toml(path) if path is not None else {}
    try:
        return Settings(**values)
    except ValidationError as exc:
        raise SettingsError(_describe(exc, path)) from None
    except EngineError as exc:
        raise SettingsError(f"{path or 'settings'}: {exc}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"cannot read the settings file {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path} is not valid TOML: {exc}") from None


def _describe(exc: ValidationError, path: Path | None) -> str:
    """The first problem, naming the key as it is written in the file."""
    error = exc.errors()[0]
    key = ".".join(str(part) for part in error["loc"]) or "settings"
    where = f"{path}: " if path is not None else ""
    if error["type"] == "extra_forbidden":
        return f"{where}unknown setting '{key}'"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}setting '{key}': {message}"
