"""Shows a simulated match in the terminal as it is played, paced like a real table; seats, cards
and calls in the words the page uses (``engine.words``)."""

from __future__ import annotations

import time

from rich.console import Console

from controller.render import seat_label
from engine.actions import Call, Play
from engine.cards import sort_for_display
from engine.words import call_words, card_words, contract_words
from simulators.table import TableEvent

SECONDS_PER_ACTION = 1.0  # a real table: about a second per call or card


class TableShow:
    def __init__(self, console: Console, speed: float = 1.0) -> None:
        self.console = console
        self.pause_s = SECONDS_PER_ACTION / speed
        self.hands = 0

    def observe(self, event: TableEvent) -> None:
        hand = event.hand
        if event.kind == "deal":
            self.hands += 1
            self.console.rule(f"Hand {self.hands}: {seat_label(hand.dealer, hand.players)} deals")
            for seat in range(hand.players):
                held = " ".join(card_words(str(c), hand.GAME) for c in sort_for_display(hand.holding(seat)))
                self.console.print(f"  {seat_label(seat, hand.players):>10}  {held}")
        elif event.kind == "action":
            self._action(event)
            time.sleep(self.pause_s)
        else:
            self._hand_over(event)

    def _action(self, event: TableEvent) -> None:
        hand, seat, action = event.hand, event.seat, event.action
        who = seat_label(seat, hand.players)
        if isinstance(action, Play):
            self.console.print(f"  {who:>10} plays {card_words(str(action.card), hand.GAME)}", end="")
            if not hand.current_trick:  # the trick just completed
                last = hand.tricks[-1]
                self.console.print(f"   -> trick to {seat_label(last.winner, hand.players)}", style="bold")
            else:
                self.console.print()
        elif isinstance(action, Call):
            self.console.print(f"  {who:>10} calls [bold]{call_words(hand.GAME, action.text)}[/bold]")
        else:
            self.console.print(f"  {who:>10}: {action}")

    def _hand_over(self, event: TableEvent) -> None:
        r = event.hand.result()
        trump = r.trump.letter if r.trump is not None else None
        contract = contract_words(event.hand.GAME, r.contract, trump, r.direction)
        if r.result == "void":
            self.console.print("  everybody passed: the hand is thrown in", style="yellow")
            return
        self.console.print(
            f"  {contract} by {seat_label(r.declarer, event.hand.players)}: {r.result}, "
            f"tricks {' - '.join(map(str, r.tricks))}, score {' - '.join(map(str, r.score or ()))}",
            style="green" if r.result == "made" else "red",
        )
