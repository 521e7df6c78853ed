"""Running the web server as ``croupier serve`` does: uvicorn, and systemd told when the table is
ready (its page answers), fed its watchdog while the table's controller answers, and told when it
stops (controller/sd_notify.py). Outside systemd it is uvicorn as ``uvicorn.run`` runs it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn

from controller.sd_notify import Watchdog, notify, watchdog_period_s

STARTUP_FAILURE = 3  # uvicorn.run's exit status when the server never started (the address, the app)
_LOOK_S = 0.05


def run_server(app: Any, host: str, port: int, options: dict[str, Any], alive: Callable[[float], bool]) -> None:
    """Serve ``app`` until stopped; ``alive`` probes the table's controller for the watchdog."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", **options))
    readiness = threading.Thread(target=_when_ready, args=(server, host, port, alive), name="ready", daemon=True)
    readiness.start()
    try:
        server.run()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, re-raised by uvicorn once it has shut down
        pass
    finally:
        server.should_exit = True
        notify("STOPPING=1")
        readiness.join()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def _when_ready(server: uvicorn.Server, host: str, port: int, alive: Callable[[float], bool]) -> None:
    """Wait for the server to listen, say so to systemd, then feed the watchdog until it stops."""
    while not server.started:
        if server.should_exit:
            return
        time.sleep(_LOOK_S)
    notify("READY=1", f"STATUS=serving the table on http://{host}:{port}/")
    period = watchdog_period_s()
    if period is None:
        return
    watchdog = Watchdog(alive, period)
    watchdog.start()
    while not server.should_exit:
        time.sleep(_LOOK_S)
    watchdog.stop()
