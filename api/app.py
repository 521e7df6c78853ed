"""The web application, built by a factory from a runtime (``create_app(runtime)``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api import ws
from api.errors import MAX_BODY, BodyLimit, install_error_handlers
from api.routes import matches, system, table
from api.routing import PageMount
from controller.runtime import Runtime

STATIC = Path(__file__).parent / "static"


def create_app(runtime: Runtime, *, max_body: int = MAX_BODY, queue_size: int = ws.QUEUE_SIZE) -> FastAPI:
    hub = ws.Hub(runtime, queue_size)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime.start()  # the controller's thread; whoever made the runtime stops it
        hub.attach(asyncio.get_running_loop())
        try:
            yield
        finally:
            hub.detach()

    app = FastAPI(
        title="Croupier",
        summary="The refereed card table: its state, its actions, its history.",
        version="1",
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    app.state.hub = hub
    app.add_middleware(BodyLimit, limit=max_body)
    install_error_handlers(app)
    for router in (table.router, matches.router, system.router):
        app.include_router(router)
    app.state.api_routes = [*table.router.routes, *matches.router.routes, *system.router.routes]  # for a 405's Allow
    app.add_api_websocket_route("/ws", ws.endpoint)
    if STATIC.is_dir():  # the page (issue 7, item 4) lives here when it exists
        app.router.routes.append(PageMount("/", StaticFiles(directory=STATIC, html=True), name="page"))
    return app
