"""The live table: the dealing machine, the camera and the panel joined to the runtime.

Every device talks to the table through the :class:`~controller.runtime.Runtime`, so the
controller stays the single writer:

- the **deal** button (or the page) asks for a deal; the machine deals it on its own thread,
  its progress and faults are published as the dealer's status, a lost serial link holds the
  table until it is back, and the finished deal (every hand, read by the machine) becomes the
  hand's ``deal`` event; a void deal says why, naming the cards;
- the **camera** (:class:`~vision.service.VisionService`) turns a card settled in a seat's zone
  into a ``play`` for that seat; a card the referee refuses (out of turn, a revoke under
  ``reject``) sounds the buzzer, lights the seat and is withdrawn from the tracker, which then
  waits for that seat's legal card; the zones clearing is the trick gathered; a camera that
  stops delivering frames holds the table;
- the **panel** lights the seat to act as the page shows it (no seat while Bid Whist's joker
  exchange asks a joker's holder; the next dealer's LED blinks between hands) and beeps on a
  violation; its undo button takes back the last action, its next button tells the machine
  that the person at the table did what its fault asked.

The referee's knowledge goes back to the camera as its prior: the cards each seat still holds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from controller.dealer_service import DealerBusy, DealerService, DealProgress
from controller.dealing import EngineNames
from controller.runtime import BadCommand, Result, Runtime, TablePaused, TableRefusal
from engine.cards import CARDS, Card
from engine.hand import Hand
from engine.view import public_to_act
from firmware_bridge.events import DealResult, FaultRaised
from firmware_bridge.plan import DealPlan
from vision.service import SeatPlay, TableEvent, VisionService, ZonesCleared

log = logging.getLogger(__name__)

LINK_LOST = "the dealing machine's serial port is gone: check its USB cable; the deal goes on when it is back"


class PersonAtTheTable:
    """The operator for the machine's faults: the page shows the remedy, and the panel's next
    button (or the page's resume) says it was done."""

    def __init__(self, patience_s: float = 600.0) -> None:
        self.patience_s = patience_s
        self._done = threading.Event()

    def acknowledge(self) -> None:
        self._done.set()

    def attend(self, code: str, reason: str, remedy: str) -> bool:
        self._done.clear()
        return self._done.wait(self.patience_s)


class LiveTable:
    def __init__(
        self,
        runtime: Runtime,
        dealer: DealerService | None = None,
        vision: VisionService | None = None,
        panel: Any = None,
        operator: Any = None,
    ) -> None:
        self.runtime = runtime
        self.dealer = dealer
        self.vision = vision
        self.panel = panel
        self.operator = operator if operator is not None else PersonAtTheTable()
        self._pending: list[dict[str, Any]] = []  # events the devices saw while the table was held
        self._trick: list[dict[str, Any]] = []
        self._closed = False
        runtime.listeners.append(self._on_message)
        if dealer is not None:
            dealer.on_progress, dealer.on_fault = self._deal_progress, self._deal_fault
            dealer.on_link, dealer.on_result = self._deal_link, self._deal_done
        if vision is not None:
            vision.on_event, vision.on_health = self._seen, self._camera_health
        if dealer is not None:
            runtime.machine_deal = self.request_deal

    # --- life --------------------------------------------------------------------------------

    def start(self) -> None:
        self.runtime.start()
        if self.vision is not None:
            self.vision.start()
        self.runtime.controller.run(self._refresh).result()

    def close(self) -> None:
        self._closed = True
        if self.vision is not None:
            self.vision.stop()
        if self.dealer is not None:
            self.dealer.close()
        self.runtime.stop()
        if self.panel is not None:
            self.panel.close()

    # --- buttons -----------------------------------------------------------------------------

    def press(self, button: str) -> None:
        """A panel button (called on gpiozero's thread)."""
        if button == "deal":
            self.request_deal().add_done_callback(_log_refusal("deal"))
        elif button == "undo":
            self.runtime.submit({"type": "undo"}).add_done_callback(_log_refusal("undo"))
        elif button == "next":  # the person did what the machine's fault asked
            acknowledge = getattr(self.operator, "acknowledge", None)  # a simulated operator needs no word
            if acknowledge is not None:
                acknowledge()

    # --- dealing -----------------------------------------------------------------------------

    def request_deal(self, dealer: int | None = None) -> Future[dict[str, Any]]:
        """Deal the next hand on the machine (no machine: shuffled here, as the page's deal does).
        ``dealer`` may name the first hand's dealer; later ones rotate."""
        if self.dealer is None:
            return _then(self.runtime.deal(None, None, dealer), lambda r: r.state)
        return self.runtime.run(lambda: self._start_deal(dealer))

    def _start_deal(self, chosen: int | None) -> dict[str, Any]:
        """On the controller's thread: the plan for the next hand, then the machine deals it."""
        assert self.dealer is not None
        self.runtime.check_open()
        referee = self.runtime.controller.referee
        if referee is None:
            raise TableRefusal("no match has been started: start one first")
        match = referee.match
        if match.current is not None and not match.current.is_over():
            raise TableRefusal("the hand in progress is not over: finish it (or undo) before dealing")
        if match.standing.over:
            raise TableRefusal("the match is over: start a new one")
        next_dealer = match.next_dealer()
        if next_dealer is not None and chosen is not None and chosen != next_dealer:
            name = self.runtime.seat_name
            raise BadCommand(f"{name(next_dealer)} deals next, in turn: not {name(chosen)}")
        if chosen is not None and not 0 <= chosen < match.players:
            raise BadCommand(f"the dealer must be a seat from 0 to {match.players - 1}, not {chosen}")
        dealer = next_dealer if next_dealer is not None else (chosen or 0)
        shape = match.game.deal_shape(match.players, match.options, dealer)
        plan = DealPlan(
            pack=tuple(c.index for c in match.game.pack),
            seats=shape.per_seat,
            rest=shape.rest,
            game=match.game.title,
            names=EngineNames(),
        )
        try:
            self.dealer.deal(plan, self.operator, {"dealer": None if next_dealer is not None else dealer})
        except DealerBusy as exc:
            raise TableRefusal(str(exc)) from None
        status = {"state": "dealing", "dealt": 0, "total": len(plan.pack), "message": "dealing"}
        self.runtime.publish_status("dealer", status)
        return self.runtime.public_table()

    def _deal_progress(self, progress: DealProgress) -> None:
        status = {"state": "dealing", "dealt": progress.dealt, "total": progress.total, "message": "dealing"}
        self.runtime.set_status("dealer", status)

    def _deal_fault(self, fault: FaultRaised) -> None:
        message = f"{fault.reason}: {fault.remedy}" if fault.remedy else fault.reason
        self.runtime.set_status("dealer", {"state": "fault", "code": fault.code, "message": message})
        if self.panel is not None and fault.needs_operator:
            self.panel.alert(None)

    def _deal_link(self, up: bool) -> None:
        if up:
            self.runtime.release("dealer")
        else:
            self.runtime.hold("dealer", LINK_LOST)

    def _deal_done(self, result: DealResult, context: dict[str, Any]) -> None:
        if result.status != "complete":
            self.runtime.set_status("dealer", {"state": "void", "message": f"the deal was void: {result.message}"})
            if self.panel is not None:
                self.panel.alert(None)
            return
        event: dict[str, Any] = {
            "type": "deal",
            "hands": [[str(CARDS[c]) for c in hand] for hand in result.hands],
            "rest": [str(CARDS[c]) for c in result.rest],
        }
        if context.get("dealer") is not None:
            event["dealer"] = context["dealer"]
        self.runtime.set_status("dealer", {"state": "done", "message": "dealt: pick up your cards"})
        self._submit_device_event(event)

    # --- the camera --------------------------------------------------------------------------

    def _seen(self, event: TableEvent) -> None:
        if isinstance(event, SeatPlay):
            self._submit_device_event({"type": "play", "seat": event.seat, "card": str(event.card)})
        elif isinstance(event, ZonesCleared):
            self.runtime.set_status("camera", {"state": "watching", "trick_on_mat": False})

    def _camera_health(self, ok: bool, message: str) -> None:
        if ok:
            self.runtime.release("camera")
        else:
            self.runtime.hold("camera", f"{message}: check the camera and its cable")

    # --- events from the devices -------------------------------------------------------------

    def _submit_device_event(self, event: dict[str, Any]) -> None:
        """Submit on the controller's thread; an event refused because the table is held waits."""
        self.runtime.controller.run(lambda: self._device_event(event))

    def _device_event(self, event: dict[str, Any]) -> None:
        try:
            result = self.runtime.submit_here(event)
        except TablePaused as exc:
            log.info("held until the table goes on (%s): %s", exc, event["type"])
            self._pending.append(event)
            return
        except TableRefusal as exc:
            log.warning("%s refused: %s", event["type"], exc)
            return
        self._after_device_event(event, result)

    def _after_device_event(self, event: dict[str, Any], result: Result) -> None:
        if event["type"] != "play":
            return
        seat = event["seat"]
        if not result.outcome.accepted:  # a card the seat does not hold: a misread, or a hand not dealt
            where = self.runtime.seat_name(seat)
            message = f"the camera saw {event['card']} at {where}'s place: {result.outcome.reason}"
            self.runtime.publish_status("camera", {"state": "watching", "trick_on_mat": True, "message": message})
            self._refuse(seat, beep=True)
        elif not result.applied:  # a violation that does not stand (it beeped when published)
            self._refuse(seat, beep=False)
        else:
            self.runtime.publish_status("camera", {"state": "watching", "trick_on_mat": True})
            referee = self.runtime.controller.referee
            hand = referee.match.current if referee is not None else None
            if self.vision is not None and hand is not None and not hand.current_trick:
                self.vision.trick_complete()

    def _refuse(self, seat: int, beep: bool) -> None:
        """The card lying at ``seat`` does not count: the camera waits for that seat's next card."""
        if self.vision is not None:
            self.vision.withdraw(seat)
        if beep and self.panel is not None:
            self.panel.alert(seat)

    def _retry_pending(self) -> None:
        if self.runtime.paused is not None or self.runtime.holds or not self._pending:
            return
        pending, self._pending = self._pending, []
        for event in pending:
            self._device_event(event)

    # --- what the table shows (on the controller's thread) -----------------------------------

    def _on_message(self, message: dict[str, Any]) -> None:
        if self._closed:
            return
        violation = message.get("violation")
        if violation is not None and self.panel is not None:
            self.panel.alert(violation.get("seat"))
        self._refresh(message)

    def _refresh(self, message: dict[str, Any] | None = None) -> None:
        referee = self.runtime.controller.referee
        hand = referee.match.current if referee is not None else None
        if message is not None and (message.get("event") or {}).get("type") == "undo":
            self._withdraw_undone(hand)
        self._trick = [] if hand is None else [{"seat": s, "card": str(c)} for s, c in hand.current_trick]
        self._show_turn(hand, referee)
        if self.vision is not None:
            if hand is None:
                self.vision.set_allowed(None)
            else:
                holding = {s: set(hand.holding(s)) for s in range(hand.players)}
                self.vision.set_allowed(holding, {s: holding[s] | _played_by(hand, s) for s in holding})
            self.vision.set_turn(_turn_order(hand))
        self._retry_pending()

    def _withdraw_undone(self, hand: Hand | None) -> None:
        """An undo took a card back: the camera must let that seat play again in this trick."""
        now = set() if hand is None else {s for s, _ in hand.current_trick}
        for played in self._trick:
            if played["seat"] not in now and self.vision is not None:
                self.vision.withdraw(played["seat"])

    def _show_turn(self, hand: Hand | None, referee: Any) -> None:
        if self.panel is None:
            return
        if hand is None or hand.is_over():
            following = referee.match.next_dealer() if referee is not None else None
            if following is not None:
                self.panel.show_dealer(following)
            else:
                self.panel.show_turn(None)
        else:  # the public seat: in Bid Whist's joker exchange no LED names the joker's holder
            self.panel.show_turn(public_to_act(hand))


def _played_by(hand: Hand, seat: int) -> set[Card]:
    """The cards a seat has played this hand (finished tricks and the current one)."""
    played = {c for trick in hand.tricks for s, c in zip(trick.seats, trick.cards, strict=True) if s == seat}
    return played | {c for s, c in hand.current_trick if s == seat}


def _turn_order(hand: Hand | None) -> tuple[int, ...] | None:
    """The seats in the order they are due to act, the one to act first (None between hands)."""
    if hand is None or hand.is_over() or hand.to_act is None:
        return None
    return hand.seat_order(hand.to_act)


def _then(future: Future[Any], change: Callable[[Any], Any]) -> Future[Any]:
    out: Future[Any] = Future()

    def done(f: Future[Any]) -> None:
        if f.exception() is not None:
            out.set_exception(f.exception())  # type: ignore[arg-type]
        else:
            out.set_result(change(f.result()))

    future.add_done_callback(done)
    return out


def _log_refusal(what: str) -> Callable[[Future[Any]], None]:
    def check(future: Future[Any]) -> None:
        exc = future.exception()
        if exc is not None:
            log.warning("the %s button: %s", what, exc)

    return check
