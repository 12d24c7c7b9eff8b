"""bench/loops.py times steady state: it waits for compiled code a slow start put off."""

from __future__ import annotations

import types

from astcompile.jit import background
from bench import loops


class PutOff:
    """A compiled function whose first calls spent the compile budget: its region traces on
    the third call, and its build lands in the background."""

    def __init__(self) -> None:
        self.region = types.SimpleNamespace(entries={}, eager_keys=set())
        self._live_regions = [self.region]
        self.calls = 0

    def __call__(self, *args: object) -> None:
        self.calls += 1
        if self.calls == 3:
            self.region.entries = {"key": ["entry"]}


def test_steady_state_waits_for_builds_submitted_after_the_first_call(monkeypatch):
    waits: list[int] = []
    f = PutOff()
    monkeypatch.setattr(background, "wait", lambda: waits.append(f.calls))
    loops._until_built(f, [])
    assert f.calls == 3 and waits == [0, 1, 2, 3]  # the wait after the call that traced


def test_a_region_that_runs_as_written_for_good_ends_the_wait(monkeypatch):
    f = PutOff()
    f.region.eager_keys.add("key")
    monkeypatch.setattr(background, "wait", lambda: None)
    loops._until_built(f, [])
    assert f.calls == 0
