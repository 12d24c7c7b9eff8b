"""Backends turn a region's graph into a callable.

Contract: ``backend.compile(graph) -> CompiledGraph`` where calling the result with the
region's flattened leaf values (arrays and scalars, in ``graph.inputs`` order) returns one value
per ``graph.outputs`` entry. Outputs that are views of inputs must be real NumPy views (later
eager code may write through them); 0-d results may be returned as 0-d arrays, the runtime boxes
them into NumPy scalars where NumPy would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, Sequence

if TYPE_CHECKING:
    from astcompile.graph.ir import Graph

CompiledGraph = Callable[[Sequence[object]], list]


class Backend(Protocol):
    name: str

    def compile(self, graph: Graph) -> CompiledGraph: ...


def get_backend(name: str) -> Backend:
    """The backend object for a user-facing name ("eager", "c", "triton")."""
    if name == "eager":
        from astcompile.backends.eager import EagerBackend

        return EagerBackend()
    if name == "c":
        from astcompile.backends.c import CBackend

        return CBackend()
    if name == "triton":
        from astcompile.backends.triton import TritonBackend

        return TritonBackend()
    raise ValueError(f"unknown backend {name!r}; choose 'auto', 'eager', 'c' or 'triton'")
