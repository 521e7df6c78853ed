"""The page's layout, looked at in real chromium: every game at every seat count, in the auction, with
a trick half played, and at the hand's result, on a phone (390x844), a laptop (1280x800) and a TV
(1920x1080, the display mode). Each screenshot is written under the test's temporary folder, its
name printed, and the page checked as it is: nothing wider than the screen, no seat label covered
by another or by a card, no card's face clipped, no "1 cards", the seat to act badged for what it
is doing ("to call" in the auction, not "to play").

The default run looks at every game once, with a trick half played (the state with the most on
the felt), at each size; `pytest -m screens` looks at every game, seat count and state."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.browser import LAPTOP, PHONE, TV, chromium, layout_faults, needs_chromium, tab, wait_for_seq
from tests.api.conftest import TOKEN
from tests.api.page_states import STAGES, TABLES, DrivenTable

pytestmark = needs_chromium

# Each size with the mode it is used in: a phone and a laptop enter calls; a TV displays the table.
SCREENS = [("phone", PHONE, "control"), ("laptop", LAPTOP, "control"), ("tv", TV, "display")]
DEFAULT = {("poley", 4), ("shelem", 4), ("fifty-six", 6), ("bid-whist", 4), ("nap", 6)}
CASES = [
    pytest.param(
        game, players, stages, marks=() if full is None else pytest.mark.screens, id=f"{game}-{players}-{label}"
    )
    for game, players in TABLES
    for full, stages, label in (
        [(None, ("mid-trick",), "mid-trick"), (True, STAGES, "every-state")]
        if (game, players) in DEFAULT
        else [(True, STAGES, "every-state")]
    )
]


@pytest.fixture
def screens(server: str) -> Iterator[dict[str, Any]]:
    """A tab per screen size, on the page: the phone and the laptop with the token, the TV without."""
    with chromium() as browser, tab(browser, PHONE) as phone, tab(browser, LAPTOP) as laptop, tab(browser, TV) as tv:
        tabs = {"phone": phone, "laptop": laptop, "tv": tv}
        for name, _, mode in SCREENS:
            tabs[name].goto(f"http://{server}/" + (f"#token={TOKEN}" if mode == "control" else "#display"))
        yield tabs


@pytest.mark.parametrize(("game", "players", "stages"), CASES)
def test_every_screen_shows_the_table_whole(
    server: str, screens: dict[str, Any], tmp_path: Path, game, players, stages
):
    http = httpx.Client(base_url=f"http://{server}", timeout=30)
    table = DrivenTable(http, game, players, random.Random(f"{game}{players}"))
    table.start()
    table.whole_hand()  # a hand in the history: its table must fit a phone too
    folder = tmp_path / "screens"
    folder.mkdir()
    shots: list[str] = []
    faults: list[str] = []
    for stage in stages:
        if stage in ("auction", stages[0]):
            table.deal()
        table.play_to(stage)
        for name, size, mode in SCREENS:
            page = screens[name]
            wait_for_seq(page, table.seq)
            shot = folder / f"{game}-{players}p-{stage}-{size[0]}x{size[1]}-{mode}.png"
            page.screenshot(path=str(shot), full_page=True)
            shots.append(shot.name)
            faults += [f"{shot.name}: {fault}" for fault in layout_faults(page)]
            faults += [f"{shot.name}: {fault}" for fault in badge_faults(page, table)]
            if mode == "display":
                faults += [f"{shot.name}: {fault}" for fault in fold_faults(page)]
    print("screenshots in", folder, *shots, sep="\n  ")
    assert not faults, "\n".join(faults)


def badge_faults(page: Any, table: DrivenTable) -> list[str]:
    """The seat to act is badged for what it is doing now."""
    seat = table.hand.to_act
    if seat is None:
        return []
    tags = page.locator(f'#table .seat[data-seat="{seat}"] .tags').inner_text()
    wanted = {"auction": "to call", "declare": "to name trumps", "discard": "to lay away"}.get(table.hand.phase.value)
    if wanted is None:
        wanted = "to lead" if not table.hand.current_trick else "to play"
    return [] if wanted in tags else [f"the seat to act is badged {tags!r}, not {wanted!r}"]


def fold_faults(page: Any) -> list[str]:
    """A TV shows the felt, every trick, the whole record and the latest hand of the history
    without scrolling: none of them lies below the bottom of the screen."""
    bottoms = page.evaluate(
        """() => {
          const last = (selector) => [...document.querySelectorAll(selector)].pop();
          const parts = {
            felt: document.getElementById('table'),
            'the last trick': last('#tricks .trick-row'),
            'the record': last('#record .record-row'),
            'the latest hand': document.querySelector('#history tr:nth-child(2)'),
          };
          const out = {};
          for (const [name, e] of Object.entries(parts)) if (e) out[name] = e.getBoundingClientRect().bottom;
          out.screen = innerHeight;
          out['the page'] = document.scrollingElement.scrollHeight;
          return out;
        }"""
    )
    screen = bottoms.pop("screen")
    faults = [
        f"{name} ends at {bottom:.0f}px, below the {screen}px screen"
        for name, bottom in bottoms.items()
        if bottom > screen + 1
    ]
    return faults
