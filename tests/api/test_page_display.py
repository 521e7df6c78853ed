"""The page as a display (a TV, any device without the token) and on a phone, in real chromium:
a display never asks for setup and fills a TV without scrolling; a lost connection is
unmistakable, even when the server stops answering without closing it; a violation or a refusal
stays on screen until the table goes on; a phone shows the seat's own actions first."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from api.app import create_app
from controller.runtime import Runtime
from engine.hand import Phase
from tests.api.browser import PHONE, TV, chromium, needs_chromium, tab, wait_for_seq
from tests.api.conftest import AUTH, TOKEN, free_port, make_runtime
from tests.api.page_states import DrivenTable

pytestmark = needs_chromium


@dataclass
class Served:
    """A real uvicorn server in a thread, which a test may stop, starve, or have a device report to."""

    host: str
    server: uvicorn.Server
    runtime: Runtime


@contextmanager
def serving(folder: Path) -> Iterator[Served]:
    runtime = make_runtime(folder)
    server = uvicorn.Server(
        uvicorn.Config(create_app(runtime), host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Served(f"127.0.0.1:{server.config.port}", server, runtime)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        runtime.stop()
        runtime.journal.close()


def driven(server: str, game: str, players: int, seed: int = 5) -> DrivenTable:
    table = DrivenTable(httpx.Client(base_url=f"http://{server}", timeout=30), game, players, random.Random(seed))
    table.start()
    return table


def test_a_device_without_the_token_is_a_display_and_never_asks_for_setup(served: Served) -> None:
    server = served.host
    with chromium() as browser, tab(browser, TV) as page:
        page.goto(f"http://{server}/")
        page.wait_for_function("() => document.body.dataset.link === 'live'")
        assert page.evaluate("document.body.dataset.mode") == "display"
        assert page.locator("dialog[open]").count() == 0, "the Setup dialog covers the table"
        table = driven(server, "poley", 4)
        table.deal()
        table.play_to("auction")
        page.reload()
        wait_for_seq(page, table.seq)
        assert page.locator("dialog[open]").count() == 0
        assert page.locator("#controls-panel").is_hidden()  # a display enters nothing
        assert page.locator("#table .seat").count() == 4


def test_the_address_makes_any_device_a_display(served: Served) -> None:
    server = served.host
    with chromium() as browser, tab(browser, TV) as page:
        page.goto(f"http://{server}/#token={TOKEN}")  # this device keeps the token ...
        page.wait_for_function("() => document.body.dataset.mode === 'control'")
        page.goto(f"http://{server}/#display")  # ... and is a display all the same
        page.reload()
        page.wait_for_function("() => document.body.dataset.link === 'live'")
        assert page.evaluate("document.body.dataset.mode") == "display"
        assert page.locator("#open-setup").is_hidden() and page.locator("dialog[open]").count() == 0


def test_a_tv_shows_the_tricks_the_record_and_the_history_without_scrolling(served: Served) -> None:
    server = served.host
    table = driven(server, "bid-whist", 4, seed=2)  # twelve tricks, and a kitty in the record
    for _ in range(3):
        table.whole_hand()
    with chromium() as browser, tab(browser, TV) as page:
        page.goto(f"http://{server}/#display")
        wait_for_seq(page, table.seq)
        sizes = page.evaluate(
            """() => ({
              height: innerHeight,
              scroll: document.scrollingElement.scrollHeight,
              tricks: document.getElementById('tricks').getBoundingClientRect().bottom,
              rows: document.querySelectorAll('#tricks .trick-row').length,
              lastTrick: [...document.querySelectorAll('#tricks .trick-row')].pop().getBoundingClientRect().bottom,
              tricksPanel: document.getElementById('tricks-panel').getBoundingClientRect().bottom,
              record: [...document.querySelectorAll('#record .record-row')].pop().getBoundingClientRect().bottom,
              history: document.querySelector('#history tr:nth-child(2)').getBoundingClientRect().bottom,
              felt: document.getElementById('table').getBoundingClientRect().bottom,
            })"""
        )
        assert sizes["scroll"] <= sizes["height"], f"the page scrolls: {sizes}"
        assert sizes["rows"] == len(table.hand.tricks)
        for part in ("lastTrick", "record", "history", "felt"):
            assert sizes[part] <= sizes["height"], f"{part} is below the fold: {sizes}"
        assert sizes["lastTrick"] <= sizes["tricksPanel"] + 1, f"the last trick is cut off: {sizes}"


def test_a_lost_connection_is_unmistakable(tmp_path: Path) -> None:
    with serving(tmp_path) as served, chromium() as browser, tab(browser, TV) as page:
        host = served.host
        table = driven(host, "nap", 4)
        table.deal()
        page.goto(f"http://{host}/#display")
        wait_for_seq(page, table.seq)
        assert page.locator("#offline").is_hidden()
        served.server.should_exit = True  # the server goes away
        page.wait_for_function("() => document.body.dataset.link === 'lost'")
        banner = page.locator("#offline")
        assert banner.is_visible() and "no connection to the table" in banner.inner_text().lower()
        box = banner.bounding_box()
        assert box is not None and box["width"] >= TV[0] - 2 and box["height"] >= 40  # not a small grey word
        assert "grayscale" in page.evaluate("getComputedStyle(document.getElementById('main')).filter")


def test_a_server_that_stops_answering_is_found_out_and_the_page_recovers(tmp_path: Path) -> None:
    with serving(tmp_path) as served, chromium() as browser:
        host, runtime = served.host, served.runtime
        with tab(browser, TV, init="window.CROUPIER_HEARTBEAT_MS = 1000") as page:
            table = driven(host, "poley", 4)
            page.goto(f"http://{host}/#display")
            wait_for_seq(page, table.seq)
            stuck = threading.Event()
            runtime.controller.run(lambda: stuck.wait(120))  # the table's one thread stops answering
            try:
                page.wait_for_function("() => document.body.dataset.link === 'lost'", timeout=60_000)
                assert page.locator("#offline").is_visible()
            finally:
                stuck.set()
            page.wait_for_function("() => document.body.dataset.link === 'live'", timeout=60_000)
            assert page.locator("#offline").is_hidden()


def test_a_violation_and_a_refusal_stay_until_the_table_goes_on(served: Served) -> None:
    server = served.host
    table = driven(server, "poley", 4)
    http = table.http
    table.deal()
    table.play_to("auction")
    with chromium() as browser, tab(browser, TV) as page:
        page.goto(f"http://{server}/#token={TOKEN}")
        wait_for_seq(page, table.seq)
        hand = table.hand
        wrong = next(s for s in hand.active if s != hand.to_act)
        answer = http.post("/api/calls", json={"seat": wrong, "call": "pass"}, headers=AUTH).json()
        wait_for_seq(page, answer["seq"])
        alert = page.locator("#alert")
        assert alert.inner_text() == answer["violation"]["text"]
        assert "out of turn" in answer["violation"]["text"]
        status_seq = device_status(served, page)
        assert status_seq > answer["seq"]
        assert alert.is_visible() and alert.inner_text() == answer["violation"]["text"], "it vanished"

        # A refusal of a call entered on the page (the table is paused) stays as long.
        http.post("/api/pause", json={"reason": "drinks"}, headers=AUTH)
        page.locator("[data-choices=call] button").first.click()
        page.wait_for_function("() => document.getElementById('alert').textContent.startsWith('Refused:')")
        device_status(served, page)
        assert alert.inner_text().startswith("Refused: the table is paused")
        http.post("/api/resume", headers=AUTH)
        assert hand.phase is Phase.AUCTION
        table.step()  # the table goes on: a call that stands
        wait_for_seq(page, table.seq)
        assert alert.is_hidden()


def device_status(served: Served, page: Any) -> int:
    """The camera reports (a status update, not an event of the match); returns its seq."""
    seq = served.runtime.seq
    served.runtime.set_status("camera", {"state": "watching", "message": f"looking ({seq})"}).result(timeout=30)
    wait_for_seq(page, seq + 1)
    return seq + 1


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path) as it:
        yield it


def test_on_a_phone_the_seats_own_actions_come_first(served: Served) -> None:
    server = served.host
    table = driven(server, "fifty-six", 6)
    table.whole_hand()
    table.deal()
    table.play_to("auction")
    with chromium() as browser, tab(browser, PHONE) as page:
        page.goto(f"http://{server}/#token={TOKEN}")
        wait_for_seq(page, table.seq)
        calls = page.locator("[data-choices=call] button")
        assert calls.count() > 0
        first = calls.first.bounding_box()
        felt = page.locator("#table").bounding_box()
        assert first is not None and felt is not None
        assert first["y"] + first["height"] <= PHONE[1], "the calls are below the first screen"
        assert first["y"] < felt["y"], "the table comes before the seat's own calls"
