"""The page in a real browser (Debian's chromium, driven by Playwright) beside a simulated table
run through the real code paths: the machine deals over its pty, the people put their cards on
the mat, the camera's frames go through the vision pipeline. The page must show the deal's
progress, each card at its seat as the camera reports it, and the score when the hand ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.sim_table import SimOptions, SimulatedTableRig
from tests.api.conftest import free_port
from tests.api.test_page_browser import CHROMIUM, browser_tab

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[SimulatedTableRig]:
    table = SimulatedTableRig(
        SimOptions(game="nap", players=2, speed=30.0, seed=6, port=free_port(), store=tmp_path / "t.db")
    )
    table.start()
    table.start_match()
    yield table
    table.close()


@pytest.mark.slow
def test_the_page_shows_a_simulated_hand_as_the_camera_sees_it(rig: SimulatedTableRig) -> None:
    with browser_tab(60_000) as page:
        page.goto(rig.url)
        page.wait_for_function("() => document.getElementById('title').textContent.startsWith('Nap')")
        seen_trick: list[Any] = []
        failure: list[BaseException] = []

        def play() -> None:
            try:
                rig.play(1)
            except BaseException as exc:  # reported by the test below
                failure.append(exc)

        people = threading.Thread(target=play, daemon=True)
        people.start()
        page.wait_for_function("() => document.getElementById('devices').textContent.includes('Dealing')")
        # A card the camera saw lies at its seat on the page.
        card = page.locator("#table .in-trick[data-card]").first
        card.wait_for()
        seen_trick.append(card.get_attribute("data-card"))
        people.join(timeout=240)
        assert not people.is_alive() and not failure, failure
        state = rig.people.table()  # type: ignore[union-attr]
        page.wait_for_function("s => Number(document.body.dataset.seq) >= s", arg=state["seq"])
        assert page.locator("#result").is_visible()
        played = [c["card"] for t in state["hand"]["tricks"] for c in t["cards"]]
        assert seen_trick[0] in played
        tricks = page.locator('#score tr[data-row="tricks"] td').all_inner_texts()
        assert tricks == [str(t) for t in state["hand"]["tricks_won"]]
