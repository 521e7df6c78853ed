"""The club's page in a real browser (Debian's headless chromium, as the table's page tests use),
served by `croupier club serve` in its own process: tables live, an offline table dimmed, the
standings, a match's record, and the director's actions with and without the club's token."""

from __future__ import annotations

import json

from benchmarks.club_servers import CLUB, free_port
from simulators.club_messages import play, status
from tests.api.browser import LAPTOP, PHONE, chromium, needs_chromium, tab
from tests.club.mqtt import connect, publish
from tests.club.service import club_service

pytestmark = needs_chromium
TOKEN = "the-clubs-own-token"


def test_the_page_shows_every_table_and_the_director_acts_with_the_token(broker, database, tmp_path):
    (tmp_path / "token").write_text(TOKEN + "\n")
    port = free_port()
    m = play(CLUB, "t1", "nap", seed=2, hands=1)
    with club_service(broker, database, tmp_path, port), chromium() as browser:
        publish(broker, "t1", m.payloads())
        t2 = connect(broker, "t2")
        offline = {"v": 1, "club": CLUB, "table": "t2", "online": False}
        for body in (status(CLUB, "t2", game="poley", to_act="ben"), offline):
            t2.publish(f"croupier/{CLUB}/t2/status", json.dumps(body), qos=1, retain=True).wait_for_publish(30)
        t2.disconnect()
        t2.loop_stop()
        with tab(browser, LAPTOP) as page:
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_function("() => document.querySelectorAll('#tables .card').length === 2")
            page.wait_for_selector("#tables .card.offline:has-text('t2 (offline)')")
            assert "poley" in page.inner_text("#tables .card.offline")  # the game last seen, kept
            assert "(no status yet)" in page.inner_text("#tables .card:has-text('t1')")
            page.wait_for_function("() => document.querySelectorAll('#standings tbody tr').length === 4")
            page.click("text=match 1 record (ok)")
            page.wait_for_selector("#record h3:has-text('t1, match 1: nap, 1 hands refereed (ok)')")

            page.click("summary")
            page.fill("#token", "not-the-token")
            page.fill("#entrants", "A\nB\nC\nD")
            page.fill("#round-tables", "t1\nt2")
            page.click("text=start the next round")
            page.wait_for_selector("#said:has-text('refused: this action needs the club')")
            page.fill("#token", TOKEN)
            page.click("text=start the next round")
            page.wait_for_selector("#said:has-text('round started')")
            page.wait_for_selector("#rounds:has-text('round 1 (rotation)')")
            page.fill("#flag-table", "t1")
            page.fill("#flag-reason", "a dispute at hand 1")
            page.click("#flag")
            page.wait_for_selector("#tables .card.flagged:has-text('flagged by the club: a dispute at hand 1')")
        with tab(browser, PHONE) as phone:  # a director's phone: the page fits it
            phone.goto(f"http://127.0.0.1:{port}/")
            phone.wait_for_function("() => document.querySelectorAll('#tables .card').length === 2")
            width = phone.evaluate("() => document.scrollingElement.scrollWidth")
            assert width <= PHONE[0], f"the page is {width}px wide on a {PHONE[0]}px phone"


def test_the_page_is_told_of_a_change_at_once_and_says_plainly_when_its_live_connection_is_lost(
    broker, database, tmp_path
):
    port = free_port()

    def to_act(name: str) -> None:
        publish(broker, "t1", [json.dumps(status(CLUB, "t1", to_act=name)).encode()], f"croupier/{CLUB}/t1/status")

    with chromium() as browser, tab(browser, LAPTOP) as page:
        with club_service(broker, database, tmp_path, port):
            to_act("ann")
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#live.live")
            page.wait_for_selector("#tables .card:has-text('to act: ann')")
            page.route("**/api/tables", lambda route: route.abort())  # from now on only the push can tell it
            to_act("ben")
            page.wait_for_selector("#tables .card:has-text('to act: ben')")
        page.wait_for_selector("#live.lost:has-text('live updates lost: reconnecting')")
        with club_service(broker, database, tmp_path, port):  # the service back: the page reconnects
            page.wait_for_selector("#live.live")
            to_act("cy")
            page.wait_for_selector("#tables .card:has-text('to act: cy')")
