"""What a Dask task runs on a chunk: the compiled region, found again in the worker.

A task pickles as the compiled function (by module and name, or by value: see
``jit/pickling.py``), the region's name and the arguments that are not chunks. In the worker the
function is built once (its rewrite and kernels come from the on-disk cache when another process
of the machine, or of a shared ``ASTCOMPILE_CACHE_DIR``, built them) and the region is called
with NumPy chunks like any compiled call. No dask import here: workers import it anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from astcompile.jit.regions import Region


class Compiled(Protocol):
    """What a task needs of a compiled function (``jit/function.py``, not imported here: the
    call-time layer imports this package)."""

    name: str
    regions: list[Region]

    def _build(self) -> Any: ...


class _Chunk:
    """Stands for a chunk among a task's arguments; one object in every process."""

    def __reduce__(self) -> str:
        return "CHUNK"

    def __repr__(self) -> str:
        return "CHUNK"


CHUNK = _Chunk()


def find_region(function: Compiled, name: str) -> Region:
    """The region called ``name`` of ``function``, built in this process if need be."""
    if not function.regions:
        function._build()  # the rewrite and its regions; kernels come on the first call
    for region in reversed(function.regions):  # a rebuild appends: the newest first
        if region.spec.name == name:
            return region
    raise LookupError(f"{function.name} has no region {name} in this process")


@dataclass(frozen=True)
class RegionTask:
    """Calls region ``region`` of ``function`` with ``args``, chunks in the ``CHUNK`` places,
    and returns element ``output`` of its result."""

    function: Compiled
    region: str
    args: tuple
    output: int

    @property
    def __name__(self) -> str:  # Dask names the task's keys after it (the dashboard shows them)
        return f"{self.function.name}-{self.region.removeprefix('__ac_')}"

    def __call__(self, *chunks: np.ndarray) -> Any:
        blocks = iter(chunks)
        args = tuple(next(blocks) if a is CHUNK else a for a in self.args)
        return find_region(self.function, self.region)(*args)[self.output]


@dataclass(frozen=True)
class PartialTask:
    """A chunk's partial reduction with the reduced axes kept (length 1): what Dask's
    ``reduction`` folds."""

    task: RegionTask
    axes: tuple[int, ...]
    keepdims: bool

    @property
    def __name__(self) -> str:
        return f"{self.task.__name__}-partial"

    def __call__(self, *chunks: np.ndarray) -> np.ndarray:
        partial = np.asarray(self.task(*chunks))
        return partial if self.keepdims else np.expand_dims(partial, self.axes)


def already_reduced(x: np.ndarray, axis: Any = None, keepdims: bool = True) -> np.ndarray:
    """The chunk step of ``da.reduction`` over partial results: they are reduced already."""
    return x


def combine_step(reduce: Any, axes: tuple[int, ...]) -> Any:
    """The step folding partial results of ``reduce`` over ``axes`` (compiled where it is
    used: ``build.combine``). ``axes`` is fixed in the closure, so that each reduction's step
    is its own compiled function, with the few entries its partials' shapes need."""

    def combine(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        return reduce(x, axis=axes, keepdims=keepdims)

    return combine
