"""The OpenAPI schema tells the truth: every answer is one it documents, in the shape it documents.

Schemathesis generates requests from the schema (valid ones, and invalid ones of every kind) and
checks each answer against it, on a real server; the other tests pin the faults it once found.
"""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient

from api.app import create_app
from tests.api.conftest import AUTH, TOKEN, start

# The run's bounds: a few cases per operation and phase (about 650 requests in all, under a minute
# on a loaded machine), the same cases on every run, nothing kept between runs (no example database,
# no cache of earlier failures to replay).
SCHEMATHESIS_CONFIG = """
[cache]
enabled = false

[generation]
deterministic = true
max-examples = 8
database = "none"

[checks.positive_data_acceptance]
# A request the schema allows may still be refused with 422, as documented: an event the referee
# calls malformed (a card the seat does not hold: no schema knows the hands), and an integer written
# as 2.0, which JSON Schema counts as an integer and the table does not.
expected-statuses = ["2XX", "404", "409", "422"]
"""


def test_every_answer_is_one_the_schema_documents(server, tmp_path):
    """Schemathesis's four phases (the schema's examples; its boundaries, wrong methods and malformed
    bodies; random cases; sequences of calls) against a real server whose table is in the middle of
    a hand, so that actions reach the referee (a fresh table answers every action 409, no match)."""
    with httpx.Client(base_url=f"http://{server}", headers=AUTH, timeout=30) as http:
        assert http.post("/api/matches", json={"game": "poley"}).status_code == 201
        assert http.post("/api/deals", json={"dealer": 0}).status_code == 200
        operations = sum(len(methods) for methods in http.get("/openapi.json").json()["paths"].values())
    config = tmp_path / "schemathesis.toml"
    config.write_text(SCHEMATHESIS_CONFIG)
    command = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color", "run"]
    command += [f"http://{server}/openapi.json", "--header", f"Authorization: Bearer {TOKEN}"]
    command += ["--request-timeout", "60"]
    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-20_000:]
    assert f"Tested: {operations}" in report, report[-5_000:]


JSON = {"content-type": "application/json"}
REFUSALS = [  # each status schemathesis once found undocumented, or documented in another shape
    ("POST", "/api/calls", {"content": b'{"seat": 1, "call": "pass"}', "headers": JSON}, 401),
    ("GET", "/api/matches/7/log", {}, 404),
    ("POST", "/api/correct", {"json": {"card": "AS"}, "headers": AUTH}, 409),
    ("POST", "/api/plays", {"content": b" " * 70_000, "headers": {**AUTH, **JSON}}, 413),
    ("POST", "/api/calls", {"json": {"seat": "1", "call": "pass"}, "headers": AUTH}, 422),  # the shape
    ("POST", "/api/calls", {"json": {"seat": 1, "call": "4high"}, "headers": AUTH}, 422),  # the referee
    ("POST", "/api/calls", {"content": b"\xff\xfe", "headers": {**AUTH, **JSON}}, 422),  # not UTF-8
    ("GET", "/api/matches/seven/log", {}, 422),
]


@pytest.mark.parametrize(("method", "path", "request_", "status"), REFUSALS)
def test_each_refusal_is_documented_with_its_shape(client, runtime, method, path, request_, status):
    start(client, "poley")
    client.post("/api/deals", json={"dealer": 0}, headers=AUTH)
    document = create_app(runtime).openapi()
    template = "/api/matches/{match_id}/log" if path.startswith("/api/matches/") else path
    answer = client.request(method, path, **request_)
    assert answer.status_code == status, answer.text
    assert isinstance(answer.json()["detail"], str)  # in words, as the page shows it
    assert str(status) in document["paths"][template][method.lower()]["responses"]
    schemathesis.openapi.from_dict(document)[template][method].validate_response(answer)  # the body's shape


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"seat": 1, "call": "pass"\xff}', "body: not JSON: not UTF-8 text (at character 26)"),
        (
            b'{"seat": 1' + b"1" * 5000 + b', "call": "pass"}',
            "body: not JSON: a number of over 4300 digits (at character 9)",
        ),
        (b"[" * 50_000, "body: not JSON: nested too deeply"),
        (b'{"seat": 1,', "body: not JSON: Expecting property name enclosed in double quotes (at character 11)"),
    ],
)
def test_a_body_that_is_not_json_is_a_422_that_says_why(client, body, words):
    answer = client.post("/api/calls", content=body, headers={**AUTH, **JSON})
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith(words), answer.json()
    assert answer.json()["errors"] == [{"loc": ["body"], "msg": answer.json()["detail"].removeprefix("body: ")}]


def test_a_wrong_method_names_every_method_of_the_path(client: TestClient):
    for method, path, allowed in [
        ("OPTIONS", "/api/pause", "POST"),
        ("GET", "/api/calls", "POST"),
        ("OPTIONS", "/api/matches", "GET, POST"),
        ("DELETE", "/api/matches/1/log", "GET"),
    ]:
        answer = client.request(method, path)
        assert answer.status_code == 405, (method, path, answer.text)
        assert answer.headers["allow"] == allowed, (method, path)
        assert answer.json() == {"detail": "Method Not Allowed"}
    assert client.get("/api/no-such-thing").json() == {"detail": "Not Found"}  # the API's 404, not the page's
    assert "<html" in client.get("/").text.lower()  # the page is still served
