"""Failures are remembered: a region that cannot compile for a kind of argument stops trying.

A region's guard key is exact: a list's key holds the key of every element, an int's its
magnitude class. That is right for a compiled entry, but wrong for a failure. A loop left in
Python that calls a region writing into a list it was given (``out[i] = i * 2.0``: GB012)
changes that list's key at every iteration, and a region retraced on every new key would trace
once per iteration (seconds per call where the plain loop takes microseconds). A trace break,
a target that cannot lower the graph, a graph of scalar arithmetic only: none of these depends
on a list's length or contents, nor on an int's magnitude, so one failure stands for the whole
*class* of the arguments (:func:`failure_class`), and the region runs its own statements for
every call of that class from then on, in this process and, through the warm cache
(``jit/warm.py``), in the next.

A tracer exception that is not a break is either the user's error (the plain statements raise
it again: nothing is learned, a later call with good arguments may compile) or a gap in the
tracer (the plain statements run fine: it would fail again), so it counts for the class only
once the plain run has succeeded (:meth:`Failures.suspect`, :meth:`Failures.confirm`).
"""

from __future__ import annotations

import linecache
import threading
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from astcompile import logs
from astcompile.jit import telemetry
from astcompile.runtime import guards as G

if TYPE_CHECKING:
    from astcompile.frontend.breaks import GraphBreak
    from astcompile.frontend.spec import RegionSpec
    from astcompile.jit.protocols import Owner
    from astcompile.trace.context import TraceBreak

Why = Union["GraphBreak", str]  # what a failure class is remembered with: a break, or words

_NUMBERS = (int, float, complex, bool, np.generic)
#: Trace breaks that depend on magnitudes: remembered for the sized class (see failure_class).
SIZED_REASONS = frozenset({"INT_OVERFLOW", "LARGE_CONTAINER"})
#: Trace breaks that an argument's kind makes (a list of NumPy floats): they say nothing of the
#: region's lines, so its loops stay native for other classes (arrays), and that class alone
#: runs the statements. Sending the loops to Python for the function made every later array
#: call run the loop in Python (a histogram loop 17x slower than plain with tiering off, and
#: persisted for the next process).
ARGUMENT_REASONS = frozenset({"UNSUPPORTED_ARGUMENT"})
#: Strings are classed by value (they steer the trace), so a loop over words calling a region
#: that breaks traced once per word until ``cache_size_limit``, then warned. After this many
#: failing strings (or NumPy scalar types) in an otherwise equal class, every string (NumPy
#: scalar) of that class runs plain.
STRING_FAILURES = 2


def failure_class(args: tuple, sized: bool = False) -> tuple:
    """What a failure of a region on ``args`` says about other calls: arrays by dtype, rank,
    which sizes are 0 or 1 and layout; Python ints and floats by type; containers by type
    (tuples with their length) and the class of their first item, where numbers are one class
    (``[0] * n`` filled with floats is the same list); the rest as the guard key has it (bools,
    None and strings by value: they steer the trace). Costs O(nesting), not O(length).

    ``sized``: for a failure that depends on magnitudes (a Python int beyond int64, a list too
    long to trace), ints by their guard class and lists by the bit length of their length too,
    so that smaller ones still compile (and a loop still traces a bounded number of times)."""
    return (
        ("sized", *(_class(a, sized, True) for a in args))
        if sized
        else tuple(_class(a, False, True) for a in args)
    )


def _class(value: Any, sized: bool, top: bool = False) -> Any:
    kind = type(value)
    if kind is np.ndarray:
        layout = "C" if value.flags.c_contiguous else "F" if value.flags.f_contiguous else "S"
        return (np.ndarray, value.dtype, tuple(min(d, 2) for d in value.shape), layout)
    if kind is list or kind is tuple:
        first = _class(value[0], sized) if value else None
        size = len(value) if kind is tuple else len(value).bit_length() if sized else None
        return (kind, size, first)
    if sized and kind is int:
        return (int, G.int_class(value))
    if not top and isinstance(value, _NUMBERS):
        return "number"
    if kind is int or kind is float or kind is complex:
        return kind
    return G.value_key(value, {})


def without_strings(cls: Any) -> Any:
    """``cls`` with every string's value dropped (``(str, "word")`` becomes ``(str,)``), and
    every NumPy scalar's type: a loop left in Python calling a region that appends its items
    to a list breaks for each item dtype (twice: the list empty, then not), and a loop over
    arrays of five dtypes hit cache_size_limit with nothing compiled, and warned."""
    if type(cls) is not tuple:
        return cls
    if len(cls) == 2 and cls[0] is str:
        return (str,)
    if len(cls) == 1 and isinstance(cls[0], type) and issubclass(cls[0], np.generic):
        return (np.generic,)
    return tuple(without_strings(c) for c in cls)


class Failures:
    """A region's failure classes, and the messages it has logged (each is said once)."""

    def __init__(self) -> None:
        self.plain: dict[tuple, Why] = {}  # failure class -> why it runs plain
        self._sized = False  # whether some class in ``plain`` is a sized one
        self._strings: dict[tuple, int] = {}  # class less its strings -> failing classes
        self._any_string = False  # whether some class in ``plain`` has its strings dropped
        self._suspects: dict[tuple, tuple[tuple, Why]] = {}  # guard key -> (class, why)
        self._said: set[str] = set()
        self._lock = threading.Lock()

    def runs_plain(self, args: tuple) -> bool:
        """Whether ``args`` are of a class the region failed on (cheap while it has none)."""
        plain = self.plain
        if not plain:
            return False
        cls = failure_class(args)
        return (
            cls in plain
            or (self._sized and failure_class(args, True) in plain)
            or (self._any_string and without_strings(cls) in plain)
        )

    def remember(self, cls: tuple, why: Why) -> bool:
        """Mark ``cls`` plain; False when it already was. The ``STRING_FAILURES``-th class
        that differs from others only in strings marks all of its strings plain."""
        with self._lock:
            if cls in self.plain:
                return False
            self.plain[cls] = why
            self._sized = self._sized or cls[:1] == ("sized",)
            general = without_strings(cls)
            if general != cls:
                self._strings[general] = seen = self._strings.get(general, 0) + 1
                if seen >= STRING_FAILURES:
                    self.plain[general] = why
                    self._any_string = True
            return True

    def suspect(self, key: tuple, args: tuple, why: Why) -> None:
        """A failure that counts only if the plain statements then run (see :meth:`confirm`)."""
        with self._lock:
            self._suspects[key] = (failure_class(args), why)

    def confirm(self, key: tuple) -> tuple[tuple, Why] | None:
        """The plain statements ran for ``key`` without an error: a suspected failure was the
        tracer's, and its class (returned, with why) is remembered."""
        with self._lock:
            found = self._suspects.pop(key, None)
        if found is not None and self.remember(*found):
            return found
        return None

    def acquit(self, key: tuple) -> None:
        """The plain statements raised too: the user's error, nothing to remember."""
        with self._lock:
            self._suspects.pop(key, None)

    def first_time(self, message: str) -> bool:
        """Whether ``message`` has not been logged for this region yet (and now is)."""
        with self._lock:
            if message in self._said:
                return False
            self._said.add(message)
            return True


class Failing:
    """What a region does when it cannot compile (a mix-in of ``jit/regions.Region``, which
    gives ``add_eager_key`` and ``run_body``): say why once, give up the key or its whole
    class, remember it for the next process, and run the statements as written."""

    owner: Owner
    spec: RegionSpec
    failures: Failures
    stats: Any
    superseded: bool
    past_limit: bool

    def run_after_failure(self, key: tuple, args: tuple) -> tuple:
        """The statements, after a miss that compiled nothing: a tracer error they do not
        raise was the tracer's, and fails again for the class (``jit/failures.py``)."""
        try:
            result = self.run_body(args)
        except BaseException:
            self.failures.acquit(key)
            raise
        found = self.failures.confirm(key)
        if found is not None:
            self.persist_plain(*found, args)
        return result

    def give_up(
        self, key: tuple, args: tuple, why: Why, certain: bool = True, sized: bool = False
    ) -> None:
        """``key`` runs the region's statements from now on; when the failure is ``certain``
        to recur for the class of ``args`` (``sized``: see ``failure_class``), that whole
        class does, here and (through the warm cache) in later processes. Otherwise it is a
        suspect until the statements run."""
        self.add_eager_key(key)
        if not certain:
            self.failures.suspect(key, args, why)
            return
        cls = failure_class(args, sized)
        if self.failures.remember(cls, why):
            self.persist_plain(cls, why, args)

    def persist_plain(self, cls: tuple, why: Why, args: tuple) -> None:
        from astcompile.jit import remembered

        if not self.superseded:
            remembered.save_plain(self, cls, args, why)

    def remember_plain(self, cls: tuple, why: Why) -> None:
        """A failure class an earlier process persisted (``remembered.load_plain``)."""
        if self.failures.remember(cls, why) and not isinstance(why, str):
            self.say_once(why)

    def say_once(self, graph_break: GraphBreak, said: str | None = None) -> None:
        """Log a break the region met (as ``said``), the first time only; ``explain`` lists
        it each time."""
        self.stats.breaks.append(graph_break)
        recorder = telemetry.active()
        if recorder is not None:
            recorder.add_break(graph_break)
        said = graph_break.describe() if said is None else said
        if self.failures.first_time(said):
            logs.graph_breaks.info("%s", said)

    def on_trace_break(self, key: tuple, exc: TraceBreak) -> GraphBreak:
        """Report a break the trace met (the caller gives the key up)."""
        if exc.reason.name not in ARGUMENT_REASONS:
            self.keep_loops_around(exc.loc)  # a loop region retries with Python loops
        graph_break = self.owner.trace_break(exc)
        self.say_once(graph_break)
        return graph_break

    def keep_loops_around(self, loc: Any, only_holding: bool = False) -> None:
        """Send the region's loops that hold the failing user line to Python (all of them when
        the line is elsewhere, say in a callee's file, unless ``only_holding``). Where that
        changes the rewrite, the region is *superseded*: its failures are not persisted (the
        next process starts from the rewrite with those loops in Python: ``remembered.py``)."""
        here = loc is not None and loc.filename == self.owner.fn.__code__.co_filename
        if here or not only_holding:
            line = loc.line if here else None
            if self.owner.keep_loops_in_python(self.spec, line, only_holding):
                self.superseded = True

    def keep_body_in_its_loop(self) -> None:
        """A region of scalars only that a loop left in Python calls runs its statements inside
        that loop from the next call on, with no region around them: as a region it costs a
        call, a guard and a failure-class look-up per iteration (a word count over 300 lines
        ran 24x slower than plain with tiering off), and scalars stay scalars in any class."""
        from astcompile.frontend.loop_extents import in_a_loop

        first, last = self.spec.first_line, self.spec.last_line
        if in_a_loop(self.owner.fn, first) and self.owner.keep_lines_in_python(first, last):
            self.superseded = True
            self.past_limit = True  # the rest of this call too: a new string, a new kind

    def note_unlowerable(self, backend: str, exc: Exception) -> GraphBreak:
        """The backend cannot lower this region's graph: it runs as written (the caller gives
        the key up), and ``explain`` and the graph_breaks log say why, at the region."""
        from astcompile.frontend.breaks import BreakReason, GraphBreak

        detail = BreakReason.TARGET_UNSUPPORTED.format(backend=backend, feature=exc)
        filename = self.owner.fn.__code__.co_filename
        line = self.spec.first_line
        source = linecache.getline(filename, line).strip()
        graph_break = GraphBreak(
            BreakReason.TARGET_UNSUPPORTED, detail, filename, line, 1, source, self.owner.name
        )
        self.say_once(graph_break)
        return graph_break

    def on_trace_failure(self, key: tuple, exc: Exception) -> GraphBreak:
        """The tracer raised: a user error (the eager run raises it again, as NumPy does) or
        a gap in the tracer. Either way the region runs in NumPy, and ``explain`` lists it as a
        break so that nobody is slowed down silently; ``fullgraph`` is not enforced here,
        because a user error must surface as NumPy's own exception. The caller gives the key
        up, as a suspect for the class (which of the two it was, the eager run tells)."""
        from astcompile.frontend.breaks import BreakReason, GraphBreak
        from astcompile.trace.context import location_in_traceback

        loc = location_in_traceback(exc.__traceback__)
        self.keep_loops_around(loc)
        filename, line = (loc.filename, loc.line) if loc else ("<unknown>", 0)
        failed = f"{type(exc).__name__}: {exc}"
        graph_break = GraphBreak(
            BreakReason.TRACE_UNSUPPORTED,
            f"tracing failed: {failed}",
            filename,
            line,
            1,
            linecache.getline(filename, line).strip(),
            self.owner.name,
        )
        said = f"{self.owner.name}: tracing {self.spec.name} failed ({failed}); running it in NumPy"
        self.say_once(graph_break, said)
        return graph_break
