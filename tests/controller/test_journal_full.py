"""A full disk: events and the pause answer 503 in words, nothing stray is left
beside the journal, and every acknowledged event survives. The disk is full for real: SQLite's
``max_page_count`` caps the journal, and a small tmpfs (in a user namespace, where the kernel
allows one) fills up; a file-size limit stands in for it where it does not."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from controller.runtime import Runtime
from controller.settings import Settings
from controller.store import Journal
from simulators.people import ROUTES
from tests.conftest import LOGS

MATCH = LOGS / "fifty-six" / "f1-f2-f3-match.json"
EVENTS = json.loads(MATCH.read_text())["events"]
TOKEN = "test-control-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROOT = Path(__file__).resolve().parents[2]


def post_event(client: TestClient, event: dict):
    """Enter a table-log event as the page does."""
    body = {key: value for key, value in event.items() if key != "type"}
    return client.post("/api/deals" if event["type"] == "deal" else ROUTES[event["type"]], json=body, headers=AUTH)


def test_a_full_journal_answers_503_in_words_and_keeps_every_acknowledged_event(tmp_path):
    path = tmp_path / "table.db"
    runtime = Runtime.open(Settings(store={"path": path}), TOKEN)
    try:
        with TestClient(create_app(runtime)) as client:
            assert client.post("/api/matches", json={"game": "fifty-six"}, headers=AUTH).status_code == 201
            # The journal may grow by three pages and no more: SQLite's own "database or disk is full".
            cap = runtime.run(lambda: runtime.journal._db.execute("PRAGMA page_count").fetchone()[0]).result() + 3
            runtime.run(lambda: runtime.journal._db.execute(f"PRAGMA max_page_count = {cap}")).result()
            answers = []
            for event in EVENTS:
                answers.append(post_event(client, event))
                if answers[-1].status_code != 200:
                    break
            accepted = len(answers) - 1
            refused = answers[-1]
            assert accepted > 0 and refused.status_code == 503, refused.text
            assert "the disk is full" in refused.json()["detail"] and "nothing was recorded" in refused.json()["detail"]
            assert client.get("/api/matches").json()[-1]["events"] == accepted  # the refused event never happened
            runtime.run(lambda: runtime.journal._db.execute("PRAGMA max_page_count = 1073741823")).result()
            assert post_event(client, EVENTS[accepted]).status_code == 200  # room again: the table goes on
    finally:
        runtime.stop()
        runtime.journal.close()
    reopened = Journal(path)
    assert reopened.events(1) == EVENTS[: accepted + 1]
    reopened.close()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# Runs in a child whose disk is full: "$folder" is a fresh tmpfs, or the file-size limit is set.
FULL_DISK = textwrap.dedent(
    """
    import json, os, resource, signal, sys
    from pathlib import Path
    from fastapi.testclient import TestClient
    from api.app import create_app
    from controller.runtime import Runtime
    from controller.settings import Settings
    from controller.store import Journal
    from tests.controller.test_journal_full import AUTH, EVENTS, TOKEN, post_event

    folder, how = Path(sys.argv[1]), sys.argv[2]

    def fill_the_disk():
        if how == "file-size-limit":  # writes past one byte fail (EFBIG), as on a full disk
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
            return
        filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        for chunk in (65536, 4096, 1):
            try:
                while True:
                    os.write(filler, b"\\0" * chunk)
            except OSError:
                pass
        os.close(filler)

    def room_again():
        if how == "file-size-limit":
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        else:
            (folder / "filler").unlink()

    def said(answer):
        return [answer.status_code, answer.text if answer.status_code != 200 else None]

    runtime = Runtime.open(Settings(store={"path": folder / "table.db"}), TOKEN)
    seen = {}
    with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
        client.post("/api/matches", json={"game": "fifty-six"}, headers=AUTH)
        seen["before"] = [post_event(client, event).status_code for event in EVENTS[:10]]
        fill_the_disk()
        seen["pause"] = said(client.post("/api/pause", json={"reason": "tea"}, headers=AUTH))
        seen["event"] = said(post_event(client, EVENTS[10]))
        seen["files"] = sorted(p.name for p in folder.iterdir() if p.name != "filler")
        room_again()
        seen["pause after"] = said(client.post("/api/pause", json={"reason": "tea"}, headers=AUTH))
        seen["resume after"] = said(client.post("/api/resume", headers=AUTH))
        seen["event after"] = said(post_event(client, EVENTS[10]))
    runtime.stop()
    runtime.journal.close()
    seen["journal"] = Journal(folder / "table.db").events(1) == EVENTS[:11]
    print(json.dumps(seen))
    """
)


def on_a_full_disk(folder: Path, how: str) -> dict:
    child = [sys.executable, "-c", FULL_DISK, str(folder), how]
    if how == "tmpfs":  # a 2 MiB tmpfs of the child's own, mounted where only it sees it
        mount = 'mount -t tmpfs -o size=2m croupier-full "$1" && shift && exec "$@"'
        child = ["unshare", "--map-root-user", "--mount", "sh", "-c", mount, "sh", str(folder), *child]
    done = subprocess.run(child, capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def a_private_tmpfs_can_be_mounted() -> bool:
    try:
        probe = ["unshare", "--map-root-user", "--mount", "true"]
        return subprocess.run(probe, capture_output=True, timeout=60, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.parametrize("how", ["tmpfs", "file-size-limit"])
def test_a_full_disk_refuses_the_pause_and_the_event_with_503_and_leaves_no_stray_file(tmp_path, how):
    if how == "tmpfs" and not a_private_tmpfs_can_be_mounted():
        pytest.skip("this kernel allows no user namespace to mount a small tmpfs in; the file-size limit stands in")
    seen = on_a_full_disk(tmp_path, how)
    assert seen["before"] == [200] * 10
    status, detail = seen["pause"]
    assert status == 503 and "cannot keep the pause beside the journal" in detail and "is not paused" in detail
    assert seen["event"][0] == 503
    assert not [name for name in seen["files"] if name.endswith(".tmp") or name.endswith(".paused")], seen["files"]
    assert seen["pause after"][0] == seen["resume after"][0] == seen["event after"][0] == 200
    assert seen["journal"]  # the ten acknowledged events, and the one taken once there was room
