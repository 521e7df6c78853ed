"""The page says what the table says, in real chromium: every call in its game's words (Poley's
"2H" is "2 hot", never two hearts) and every seat by the name the table gave it in Setup, in the
felt, the auction, the alerts and the violations' sentences."""

from __future__ import annotations

import random
import re

import httpx

from engine.actions import Call
from engine.words import call_words
from tests.api.browser import LAPTOP, chromium, needs_chromium, tab, wait_for_seq
from tests.api.conftest import AUTH, TOKEN
from tests.api.page_states import DrivenTable

pytestmark = needs_chromium


def test_poleys_hot_calls_are_hot_on_the_page_and_nowhere_hearts(server: str) -> None:
    http = httpx.Client(base_url=f"http://{server}", timeout=30)
    table = DrivenTable(http, "poley", 4, random.Random(11))
    table.start()
    table.deal()
    with chromium() as browser, tab(browser, LAPTOP) as page:
        page.goto(f"http://{server}/#token={TOKEN}")
        wait_for_seq(page, table.seq)
        buttons = page.eval_on_selector_all(
            "[data-choices=call] button", "bs => bs.map(b => [b.dataset.call, b.textContent])"
        )
        assert dict(buttons)["2H"] == "2 hot" and dict(buttons)["3H"] == "3 hot"
        assert dict(buttons)["5H"] == "5 hot shooter" and dict(buttons)["2"] == "2"
        assert not [text for _, text in buttons if "♥" in text], buttons

        hot = next(a for a in table.hand.legal_actions() if isinstance(a, Call) and a.text == "2H")
        table.act(hot)
        while table.hand.phase.value == "auction":
            table.act(next(a for a in table.hand.legal_actions() if isinstance(a, Call) and a.text == "pass"))
        wait_for_seq(page, table.seq)
        assert "2 hot" in page.locator("#auction").inner_text()
        contract = page.locator("#contract").inner_text()
        assert "Contract\n2 hot" in contract and "♥" not in contract, contract
        assert not re.search(r"\b2♥", page.inner_text("body")), "a hot contract is drawn as hearts"


def test_the_names_given_in_setup_are_the_seats_names_everywhere(server: str) -> None:
    http = httpx.Client(base_url=f"http://{server}", timeout=30)
    table = DrivenTable(http, "poley", 4, random.Random(4))
    table.start()
    with chromium() as browser, tab(browser, LAPTOP) as page:
        page.goto(f"http://{server}/#token={TOKEN}")
        wait_for_seq(page, table.seq)
        page.click("#open-setup")
        for seat, name in enumerate(["Anna", "Ben", "", "Dora"]):
            page.fill(f'#seat-names input[data-seat="{seat}"]', name)
        page.click("#save-seating")
        page.wait_for_function("() => document.getElementById('setup-message').textContent.includes('saved')")
        page.click("dialog button[value=close]")
        page.wait_for_function("() => document.querySelector('#table .seat-name').textContent === 'Anna'")
        assert page.eval_on_selector_all("#table .seat-name", "els => els.map(e => e.textContent)") == [
            "Anna",
            "Ben",
            "South",
            "Dora",
        ]
        table.deal()
        wait_for_seq(page, table.seq)
        hand = table.hand
        wrong = next(s for s in hand.active if s != hand.to_act)
        answer = http.post("/api/calls", json={"seat": wrong, "call": "2H"}, headers=AUTH).json()
        wait_for_seq(page, answer["seq"])
        names = ["Anna", "Ben", "South", "Dora"]
        expected = f"{names[wrong]} called 2 hot out of turn: it is {names[hand.to_act]}'s turn"
        assert page.locator("#alert").inner_text() == expected
        assert page.locator("#violations").inner_text() == expected
        assert "seat " not in page.locator("#alert").inner_text()
        table.step()
        wait_for_seq(page, table.seq)
        first = table.hand.moves[0]
        said = page.locator("#auction li").first.inner_text()
        assert said == f"{names[first[0]]} {call_words('poley', first[1].text)}"  # type: ignore[union-attr]
