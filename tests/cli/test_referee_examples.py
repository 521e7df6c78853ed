"""Every worked example of rules.md, as a table log, replayed by `croupier referee --json`."""

from __future__ import annotations

import json

import pytest

from tests.conftest import example_logs, expected_for, run_croupier

EXAMPLES = [p for game in ("poley",) for p in example_logs(game)]


@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_referee_reproduces_the_example(log):
    done = run_croupier("referee", "--json", str(log))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_for(log)
