"""The club service is a second composition root: it uses the engine and its own broker and
database adapters, never the table's devices; and the table never loads the database's driver."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_architecture import imported_roots

ROOT = Path(__file__).resolve().parents[2]
THIRD_PARTY = {"psycopg", "paho", "fastapi", "pydantic", "pydantic_settings", "typer", "uvicorn"}


def test_the_club_imports_only_the_engine_and_its_own_adapters():
    for module, names in imported_roots("club").items():
        outside = {n for n in names if n not in {"club", "engine", *THIRD_PARTY} and n not in sys.stdlib_module_names}
        assert not outside, f"{module} imports {outside}"


def test_the_tables_command_line_never_loads_the_database_driver():
    code = (
        "import sys, controller.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'uvicorn')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
