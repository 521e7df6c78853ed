"""The simulated firmware's answers to the host's commands (a mixin of DealerFirmware).

Each command is idempotent by state, and keyed where it moves a card: a ROUTE acts only on
the card waiting at the reader with that read index (docs/protocol.md, section 8). The reply
cache answers a repeated ``cmd_id`` without acting again.
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.protocol import (
    NO_CARD,
    NO_READ,
    PROTOCOL_VERSION,
    REJECT,
    SCHEMA,
    Abort,
    ClearFault,
    FaultCode,
    Finish,
    GetStatus,
    Hello,
    HelloReq,
    Message,
    Pause,
    Purge,
    Purged,
    Reply,
    Result,
    Resume,
    Route,
    Start,
    State,
    Status,
    Stop,
)

SLOTS = 8  # seats 0-5, the rest, the reject tray
FW_VERSION = 0x0100


class CommandHandlers:
    """Command handling; the state it reads and writes belongs to DealerFirmware."""

    # Attributes of DealerFirmware used here (declared for readers and type checkers).
    channel: Any
    state: State
    fault: FaultCode
    plan_id: int
    next_read: int
    path: list[Any]
    slots: list[list[Any]]
    hopper: list[Any]
    estop_pressed: bool
    audit: Any
    boot_id: int
    _session: bool
    _staged: int | None
    _stage: str
    _replies: Any
    _pause_requested: bool
    _abort_requested: bool
    _reboot_in_path: bool

    def _handle(self, msg: Message) -> None:
        if isinstance(msg, HelloReq):
            self._hello_req(msg)
            return
        if isinstance(msg, Stop):
            if self.state == State.DEALING:
                self.state = State.PAUSED
            return
        cmd_id = getattr(msg, "cmd_id", None)
        if cmd_id is None:
            return  # heartbeat: receiving it renewed the lease
        if cmd_id in self._replies:  # a retransmitted command: answer again, do nothing
            self.channel.send(self._replies[cmd_id])
            return
        reply = self._status(cmd_id) if isinstance(msg, GetStatus) else Reply(cmd_id, *self._execute(msg))
        self._replies[cmd_id] = reply
        while len(self._replies) > 16:
            self._replies.popitem(last=False)
        self.channel.send(reply)

    def _hello_req(self, req: HelloReq) -> None:
        if req.proto_ver != PROTOCOL_VERSION or req.schema != SCHEMA:
            self.channel.send(self._hello(req.nonce))  # the host sees our version and gives up
            return
        if not self._session or req.epoch != self.channel.epoch:
            self.channel.restart(req.epoch)
            self._session = True
        self.channel.send(self._hello(req.nonce))

    def _hello(self, nonce: int) -> Hello:
        return Hello(
            nonce, PROTOCOL_VERSION, SCHEMA, FW_VERSION, self.boot_id, self.channel.epoch, SLOTS,
            self.state, self.plan_id, self.next_read, len(self.path),
        )  # fmt: skip

    def _status(self, cmd_id: int) -> Status:
        return Status(
            cmd_id, self.state, self.fault, self.plan_id, self.next_read, len(self.hopper),
            len(self.path), len(self.slots[REJECT]),
        )  # fmt: skip

    def _execute(self, msg: Message) -> tuple[int, int]:
        handler = {
            Start: self._start,
            Route: self._route,
            Pause: self._pause,
            Resume: self._resume,
            Abort: self._abort,
            Finish: self._finish,
            Purge: self._purge,
            ClearFault: self._clear_fault,
        }.get(type(msg))
        if handler is None:
            return Result.UNKNOWN, 0
        return handler(msg), 0

    def _start(self, msg: Start) -> int:
        if self.state in (State.FAULT, State.ESTOP):
            return Result.FAULTED
        if self.state != State.IDLE:
            return Result.OK_ALREADY if msg.plan_id == self.plan_id else Result.PLAN_CONFLICT
        if self.path:
            return Result.BAD_STATE  # a card from before a reset: the host must PURGE first
        self.plan_id, self.next_read = msg.plan_id, msg.first_read
        self.state, self._stage, self._reboot_in_path = State.DEALING, "feed", False
        return Result.OK

    def _route(self, msg: Route) -> int:
        if msg.plan_id != self.plan_id or self.state == State.IDLE:
            return Result.PLAN_CONFLICT if self.state != State.IDLE else Result.BAD_STATE
        if msg.read_idx != self._staged or self._stage != "await_route":
            # Keyed by read index: a route for a card already on its way, or gone, moves nothing.
            return Result.OK_ALREADY if msg.read_idx < self.next_read else Result.BAD_STATE
        if self.state in (State.FAULT, State.ESTOP) or not 0 <= msg.dest < SLOTS:
            return Result.FAULTED if self.state != State.DEALING else Result.BAD_STATE
        self.audit.routes[(msg.plan_id, msg.read_idx)] += 1
        self._turn(msg.dest, chained=False)  # the card waited for the host: that wait is not mechanics
        return Result.OK

    def _pause(self, msg: Pause) -> int:
        if self.state == State.PAUSED:
            return Result.OK_ALREADY
        if self.state != State.DEALING:
            return Result.BAD_STATE
        self._pause_requested = True
        return Result.OK

    def _resume(self, msg: Resume) -> int:
        if self.state == State.DEALING:
            self._pause_requested = False
            return Result.OK_ALREADY
        if self.state != State.PAUSED:
            return Result.FAULTED if self.state in (State.FAULT, State.ESTOP) else Result.BAD_STATE
        self.state, self.fault = State.DEALING, FaultCode.NONE
        if self._stage == "idle":
            self._stage = "feed"
        return Result.OK

    def _abort(self, msg: Abort) -> int:
        if self.state == State.IDLE:
            return Result.OK_ALREADY
        if self._stage == "await_route" and self.state in (State.DEALING, State.PAUSED):
            self._abort_requested = True
            self.state = State.DEALING
            self._turn(REJECT)  # the card waiting at the reader goes to the reject tray
        elif self._stage in ("turning", "throwing") and self.state == State.DEALING:
            self._abort_requested = True  # the card in flight finishes where it was routed
        else:
            self._idle()
        return Result.OK

    def _finish(self, msg: Finish) -> int:
        if self.state == State.IDLE:
            return Result.OK_ALREADY
        if self.path:
            return Result.BAD_STATE
        self._idle()
        return Result.OK

    def _purge(self, msg: Message) -> int:
        if self.estop_pressed:
            return Result.FAULTED
        cards, read_idx = self.path, self._staged
        self.slots[REJECT].extend(cards)
        self.path, self._staged = [], None
        card = cards[0].card if len(cards) == 1 and read_idx is not None else NO_CARD
        self._emit(Purged(0, len(cards), NO_READ if read_idx is None else read_idx, card))
        if self._stage in ("await_route", "turning", "throwing", "feeding"):
            self._stage = "feed"
        return Result.OK

    def _clear_fault(self, msg: ClearFault) -> int:
        if self.fault != msg.fault or self.state not in (State.FAULT, State.ESTOP):
            return Result.OK_ALREADY
        if msg.fault == FaultCode.JAM and self.path:
            return Result.BAD_STATE  # the sensor still sees the card
        if msg.fault == FaultCode.ESTOP and self.estop_pressed:
            return Result.BAD_STATE
        if msg.fault == FaultCode.JAM:
            self._staged, self._stage = None, "feed"
        self.state = State.PAUSED
        return Result.OK
