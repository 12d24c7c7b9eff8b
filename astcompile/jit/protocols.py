"""What the call-time layer and the pipeline use of each other, named as small Protocols.

A :class:`~astcompile.jit.regions.Region` belongs to a
:class:`~astcompile.jit.function.CompiledFunction` (its :class:`Owner`); the pipeline and the
warm cache work on a region (:class:`CompilingRegion`). Naming only what each side uses keeps
the modules free of imports of each other (see tests/test_jit_layer.py: no import cycles).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from astcompile.frontend.breaks import GraphBreak
    from astcompile.frontend.spec import RegionSpec
    from astcompile.ir.results import TraceResult
    from astcompile.jit.budget import Budget
    from astcompile.jit.entries import Entry
    from astcompile.jit.failures import Why
    from astcompile.targets import Backend
    from astcompile.trace.context import TraceBreak


class Owner(Protocol):
    """The compiled function a region belongs to: its options and services."""

    fn: Callable[..., Any]
    name: str
    backend_name: str
    cache_digest: str | None
    rewritten_source: str | None  # the source its regions were made from
    all_eager: bool
    mode: str  # "default" or "frozen"
    python_loops: set[int]
    python_lines: set[int]
    budget: Budget

    def target(self, args: tuple | None = None) -> Backend: ...

    def target_name(self) -> str: ...

    def new_region(
        self, spec: RegionSpec, body: Callable[..., tuple], traced: Callable[..., tuple]
    ) -> CompilingRegion: ...

    def compile_callee(self, fn: Callable[..., Any]) -> Callable[..., Any]: ...

    def dispatch(self, callee: Any, /, *args: Any, **kwargs: Any) -> Any: ...

    def recurse(self, args: tuple, kwargs: dict, compiled: bool = True) -> Any:
        """A call of itself from its own compiled path: that path again, directly, or (not
        ``compiled``) the user's function, its own calls by name reaching it directly."""
        ...

    def python_loop(self, first: int, last: int, iterable: Any) -> Any: ...

    def keep_loops_in_python(
        self, spec: RegionSpec, line: int | None = None, only_holding: bool = False
    ) -> bool: ...

    def keep_lines_in_python(self, first: int, last: int) -> bool: ...

    def trace_break(self, exc: TraceBreak) -> GraphBreak: ...

    def analysis_changed(self) -> bool:
        """Whether a name the analysis resolved means something else now (then the function
        is rewritten on its next call)."""
        ...

    def compare_again(self, cheaper: bool = False) -> None:
        """What the compiled path costs changed: measuring compares the paths again (where it
        only got ``cheaper``, a compiled choice stands)."""
        ...


class CompilingRegion(Protocol):
    """A region as the pipeline compiles it and the warm cache fills it."""

    owner: Owner
    spec: RegionSpec
    names: tuple[str, ...]
    pending: set[tuple]  # keys whose build the budget sent to the background
    handoffs: dict[tuple, Any]  # of those, builds the call that traced them waits for

    def trace(self, key: tuple, args: tuple, observed: dict | None = None) -> TraceResult: ...

    def on_trace_break(self, key: tuple, exc: TraceBreak) -> GraphBreak: ...

    def on_trace_failure(self, key: tuple, exc: Exception) -> GraphBreak: ...

    def add_eager_key(self, key: tuple) -> None: ...

    def give_up(
        self, key: tuple, args: tuple, why: Why, certain: bool = True, sized: bool = False
    ) -> None: ...

    def remember_plain(self, cls: tuple, why: Why) -> None: ...

    def add_entry(self, entry: Entry) -> None: ...

    def add_loaded(self, entries: Iterable[Entry]) -> None: ...

    def record_graph(self, result: TraceResult) -> None: ...
