"""System: health (always open: it tells nothing about the cards)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from api.routes import runtime_of

router = APIRouter(prefix="/api", tags=["system"])


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    runtime = runtime_of(request)
    return {"status": "ok", "paused": runtime.paused is not None, "seq": runtime.seq}
