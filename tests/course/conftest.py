"""Fixtures of the course's tests: a student set for the test and put back after it, the kept-id
file in a temporary folder (never the user's own), the attempt counters reset."""
from __future__ import annotations

import pytest

from kernelnb.course import _checks, _identity


@pytest.fixture(autouse=True)
def _course_state(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELNB_STUDENT_FILE", str(tmp_path / "student"))
    for name in ("JUPYTERHUB_USER", "NBGRADER_EXECUTION", "KERNELNB_COURSE_ROSTER",
                 "KERNELNB_LANG"):
        monkeypatch.delenv(name, raising=False)
    before = _identity._current[0]
    _checks.reset_attempts()
    yield
    _identity._current[0] = before
    _checks.reset_attempts()


@pytest.fixture
def as_student():
    """``as_student("alice")``: the data and checks that follow are alice's."""
    def use(name):
        _identity._current[0] = name
        _checks.reset_attempts()
        return name
    return use
