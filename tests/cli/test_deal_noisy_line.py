"""``croupier deal --sim`` on a noisy serial line: every deal ends with the contract's JSON (design.md, contract 3).

A line that corrupts 5 % of its bytes, or drops 10 %, loses most handshakes. The deal must still
complete, or be void with a message, exit 0 with its JSON either way, and never lie about a slot.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

LINES = ("corrupt=0.05", "drop=0.1")
SEEDS = (1, 2)


def start_deal(faults: str, seed: int) -> subprocess.Popen[str]:
    # The deals run side by side: each spends most of its time waiting on the protocol's timers.
    command = ["deal", "--sim", "--game", "poley", "--speed", "1000", "--seed", str(seed), "--faults", faults, "--json"]
    return subprocess.Popen(
        [sys.executable, "-m", "controller", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_noisy_line_ends_every_deal_with_the_contracts_json():
    runs = {(faults, seed): start_deal(faults, seed) for faults in LINES for seed in SEEDS}
    for (faults, seed), process in runs.items():
        stdout, stderr = process.communicate(timeout=800)
        where = f"--faults {faults} --seed {seed}: {stderr}"
        assert process.returncode == 0, where
        result = json.loads(stdout)
        assert result["status"] in ("complete", "void"), where
        if result["status"] == "void":
            assert result["message"].strip(), result
        else:
            assert [len(h) for h in result["hands"]] == [5, 5, 5, 5] and len(result["rest"]) == 2, result
        assert_no_card_lost_or_invented(result)
        assert {"retransmissions", "resets", "faults"} <= set(result["stats"])


def assert_no_card_lost_or_invented(result: dict) -> None:
    """The host's belief is what the machine holds. When the line gave out before the machine
    confirmed a delivery, the host cannot know: it must name that card, never claim or drop it."""
    believed = [*result["hands"], result["rest"]]
    held = [*result["machine"]["hands"], result["machine"]["rest"]]
    if result["status"] == "complete":
        assert believed == held, result
        return
    for host, machine in zip(believed, held, strict=True):
        assert not Counter(host) - Counter(machine), result  # never a card that is not there
        for card in Counter(machine) - Counter(host):
            assert "never confirmed" in result["message"] and f"({card})" in result["message"], result
