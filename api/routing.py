"""How a request reaches its route: the caller's rights before its body."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from api.auth import GUARDS

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class TableRoute(APIRoute):
    """A route of the table's API. FastAPI reads and decodes a body before it runs a route's
    dependencies, so a caller without the token would hear about its body first; here the route's
    guards (``api.auth.GUARDS`` among its dependencies) run before anything of the body is read.
    FastAPI runs them again as dependencies, where they pass."""

    def get_route_handler(self) -> Handler:
        handle = super().get_route_handler()
        guards = [depends.dependency for depends in self.dependencies if depends.dependency in GUARDS]

        async def guarded(request: Request) -> Response:
            for guard in guards:
                guard(request)
            return await handle(request)

        return guarded
