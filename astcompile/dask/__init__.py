"""Compiled functions on Dask arrays: each region called with Dask arrays becomes Dask operations.

``f(x)`` with ``x`` a ``dask.array.Array`` returns Dask arrays instead of computing: a region
whose graph is elementwise becomes one ``blockwise`` task per chunk running the fused compiled
kernel, a reduction becomes ``da.reduction`` with compiled chunk and combine steps, a stencil
``map_overlap``, and anything else runs its statements on Dask's NumPy API (:mod:`.plan` says
which; ``explain`` prints it). The eager code between regions runs on the Dask arrays as written.

This package's ``__init__`` imports nothing from Dask: the call-time layer asks
:func:`holds_dask` on a region's cache miss, which looks only at modules already imported, so a
program that never passes a Dask array never imports Dask.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astcompile.jit.regions import Region


def holds_dask(args: tuple) -> bool:
    """Whether any argument is a Dask array (False at once when Dask was never imported)."""
    array_module = sys.modules.get("dask.array")
    return array_module is not None and any(isinstance(a, array_module.Array) for a in args)


def region_call(region: Region, args: tuple) -> tuple:
    """``region(*args)`` as Dask operations: see :mod:`astcompile.dask.arrays`."""
    from astcompile.dask import arrays

    return arrays.region_call(region, args)
