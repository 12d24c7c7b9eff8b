"""The namespace a generated region wrapper runs in, and the wrapper made from its source.

Shared by the C and Triton backends (right after code generation) and the warm/ahead-of-time
loader (from a persisted entry, without importing the code generator or the C compiler).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from astcompile.ir.checks import RunPlain, raise_error
from astcompile.ir.graph import Graph, Node
from astcompile.ir.ops import NUMPY_CALLS
from astcompile.lower.names import sanitize
from astcompile.runtime import fpflags
from astcompile.runtime.parallel import kernel_threads
from astcompile.targets.eager import EagerBackend, EvalContext, rule_for
from astcompile.targets.eager_errors import raise_at_step


@dataclass
class WrapperParts:
    """Everything a region wrapper is made of; what a warm cache persists (with the graph)."""

    py: str  # the wrapper's source
    consts: dict[str, Any] = field(default_factory=dict)  # constants and dtypes it names
    steps: dict[str, Node] = field(default_factory=dict)  # nodes run as NumPy steps
    cdecls: str = ""  # declarations of its kernels ("" when it calls none)
    library: str | None = None  # the kernels' shared object
    fast: dict | None = None  # the wrapper as a fast plan, if it has one (lower/fastplan.py)

    @classmethod
    def of(cls, writer: Any, cdecls: str = "") -> WrapperParts:
        """The parts of a wrapper written by ``lower/host.py``'s writers."""
        fast = getattr(writer, "fast", None)
        return cls(writer.source(), dict(writer.consts), dict(writer.steps), cdecls, fast=fast)


def _step(node: Node, args: list, leaves: Sequence[Any]) -> Any:
    """A NumPy step, by the eager interpreter's rule for ``node`` (where the flags are not
    looked at: NumPy warns from here)."""
    return rule_for(node)(node, EvalContext([np.shape(v) for v in leaves]), args)


def _noted_step(node: Node, args: list, leaves: Sequence[Any]) -> Any:
    """A region's NumPy step: its floating-point errors become the CPU's flags, as its kernels
    raise them, so the region warns once, from the user's line (reported here too, a float
    -> uint64 cast warned twice)."""
    try:
        if not fpflags.KINDS:
            return _step(node, args, leaves)
        return fpflags.call_noted(
            rule_for(node), node, EvalContext([np.shape(v) for v in leaves]), args
        )
    except Exception as exc:  # the user's error: raised at the user's line
        raise_at_step(exc, node)
        raise


def numpy_function(node: Node) -> Callable:
    """What the eager rule of a NUMPY node calls, with its static keywords bound: the
    wrapper calls it with the arrays alone (``_step``'s lookups cost 1-2 us a call), its
    floating-point errors noted as flags (``_noted_step``), its error raised at the user's
    line (``user_line``: see ``fpflags.call_noted``)."""
    attr = node.attr
    call = functools.partial(attr.function(), **dict(attr.kwargs))
    if node.loc is not None:
        call.user_line = (node.loc.filename, node.loc.line)
    if fpflags.KINDS:
        return functools.partial(fpflags.call_noted, call)
    return call


def _unnoted(fn: Callable, *args: Any) -> Any:
    return fn(*args)


#: ``_noted(np.matmul, a, b)``: a NumPy call of a region's wrapper, its floating-point errors
#: raised as the CPU's flags, as its kernels raise them (``fpflags.call_noted``): the region
#: warns once, from the user's line, when its statements run (NumPy warned here before, and
#: again there).
_noted = fpflags.call_noted if fpflags.KINDS else _unnoted


def _no_identity() -> ValueError:
    """NumPy's error for a max/min over an empty axis, raised where a store phase meets it."""
    return ValueError("zero-size array to reduction operation which has no identity")


def _stop(value: int) -> int | None:
    return None if value < 0 else value


def _pointers(ffi: Any) -> tuple[Callable, Callable]:
    """``_ptr`` (any array's data pointer) and ``_fb`` (a C-contiguous array's): a partial of
    cffi's C ``from_buffer``, as ``ffi.from_buffer(a)`` calls it, without that method's Python
    frame (a wrapper takes 3-5 pointers a call: 0.3-0.5 us of a 3 us call on the Python path)."""
    from_buffer, cast = ffi.from_buffer, ffi.cast
    char_array = getattr(ffi, "BCharA", None)
    if char_array is not None and hasattr(ffi, "_backend"):
        from_buffer = functools.partial(ffi._backend.from_buffer, char_array)

    def ptr(a: np.ndarray) -> Any:
        try:  # NumPy refuses a buffer of an array not C-contiguous (the flags cost more)
            return from_buffer(a)
        except ValueError:
            return cast("void*", a.ctypes.data)

    return ptr, from_buffer


def unit_last(a: np.ndarray) -> np.ndarray:
    """``a`` with a unit last stride, for kernels that index its last axis so: a copy, in which
    an axis ``a`` broadcasts (stride 0) other than the last stays broadcast, so a broadcast
    input (``np.broadcast_to(1.0, (60000, 60000))``) costs one row, not the whole array.
    Without such an axis (``x[::2]``, ``a.T``) it is one ``np.ascontiguousarray`` (2 us less)."""
    strides = a.strides[:-1]
    if 0 not in strides:
        return np.ascontiguousarray(a)
    key = tuple(slice(0, 1) if stride == 0 else slice(None) for stride in strides)
    return np.broadcast_to(np.ascontiguousarray(a[key]), a.shape)


def make_wrapper(graph: Graph, parts: WrapperParts, library: tuple[Any, Any] | None) -> Callable:
    """The region's callable: ``parts.py`` executed with ``library`` = ``(ffi, lib)`` bound;
    its NumPy steps (a Triton loop's host scalars too) raise flags rather than warn."""
    namespace: dict[str, Any] = {
        "_np": np,
        "_ndarray": np.ndarray,
        "_empty": np.empty,
        "_contiguous": unit_last,
        "_eager": EagerBackend().compile(graph),
        "_RunPlain": RunPlain,
        "_raise": raise_error,
        "_nthreads": kernel_threads,
        "_step": _noted_step,
        "_host": _noted_step,
        "_noted": _noted,
        "_no_identity": _no_identity,
        "_stop": _stop,
        **parts.consts,
        **parts.steps,
        **{
            f"_f{name}": numpy_function(n) for name, n in parts.steps.items() if n.op in NUMPY_CALLS
        },
    }
    if library is not None:
        namespace["_ffi"], namespace["_lib"] = library
        ffi = library[0]
        namespace["_ptr"], namespace["_fb"] = _pointers(ffi)
    # our own generated wrapper, made from the graph (never user text): it must become a function
    exec(compile(parts.py, f"<astcompile region {graph.name}>", "exec"), namespace)  # noqa: S102
    fn = namespace[f"region_{sanitize(graph.name)}"]
    fn.py_source = parts.py
    fn.parts = parts
    return fn
