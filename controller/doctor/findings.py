"""What a check found: a status, what was seen, and what to do about it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"  # works, but not as it should on the table (the fix says why)
    FAIL = "fail"
    SKIP = "skip"  # not checked: nothing to check, or a check it depends on failed


@dataclass(frozen=True, slots=True)
class Finding:
    group: str  # camera, dealer, panel, system
    check: str  # what was checked, in a few words
    status: Status
    detail: str  # what was found
    fix: str = ""  # what to do (for a failure or a warning)

    def as_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "check": self.check,
            "status": str(self.status),
            "detail": self.detail,
            "fix": self.fix,
        }


def passed(group: str, check: str, detail: str) -> Finding:
    return Finding(group, check, Status.PASS, detail)


def failed(group: str, check: str, detail: str, fix: str) -> Finding:
    return Finding(group, check, Status.FAIL, detail, fix)


def skipped(group: str, check: str, why: str) -> Finding:
    return Finding(group, check, Status.SKIP, why)


def report(findings: list[Finding], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``--json`` document: ``ok`` when nothing failed, every finding in order."""
    return {
        "ok": all(f.status is not Status.FAIL for f in findings),
        "checks": [f.as_dict() for f in findings],
        **(extra or {}),
    }
