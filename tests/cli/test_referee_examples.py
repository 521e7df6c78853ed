"""Every worked example of rules.md, as a table log, replayed by `croupier referee --json`."""

from __future__ import annotations

import json

import pytest

from tests.conftest import LOGS, example_logs, expected_for, run_croupier

# Every game folder under tests/logs: adding an example means adding two files.
EXAMPLES = [p for folder in sorted(LOGS.iterdir()) if folder.name != "malformed" for p in example_logs(folder.name)]


@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_referee_reproduces_the_example(log):
    done = run_croupier("referee", "--json", str(log))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_for(log)
