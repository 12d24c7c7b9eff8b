"""Backends turn a region's graph into a callable.

Contract: ``backend.compile(graph) -> CompiledGraph`` where calling the result with the
region's flattened leaf values (arrays and scalars, in ``graph.inputs`` order) returns one value
per ``graph.outputs`` entry. Outputs that are views of inputs must be real NumPy views (later
eager code may write through them); 0-d results may be returned as 0-d arrays, the runtime boxes
them into NumPy scalars where NumPy would.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from astcompile import logs

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph
    from astcompile.targets.base import Target
    from astcompile.targets.wrapper import WrapperParts

CompiledGraph = Callable[[Sequence[object]], list]


class Backend(Protocol):
    """A target of the compile pipeline (``astcompile/pipeline.py``).

    ``steps`` maps the target stages it implements (``schedule``, ``accept``, ``lower``,
    ``load``, ``wrap``) to functions of the stages' shared work (``astcompile.stages.RegionWork``);
    the pipeline skips the ones it lacks, and ``wrap`` sets ``work.run``. A target that lowers
    only some graphs says at ``accept`` why it refuses one (else None) and hands it to its
    ``fallback`` target, named (C). ``graph_passes`` says whether the graph passes run before
    it. ``compile`` runs those stages on a bare graph."""

    name: str
    graph_passes: bool
    steps: Mapping[str, Callable[[Any], str | None]]

    def compile(self, graph: Graph) -> CompiledGraph: ...


class Lowered(Protocol):
    """What a target's ``lower`` leaves in ``work.code`` for its ``load`` and ``wrap`` (C's
    ``CCode``, Triton's ``TritonCode``): the source it generated and the Python wrapper."""

    source: str
    parts: WrapperParts


#: name -> "module:attribute" of each backend class and each target, imported on first use: a
#: warm process never imports a code generator it does not run, and a target reaches another
#: by name (Triton plans its host loops with C's ``in_loops``; stages.accept hands C a region
#: Triton refuses), importing nothing of it.
_NAMED = {
    "eager": "astcompile.targets.eager:EagerBackend",
    "c": "astcompile.targets.c.c_backend:CBackend",
    "triton": "astcompile.targets.triton.triton_backend:TritonBackend",
    "c target": "astcompile.targets.c.c_target:C",
}


def _named(name: str) -> Any:
    module, _, attribute = _NAMED[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def get_backend(name: str, *args: Any) -> Backend:
    """The backend object for a user-facing name ("eager", "c", "triton"; "auto" is resolved
    before, :func:`resolve_backend`); ``args``: its constructor's (C's, Triton's: a cache
    directory)."""
    check_backend_name(name)  # a name we cannot run: a ValueError that says what to do
    return _named(name)(*args)


def target(name: str) -> Target:
    """The code generation target of a backend name (only "c" is asked for: Triton plans
    its host loops with C's ``in_loops``)."""
    return _named(f"{name} target")


def on_device(values: Sequence[object]) -> bool:
    """Whether any of ``values`` (tuples and lists looked into) is a device array: anything
    with ``__cuda_array_interface__`` (CuPy, Numba, PyTorch CUDA tensors)."""
    return any(
        on_device(v) if type(v) in (tuple, list) else hasattr(v, "__cuda_array_interface__")
        for v in values
    )


def resolve_for_call(name: str, args: Sequence[object]) -> str | None:
    """The backend ``"auto"`` picks for one call by its arguments' kind: Triton for device
    arrays, None (the function's own choice, :func:`resolve_backend`) otherwise. Device and
    NumPy arrays never share a guard key, so the pick is part of each guard entry."""
    if name != "auto" or not on_device(args):
        return None
    import importlib.util

    return "triton" if importlib.util.find_spec("triton") is not None else None


def resolve_backend(name: str) -> str:
    """ "auto" is Triton inside ``astcompile.device("cuda")``, else the C backend when it can
    build here, else eager (logged, not silent). Nothing of the backends is imported: a warm
    process asks this on its second call (measuring skips the eager target) and must not pay
    for importing a code generator that it never runs."""
    if name != "auto":
        check_backend_name(name)  # validates the name early
        return name
    from astcompile.device import current

    if current() == "cuda":  # entering the device block checked Triton and the GPU
        return "triton"
    if c_backend_available():
        return "c"
    logs.root.info("no C compiler found: backend 'auto' uses 'eager'")
    return "eager"


def c_backend_available() -> bool:
    """True when a C compiler is on PATH, or ``$CC`` names one: backend "auto" then picks "c".

    An explicit ``$CC`` counts even when it cannot be run: the user chose a compiler, so the
    failure is reported (``CompileError`` naming CC), not hidden by a silent switch to NumPy."""
    from astcompile.runtime.build import find_compiler
    from astcompile.runtime.errors import CompilerNotFound

    if os.environ.get("CC"):
        return True
    try:
        find_compiler()
    except CompilerNotFound:
        return False
    return True


#: The backends users can pick: "triton" needs the ``[gpu]`` extra (a GPU, or
#: ``TRITON_INTERPRET=1`` to run its kernels on the CPU).
BACKENDS = ("auto", "eager", "c", "triton")


def check_backend_name(name: str) -> None:
    """Raise a ValueError that says what to do for a backend name we cannot run."""
    if name == "triton":
        import importlib.util

        if importlib.util.find_spec("triton") is None:
            raise ValueError(
                "backend 'triton' (GPU kernels) needs Triton: pip install 'astcompile[gpu]'; "
                "or use backend='c' (CPU kernels) or 'eager'"
            )
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose 'auto', 'eager', 'c' or 'triton'")
