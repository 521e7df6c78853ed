"""The dealing machine at the table: one deal at a time, on its own thread, reported as it goes.

The table asks for a deal (the deal button, the page); the service runs the bridge's
:class:`~firmware_bridge.dealer.Dealer` on a thread of its own, so the table keeps answering while
the cards fly, and reports through callbacks: each card dealt (progress), each fault in words
with its remedy, the serial link lost and back (the table holds while it is gone), and finally
the deal itself, complete with every hand, or void with the reason (a card missing, named).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import BridgeError
from firmware_bridge.events import CardDealt, DealResult, FaultRaised, Operator
from firmware_bridge.link import Link, LinkUp
from firmware_bridge.plan import DealPlan

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DealProgress:
    dealt: int
    total: int


def _ignore(*_: Any) -> None:
    """No one listening (yet)."""


class DealerBusy(RuntimeError):
    """A deal was asked for while one is under way."""


class DealerService:
    def __init__(
        self,
        link: Link,
        on_progress: Callable[[DealProgress], None] = _ignore,
        on_fault: Callable[[FaultRaised], None] = _ignore,
        on_link: Callable[[bool], None] = _ignore,
        on_result: Callable[[DealResult, dict[str, Any]], None] = _ignore,
        rng: Any = None,
    ) -> None:
        # The callbacks are usually connected afterwards by whoever runs the table (LiveTable).
        self.link = link
        self.on_progress = on_progress
        self.on_fault = on_fault
        self.on_link = on_link
        self.on_result = on_result
        self.rng = rng  # the slot draw's generator: secrets.SystemRandom unless a simulation seeds it
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._dealer: Dealer | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def deal(self, plan: DealPlan, operator: Operator, context: dict[str, Any]) -> None:
        """Start a deal; ``on_result`` gets its result and ``context`` (the dealer seat...)."""
        with self._lock:
            if self.busy:
                raise DealerBusy("the machine is already dealing")
            self._thread = threading.Thread(
                target=self._run, args=(plan, operator, context), name="dealer-deal", daemon=True
            )
            self._thread.start()

    def abort(self, reason: str) -> None:
        dealer = self._dealer
        if dealer is not None:
            dealer.abort(reason)

    def wait(self, timeout_s: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def close(self) -> None:
        self.abort("the table is shutting down")
        self.wait(10.0)
        self.link.close()

    def _run(self, plan: DealPlan, operator: Operator, context: dict[str, Any]) -> None:
        kwargs = {} if self.rng is None else {"rng": self.rng}
        self._dealer = Dealer(self.link, observer=self._observe, **kwargs)
        try:
            result = self._dealer.deal(plan, operator)
        except BridgeError as exc:  # the Dealer voids what it can; anything else is still a void
            log.exception("the deal failed")
            result = DealResult("void", str(exc), [], [])
        finally:
            self._dealer = None
        self.on_link(True)  # whatever happened to the link, the deal is over: nothing to wait for
        self.on_result(result, context)

    def _observe(self, event: Any) -> None:
        try:
            if isinstance(event, CardDealt):
                self.on_link(True)
                self.on_progress(DealProgress(event.dealt, event.total))
            elif isinstance(event, FaultRaised):
                if event.code == "link":
                    self.on_link(False)
                self.on_fault(event)
            elif isinstance(event, LinkUp):
                self.on_link(True)
        except Exception:  # the table's handlers failing must never break the deal
            log.exception("reporting %s failed", type(event).__name__)
