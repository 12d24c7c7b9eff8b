"""What happened during a call, for ``explain``: graphs traced, breaks met, regions run.

Recording is off unless a :class:`Recorder` is active on this thread. While no recorder is
active anywhere, ``recording`` is 0 and the hot path pays one module-attribute read for it;
``explain`` activates one around the call it explains.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from astcompile.runtime import forksafe

_local = threading.local()
_count_lock = forksafe.module_lock(__name__, "_count_lock")

#: How many recorders are active, on any thread: the hot path's one check.
recording = 0


@dataclass
class RegionRun:
    """Per-region totals within one recording."""

    function: str
    region: str
    lines: tuple[int, int]
    compiled_calls: int = 0
    eager_calls: int = 0
    seconds: float = 0.0  # the region's calls, compiling included
    compile_seconds: float = 0.0  # of ``seconds``: tracing and building its entries
    dask: str = ""  # the Dask operation the region became, when called with Dask arrays


@dataclass
class Recorder:
    graphs: list[Any] = field(default_factory=list)  # (function, region, Graph)
    breaks: list[Any] = field(default_factory=list)  # GraphBreak, static and trace-time
    guards: list[str] = field(default_factory=list)
    runs: dict[tuple[str, str], RegionRun] = field(default_factory=dict)
    functions: list[str] = field(default_factory=list)
    loops: dict[tuple[str, int, int], int] = field(default_factory=dict)  # -> iterations
    loop_reasons: dict[tuple[str, int, int], str] = field(default_factory=dict)  # -> why Python
    eager_seconds: float = 0.0
    total_seconds: float = 0.0

    def __enter__(self) -> Recorder:
        global recording
        self._previous = getattr(_local, "recorder", None)
        _local.recorder = self
        with _count_lock:
            recording += 1
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        global recording
        self.total_seconds = time.perf_counter() - self._start
        _local.recorder = self._previous
        with _count_lock:
            recording -= 1

    def add_break(self, graph_break: Any) -> None:
        key = (graph_break.filename, graph_break.line, graph_break.code)
        if all((b.filename, b.line, b.code) != key for b in self.breaks):
            self.breaks.append(graph_break)

    def note_function(self, name: str, static_breaks: Any) -> None:
        if name not in self.functions:
            self.functions.append(name)
            for graph_break in static_breaks:
                self.add_break(graph_break)

    def loop(self, function: str, first: int, last: int, iterable: Any) -> Any:
        """Count the iterations of a loop that runs in Python (lines ``first``-``last``)."""
        key = (function, first, last)
        self.loops.setdefault(key, 0)
        if hasattr(iterable, "__len__"):
            self.loops[key] += len(iterable)
            return iterable
        return self._counted(key, iterable)

    def _counted(self, key: tuple[str, int, int], iterable: Any) -> Any:
        for item in iterable:
            self.loops[key] += 1
            yield item

    def region_run(self, function: str, region: str, lines: tuple[int, int]) -> RegionRun:
        key = (function, region)
        if key not in self.runs:
            self.runs[key] = RegionRun(function, region, lines)
        return self.runs[key]


def active() -> Recorder | None:
    """This thread's recorder, if any (cheap when none is active anywhere)."""
    return getattr(_local, "recorder", None) if recording else None
