"""System: health (always open: it tells nothing about the cards), and the setup screen's QR code."""

from __future__ import annotations

import io
from typing import Any

import segno
from fastapi import APIRouter, Request, Response

from api.auth import CONTROL
from api.errors import refusals
from api.routes import runtime_of
from api.routing import TableRoute

router = APIRouter(prefix="/api", tags=["system"], route_class=TableRoute)
QR_CODE = {200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}}, "description": "the QR code (SVG)"}}


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    runtime = runtime_of(request)
    return {"status": "ok", "paused": runtime.paused is not None, "seq": runtime.seq}


@router.get("/qr", dependencies=CONTROL, response_class=Response, responses={**QR_CODE, **refusals(401)})
async def setup_qr(request: Request) -> Response:
    """The page's address with the control token (``#token=...``) as a QR code (SVG), for the setup
    screen: a phone scans it instead of typing the token. Needs the token, so it tells nothing new."""
    text = f"{request.base_url}#token={runtime_of(request).token}"
    out = io.BytesIO()
    qr = segno.make(text, error="m")
    qr.save(out, kind="svg", scale=4, border=2, xmldecl=False, omitsize=True, dark="#000", light="#fff")
    return Response(out.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})
