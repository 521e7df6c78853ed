"""The page's files are served by the app itself (the table has no internet), and the setup
screen's QR code needs the control token."""

from __future__ import annotations

from tests.api.conftest import AUTH, TOKEN


def test_the_page_and_its_modules_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script type="module" src="app.js">' in page.text
    for name in (
        "app.js",
        "api.js",
        "cards.js",
        "controls.js",
        "games.js",
        "layout.js",
        "live.js",
        "render.js",
        "seats.js",
        "setup.js",
    ):
        answer = client.get(f"/{name}")
        assert answer.status_code == 200 and "javascript" in answer.headers["content-type"], name
        assert "http://" not in answer.text and "https://" not in answer.text  # nothing from outside
    assert client.get("/style.css").headers["content-type"].startswith("text/css")


def test_the_qr_code_needs_the_token_and_carries_it(client):
    assert client.get("/api/qr").status_code == 401
    answer = client.get("/api/qr", headers=AUTH)
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml"
    assert answer.text.startswith("<svg") and answer.headers["cache-control"] == "no-store"
    assert TOKEN not in answer.text  # drawn as modules, never as text
