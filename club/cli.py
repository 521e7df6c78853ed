"""``croupier club serve``: the club service's command. Registered on the table's command line by
``controller/cli.py``; it imports only typer here, and the broker's and database's libraries only
when it runs, so the table's own commands never load them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

_ENV = "CROUPIER_CLUB_"


def _option(name: str, help: str, **more: object) -> object:
    return typer.Option(help=help, envvar=_ENV + name.upper(), show_envvar=True, **more)  # type: ignore[call-overload]


def serve(
    club: Annotated[str | None, _option("club", "The club's name in the topics (a-z 0-9 -). Default: club.")] = None,
    broker: Annotated[
        str | None,
        _option(
            "broker", "The broker: mqtt://HOST[:PORT], or mqtts://HOST[:PORT] for TLS. Default: mqtt://127.0.0.1:1883."
        ),
    ] = None,
    broker_ca: Annotated[
        Path | None,
        _option("broker_ca", "The CA file that signed an mqtts:// broker's certificate (default: the system's)."),
    ] = None,
    username: Annotated[
        str | None, _option("username", "The club service's user on the broker. Default: club.")
    ] = None,
    password: Annotated[
        str | None, _option("password", "Its password (better: --password-file, or the variable).")
    ] = None,
    password_file: Annotated[Path | None, _option("password_file", "A file holding that password.")] = None,
    client_id: Annotated[
        str | None, _option("client_id", "The broker session's fixed id. Default: croupier-club-<club>.")
    ] = None,
    database: Annotated[
        str | None,
        _option("database", "PostgreSQL: a libpq URI or connection string. Default: postgresql:///croupier."),
    ] = None,
    host: Annotated[str | None, _option("host", "Address the club's page is served on. Default: 127.0.0.1.")] = None,
    port: Annotated[int | None, _option("port", "Its port. Default: 8100.", min=1, max=65535)] = None,
    token_file: Annotated[
        Path | None,
        _option("token_file", "The club's control token (made, mode 0600, if missing). Default: club-token."),
    ] = None,
) -> None:
    """The club's service: every table's events from the broker into PostgreSQL, refereed again,
    and the club's page (tables live, standings, rounds, exports). Each option may also be set by
    its CROUPIER_CLUB_* variable."""
    from club.settings import ClubSettingsError, load_club_settings

    try:
        settings = load_club_settings(
            club=club, broker=broker, broker_ca=broker_ca, username=username, password=password,
            password_file=password_file, client_id=client_id, database=database, host=host, port=port,
            token_file=token_file,
        )  # fmt: skip
        settings.broker_password()
    except ClubSettingsError as exc:
        _fail(str(exc))
    _run(settings)


def _run(settings) -> None:  # type: ignore[no-untyped-def]
    import socket

    import uvicorn

    from club.app import create_app
    from club.db import DatabaseError, migrate, schema_version
    from club.intake import Intake
    from club.service import Club
    from club.token import load_or_create_token

    try:
        applied = migrate(settings.database)
        version = schema_version(settings.database)
    except DatabaseError as exc:
        _fail(str(exc))
    try:
        token, created = load_or_create_token(settings.token_file)
    except OSError as exc:
        _fail(f"cannot keep the club's token in {settings.token_file}: {exc.strerror or exc}")
    if created:
        _say(f"club control token (shown once; kept in {settings.token_file}): {token}")
    try:
        with socket.create_server((settings.host, settings.port)):
            pass
    except OSError as exc:
        _fail(f"cannot serve the club's page on {settings.host}:{settings.port}: {exc.strerror or exc}")
    intake = Intake(settings)
    intake.start()
    migrated = f"migrated to version {version}" if applied else f"at version {version}"
    _say(
        f"croupier club {settings.club}: broker {settings.broker} as {settings.username}; "
        f"database schema {migrated}; page on http://{settings.host}:{settings.port}/"
    )
    try:
        uvicorn.run(
            create_app(Club(settings), token, intake), host=settings.host, port=settings.port, log_level="warning"
        )
    finally:
        intake.stop()


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"croupier: {' '.join(message.split())}\n")
    raise typer.Exit(2)
