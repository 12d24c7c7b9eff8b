"""The public API, modelled on torch.compile's (see docs/api.md)."""

from __future__ import annotations

import functools
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from astcompile import registry
from astcompile.device import device as device
from astcompile.jit import dispatch
from astcompile.jit.frozen import FrozenMiss, frozen
from astcompile.jit.function import CompiledFunction
from astcompile.runtime import forksafe, timing
from astcompile.signatures import parse_signatures
from astcompile.targets import check_backend_name

F = TypeVar("F", bound=Callable)
_compiled: weakref.WeakSet[CompiledFunction] = weakref.WeakSet()
_lock = forksafe.module_lock(__name__)
MODES = ("default", "frozen")


@overload
def compile(
    fn: F,
    *,
    fullgraph: bool = ...,
    backend: str = ...,
    dynamic: bool | None = ...,
    mode: str = ...,
    signatures: Sequence[str] | None = ...,
) -> F: ...
@overload
def compile(
    fn: None = None,
    *,
    fullgraph: bool = ...,
    backend: str = ...,
    dynamic: bool | None = ...,
    mode: str = ...,
    signatures: Sequence[str] | None = ...,
) -> Callable[[F], F]: ...


def compile(
    fn: Callable | None = None,
    *,
    fullgraph: bool = False,
    backend: str = "auto",
    dynamic: bool | None = None,
    mode: str = "default",
    signatures: Sequence[str] | None = None,
) -> Any:
    """Compile a NumPy function; use as ``@compile`` or ``@compile(fullgraph=True, ...)``.

    ``backend`` is "auto" (C on CPU when a compiler is available; Triton for GPU arrays or
    inside ``astcompile.device("cuda")``), "eager", "c" or "triton" (NVIDIA GPUs, with the
    ``[gpu]`` extra: docs/gpu.md);
    ``fullgraph=True`` raises :class:`~astcompile.GraphBreakError` instead of breaking;
    ``mode="frozen"`` never compiles and uses only what is already compiled;
    ``signatures=["float64[:, :], float64"]`` declares argument types that ``astcompile build``
    compiles ahead of time (format in docs/api.md; a bad string raises ``ValueError`` now).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    check_backend_name(backend)
    parsed = parse_signatures(signatures) if signatures is not None else ()
    if fn is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            backend=backend,
            dynamic=dynamic,
            mode=mode,
            signatures=signatures,
        )
    if isinstance(fn, (staticmethod, classmethod)):  # ``@compile`` above ``@staticmethod``
        inner = compile(
            fn.__func__,
            fullgraph=fullgraph,
            backend=backend,
            dynamic=dynamic,
            mode=mode,
            signatures=signatures,
        )
        return type(fn)(inner)
    if not callable(fn):
        raise TypeError(f"astcompile.compile expects a function, got {type(fn).__name__}")
    if registry.disable_mode(fn) is not None:
        return fn  # disable wins, as in torch.compile: compiling its wrapper would compile fn
    if not isinstance(fn, types.FunctionType):  # a bound method, a callable object, a partial
        from astcompile.jit import callables

        options = {"fullgraph": fullgraph, "backend": backend, "dynamic": dynamic, "mode": mode}
        make = functools.partial(compile, **options, signatures=signatures)
        form = callables.compiled_form(fn, make)
        if form is not None:
            return form
    if registry.is_compiled(fn):
        fn = fn.__wrapped__
    compiled = CompiledFunction(
        fn, fullgraph=fullgraph, backend=backend, dynamic=dynamic, mode=mode, signatures=parsed
    )
    with _lock:
        _compiled.add(compiled)
    return compiled


def disable(fn: Callable | None = None, *, recursive: bool = True) -> Any:
    """Calls to ``fn`` from compiled code run the original, untouched.

    With ``recursive=True`` nothing ``fn`` calls is compiled either; with ``recursive=False``
    its own statements run eagerly but the user functions it calls are compiled.
    """
    if fn is None:
        return functools.partial(disable, recursive=recursive)
    original = fn.__wrapped__ if registry.is_compiled(fn) else fn
    if recursive and type(original) is types.FunctionType:
        twin = _twin(original)
        setattr(twin, registry.DISABLED_ATTR, "recursive")
        return twin
    target: Callable = CompiledFunction(original, all_eager=True) if not recursive else original

    @functools.wraps(original)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        return target(*args, **kwargs)

    setattr(disabled, registry.DISABLED_ATTR, "recursive" if recursive else "shallow")
    return disabled


def _twin(fn: types.FunctionType) -> types.FunctionType:
    """A second function object on ``fn``'s code, globals, closure and defaults.

    Calling it is calling ``fn`` itself: no wrapper frame, nothing added per call (a wrapper
    costs about 60 ns, more than many small functions take). It is a new object so that the
    disable mark is not set on ``fn``, which stays compilable where it is called by its own name.
    """
    twin = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    twin.__kwdefaults__ = fn.__kwdefaults__
    return functools.update_wrapper(twin, fn)


def allow_in_graph(fn: F) -> F:
    """Trace ``fn`` into the graph as a black box, without source analysis (it must be pure)."""
    registry.mark_allowed(fn)
    return fn


def disallow_in_graph(op: F) -> F:
    """Calls to ``op`` always break the graph and run in NumPy (a global flag)."""
    registry.mark_disallowed(op)
    return op


def graph_break() -> None:
    """An explicit graph break: the code on both sides is still compiled."""


graph_break.__astcompile_graph_break__ = True  # type: ignore[attr-defined]


def run(fn: Callable, *, strict: bool = False) -> Callable:
    """Frozen mode: run ``fn`` using only already compiled entries; never compile.

    A region with no entry for the arguments runs in NumPy, or raises
    :class:`~astcompile.Unsupported` with ``strict=True``.
    """
    target = fn if registry.is_compiled(fn) else compile(fn)

    @functools.wraps(fn)
    def frozen_call(*args: Any, **kwargs: Any) -> Any:
        with frozen(strict):
            try:
                return target(*args, **kwargs)
            except FrozenMiss as exc:
                from astcompile.errors import Unsupported

                raise Unsupported(str(exc)) from None

    return frozen_call


def reset() -> None:
    """Forget every compiled entry in memory (the disk cache stays)."""
    with _lock:
        for compiled in list(_compiled):
            compiled.reset()
    dispatch.reset()


def compile_times() -> dict[str, float]:
    """Cumulative seconds per compile stage in this process, by the stage names of
    ``astcompile/pipeline.py`` (``source``, ``analysis``, ``trace``, ``lower``, ``load``...)."""
    return dict(timing.compile_times)
