"""The suite passes at any speed: nothing in it is timed against the machine."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def test_hypothesis_has_no_deadline_and_no_too_slow_check_in_this_suite():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
