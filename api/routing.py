"""How a request reaches its route: the caller's rights before its body, the body as strict JSON,
and the page kept off the API's paths."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import Scope

from api.auth import GUARDS

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class TableRoute(APIRoute):
    """A route of the table's API. FastAPI reads and decodes a body before it runs a route's
    dependencies, so a caller without the token would hear about its body first; here the route's
    guards (``api.auth.GUARDS`` among its dependencies) run before anything of the body is read.
    FastAPI runs them again as dependencies: they pass, and tell the OpenAPI schema of the token."""

    def get_route_handler(self) -> Handler:
        handle = super().get_route_handler()
        guards = [depends.dependency for depends in self.dependencies if depends.dependency in GUARDS]

        async def guarded(request: Request) -> Response:
            for guard in guards:
                guard(request)
            return await handle(StrictJsonRequest(request.scope, request.receive))

        return guarded


class StrictJsonRequest(Request):
    """A request whose JSON body fails only with ``JSONDecodeError``, which FastAPI answers as a 422
    naming the fault; any other failure (text that is not UTF-8, a number too long to convert,
    nesting too deep) it would answer with a bare 400 "There was an error parsing the body"."""

    async def json(self) -> Any:
        return parse_json(await self.body())


def parse_json(body: bytes) -> Any:
    """JSON text as it travels between systems (RFC 8259): UTF-8."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        valid = body[: exc.start].decode("utf-8")
        raise json.JSONDecodeError("not UTF-8 text", valid, len(valid)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except ValueError:  # the only other: Python's limit on the digits of an integer it converts
        limit = sys.get_int_max_str_digits()
        long = re.search(rf"\d{{{limit + 1}}}", text)
        raise json.JSONDecodeError(f"a number of over {limit} digits", text, long.start() if long else 0) from None


class PageMount(Mount):
    """The page (its static files) answers every path but the API's: an API route asked with another
    method then answers 405 with its own ``Allow`` (the page would answer ``Allow: GET, HEAD``), and
    an unknown API path is the API's JSON 404."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path: str = scope.get("path", "")
        if scope["type"] == "http" and (path == "/api" or path.startswith("/api/")):
            return Match.NONE, {}
        return super().matches(scope)


def methods_at(routes: Iterable[BaseRoute], path: str) -> list[str]:
    """Every method the routes answer at this path. Starlette's 405 names only the methods of the
    first route whose path matched, so ``/api/matches`` (a GET route and a POST route) said
    ``Allow: GET``."""
    return sorted(
        {
            method
            for route in routes
            if isinstance(route, Route) and route.path_regex.match(path)
            for method in route.methods or ()
        }
    )
