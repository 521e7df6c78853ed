"""The page in a real browser: Debian's headless chromium, driven by Playwright, against a real
uvicorn server. A match is started on the page, a hand of Poley is played through the API (as the
camera and the table would), and the browser is checked as it goes: the trick and the score
update, an illegal card shows the violation in words, and no card of any hand appears on the page
before the hand has ended (then the hand record shows them all).

CI installs chromium (``.ci/run``); Playwright's own browsers are never downloaded."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.actions import Call, Play
from engine.hand import Hand, Phase
from tests.api.browser import ARGS, CHROMIUM
from tests.api.conftest import AUTH, TOKEN
from tests.api.driver import apply_deal, mirror, mirror_action, request_for, shuffled_deal

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SEED = 7  # a deal where a contract is played and a seat can revoke

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)")


@contextmanager
def browser_tab(timeout_ms: int) -> Iterator[Any]:
    """A tab of Debian's headless chromium; the page's own errors fail the test at the end."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 800})
        tab.set_default_timeout(timeout_ms)
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        yield tab
        browser.close()
        assert not errors, errors


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    with browser_tab(5000) as tab:
        yield tab


def face(code: str) -> str:
    """A card as the page draws it (cards.js): "10♥"."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUITS[code[1]]


def test_the_page_follows_a_hand_and_shows_no_hidden_card(server: str, page: Any, tmp_path: Path) -> None:
    http = httpx.Client(base_url=f"http://{server}", headers=AUTH, timeout=10)
    page.goto(f"http://{server}/#token={TOKEN}")
    assert "token=" not in page.url  # taken into localStorage and out of the address bar

    # Start the match on the page's setup screen, with the token it took from the URL.
    page.click("#open-setup")
    page.select_option("#game", "poley")
    page.click("#start")
    page.wait_for_function("() => document.getElementById('title').textContent.startsWith('Poley')")
    assert http.get("/api/matches").json()[0]["game"] == "poley"

    referee = mirror("poley")
    rng = random.Random(SEED)
    deal = shuffled_deal(referee, rng, 0)
    seen: set[str] = set()  # cards put on the mat: public from then on

    def sync(answer: httpx.Response) -> dict[str, Any]:
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        page.wait_for_function("s => Number(document.body.dataset.seq) >= s", arg=body["seq"])
        return body

    def check_nothing_hidden(hand: Hand) -> None:
        hidden = {str(c) for seat in range(4) for c in hand.holding(seat)} | set(deal["rest"])
        hidden -= seen
        drawn = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
        assert drawn <= seen, f"the page draws cards not yet public: {drawn - seen}"
        text = re.sub(r"\s+", "", page.inner_text("body"))
        for card in hidden:
            assert face(card) not in text, f"{card} is on the page before the hand ended"
        words = set(re.findall(r"\b[AKQJT2-9][SHDC]\b", page.inner_text("body")))
        assert not words & hidden, f"card codes on the page: {words & hidden}"

    dealt = sync(http.post("/api/deals", json=deal))
    apply_deal(referee, deal)
    hand = referee.match.current
    assert hand is not None
    check_nothing_hidden(hand)

    # The first call entered on the page: only the legal calls are offered.
    offered = page.eval_on_selector_all("[data-choices=call] button", "bs => bs.map(b => b.dataset.call)")
    assert offered == [a.text for a in hand.legal_actions() if isinstance(a, Call)]
    seat = hand.to_act
    page.click('[data-choices=call] button[data-call="5"]')
    page.wait_for_function("s => Number(document.body.dataset.seq) > s", arg=dealt["seq"])
    assert http.get("/api/table").json()["hand"]["auction"] == [{"seat": seat, "call": "5", "words": "5 poley"}]
    mirror_action(referee, seat, next(a for a in hand.legal_actions() if isinstance(a, Call) and a.text == "5"))

    revoked = False
    shot = tmp_path / "page.png"
    while not hand.is_over():
        seat = hand.to_act
        legal = hand.legal_actions()
        wrong = [c for c in hand.holding(seat) if Play(c) not in legal] if hand.phase is Phase.PLAY else []
        if wrong and not revoked:
            card = str(wrong[0])
            seen.add(card)
            body = sync(http.post("/api/plays", json={"seat": seat, "card": card}))
            mirror_action(referee, seat, Play(wrong[0]))
            message = body["violation"]["text"]  # the sentence, in the seats' names
            assert message.endswith("must follow suit") and "seat " not in message
            alert = page.locator("#alert")
            assert alert.is_visible() and alert.inner_text() == message
            assert message in page.inner_text("#violations")
            page.screenshot(path=str(shot), full_page=True)
            revoked = True
            check_nothing_hidden(hand)
            continue
        action = legal[0] if hand.phase is Phase.AUCTION else rng.choice(legal)
        path, request = request_for(seat, action)
        if isinstance(action, Play):
            seen.add(str(action.card))
        body = sync(http.post(path, json=request))
        mirror_action(referee, seat, action)
        state = body["state"]["hand"]
        if isinstance(action, Play) and state["trick"]:
            # The card lies at its seat; the tricks taken so far are in the score.
            page.locator(f'#table .in-trick[data-seat="{seat}"][data-card="{action.card}"]').wait_for()
        if isinstance(action, Play) and not state["trick"]:
            tricks = page.locator('#score tr[data-row="tricks"] td').all_inner_texts()
            assert tricks == [str(t) for t in state["tricks_won"]]
            assert page.locator("#tricks .trick-row").count() == len(state["tricks"])
        if not hand.is_over():
            check_nothing_hidden(hand)
        if not revoked:
            assert page.locator("#alert").is_hidden(), page.inner_text("#alert")
    assert revoked, "no revoke was possible in this deal: choose another SEED"

    # The hand is over: its score and the match standing are on the page, and the record
    # shows every card dealt.
    table = http.get("/api/table").json()
    score = table["hand"]["score"]
    result = page.inner_text("#result")
    assert f"N–S {'+' if score[0] > 0 else ''}{score[0]}" in result
    assert f"E–W {'+' if score[1] > 0 else ''}{score[1]}" in result
    horses = page.locator('#score tr[data-row="horses against"] td').all_inner_texts()
    assert horses == [str(h) for h in table["match"]["horses"]]
    recorded = page.eval_on_selector_all("#record [data-card]", "els => els.map(e => e.dataset.card)")
    assert sorted(recorded) == sorted([c for h in deal["hands"] for c in h] + deal["rest"])
    if not shot.exists():
        page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
