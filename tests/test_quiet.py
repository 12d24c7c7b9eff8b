"""Compiling in one thread leaves another thread's warnings alone: ``warnings.catch_warnings``
swaps the process-wide filters and ``showwarning``, so a background compile used to hide
or misfilter the warnings a user's other thread issued meanwhile."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import astcompile


def _kernels() -> list:
    def a(x):
        return np.sqrt(x * 2.0 + 1.0).sum() * (np.float64(2.0) / 3.0)

    def b(x, y):
        return np.where(x > y, x / (y + 1.0), np.exp(-y))

    def c(x):
        return np.cumsum(x) - x.var(ddof=1) * (2.0 + 3.0)

    def d(x):
        return (x.mean(axis=0) + np.polyval([1.0, 2.0], x)).max()

    return [a, b, c, d]


class _UserThread(threading.Thread):
    """Issues 2000 warnings: a batch each time the compile is in a section where it quiets
    NumPy (where it hides its probes' warnings: the window a filter swap would be open),
    the rest once the compiles are done."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.turn, self.done, self.issued = threading.Semaphore(0), threading.Semaphore(0), 0
        self.finishing = False

    def run(self) -> None:
        while self.issued < 2000:
            self.turn.acquire()
            for _ in range(2000 - self.issued if self.finishing else 20):
                warnings.warn(f"user warning {self.issued}", RuntimeWarning, stacklevel=1)
                self.issued += 1
            self.done.release()

    def take_turn(self) -> None:
        if self.is_alive() and self.issued < 1000:
            self.turn.release()
            self.done.acquire()


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_another_threads_warnings_are_each_shown_once_during_compiles(
    backend, tmp_path, monkeypatch
):
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    user, errstate, shown = _UserThread(), np.errstate, []

    class errstate_handing_over(errstate):
        def __exit__(self, *exc):
            if threading.current_thread() is not user:
                user.take_turn()
            return super().__exit__(*exc)

    monkeypatch.setattr(np, "errstate", errstate_handing_over)
    x, y = np.linspace(0.0, 1.0, 50), np.linspace(1.0, 2.0, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest: shown.append(str(message))
        user.start()
        for fn in _kernels():
            astcompile.compile(fn, backend=backend)(*((x, y) if fn.__name__ == "b" else (x,)))
        user.finishing = True
        user.turn.release()  # the rest
        user.join(60)
    assert [m for m in shown if m.startswith("user")] == [f"user warning {i}" for i in range(2000)]
