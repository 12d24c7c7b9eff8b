"""The test clock of the tiering tests (jit/tiering.py): each sampled call "takes" the time
the test assigns to its path, so that no test decides anything by real timing."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.jit import resample, tiering


class FakeClock:
    """Each read advances by the cost of the path being timed: two reads make one sample."""

    def __init__(self, compiled: float, plain: float) -> None:
        self.costs = {"compiled": compiled, "plain": plain}
        self.queued: dict[str, list[float]] = {"compiled": [], "plain": []}
        self.ends = {"compiled": False, "plain": False}  # whether the next read ends a sample
        self.taken = {"compiled": 0, "plain": 0}  # samples timed of each path
        self.now = 0.0

    def queue(self, path: str, *seconds: float) -> None:
        """The next samples of ``path`` take these times (one preempted call, say); then its
        cost again."""
        self.queued[path].extend(seconds)

    def __call__(self) -> float:
        path = tiering.timing_path
        queued = self.queued[path]
        self.now += queued[0] if queued else self.costs[path]
        if self.ends[path]:
            self.taken[path] += 1
            if queued:
                queued.pop(0)
        self.ends[path] = not self.ends[path]
        return self.now


def install(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Tiering on, timed by a :class:`FakeClock`, with an exact schedule and no thread."""
    fake = FakeClock(compiled=10e-6, plain=1e-6)
    monkeypatch.setattr(astcompile.config, "tiering", True)
    monkeypatch.setattr(tiering, "clock", fake)
    monkeypatch.setattr(tiering.random, "randrange", lambda n: 0)  # no jitter: exact schedule
    monkeypatch.setattr(resample, "resampler", resample.Resampler(threaded=False))
    return fake


def axpy(a, x, y):
    return a * x + y


def axpy_args(n=8):
    rng = np.random.default_rng(0)
    return 2.0, rng.random(n), rng.random(n)


def calls_until_choice() -> int:
    return tiering.WARMUP_CALLS - 1 + 2 * tiering.ROUNDS
