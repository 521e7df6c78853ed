"""The API's routers: the table (state and actions), matches (start, history, export), system."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import TypeVar

from fastapi import Request

from controller.runtime import Runtime

T = TypeVar("T")


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


async def done(future: Future[T]) -> T:
    """Wait for work on the controller's thread without blocking the event loop."""
    return await asyncio.wrap_future(future)
