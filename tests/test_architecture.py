"""The dependency direction of docs: the engine imports nothing outside the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"engine", "controller", "simulators", "benchmarks", "firmware_bridge", "vision", "hardware", "api"}


def imported_roots(package: str) -> dict[str, set[str]]:
    """The top-level packages imported by each module of a package."""
    return {module: {n.split(".")[0] for n in names} for module, names in imported_modules(package).items()}


def test_engine_uses_only_the_standard_library_and_itself():
    for module, names in imported_roots("engine").items():
        outside = {n for n in names if n != "engine" and n not in sys.stdlib_module_names}
        assert not outside, f"{module} imports {outside}"


def test_engine_never_reaches_for_io_clocks_or_randomness():
    forbidden = {"random", "time", "datetime", "os", "socket", "threading", "secrets", "subprocess"}
    allowed = {"engine/log.py": {"json"}}
    for module, names in imported_roots("engine").items():
        assert not (names & forbidden) - allowed.get(module, set()), module


def test_the_hardware_never_imports_the_engine():
    for package in ("hardware",):
        if (ROOT / package).is_dir():
            for module, names in imported_roots(package).items():
                assert "engine" not in names, f"{module} imports the engine"


def test_vision_uses_only_engine_cards_from_the_project():
    for module, names in imported_modules("vision").items():
        project = {n for n in names if n.split(".")[0] in PROJECT}
        outside = {n for n in project if n.split(".")[0] != "vision" and n != "engine.cards"}
        if module.startswith("vision/training/"):
            # The training (an optional extra) learns from the project's own faces too.
            outside -= {"simulators.card_faces"}
        assert not outside, f"{module} imports {outside}"


def test_the_table_never_imports_the_training():
    # The table loads the exported network; PyTorch and the data generator stay out of it.
    for package in ("vision", "controller", "api", "simulators", "hardware", "firmware_bridge"):
        for module, names in imported_modules(package).items():
            if not module.startswith("vision/training/"):
                assert not {n for n in names if n.startswith("vision.training") or n == "torch"}, module


def imported_modules(package: str) -> dict[str, set[str]]:
    """Full dotted names imported by each module of a package."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_the_firmware_bridge_never_imports_the_engine():
    # Seats and card ids are plain values on the wire; only controller/ wires engine and bridge.
    for module, names in imported_roots("firmware_bridge").items():
        outside = {n for n in names if n not in {"firmware_bridge", "serial"} and n not in sys.stdlib_module_names}
        assert not outside, f"{module} imports {outside}"
