"""Optional peers: Numba ``njit(parallel=True)`` and ``torch.compile``, when installed.

A peer turns a bench case and its NumPy inputs into a zero-argument callable (compiled, inputs
converted) or raises: the bench then prints the reason and shows "n/a" for that cell. Each peer
runs its own version of the kernel (``bench/numba_kernels.py``, ``bench/torch_kernels.py``),
checked against NumPy's result before it is timed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

Prepare = Callable[[Callable, list], Callable[[], Any]]


def _numba(fn: Callable, args: list) -> Callable[[], Any]:
    import numba

    from bench import numba_kernels

    kernel = numba.njit(parallel=True, cache=False)(getattr(numba_kernels, fn.__name__))
    return lambda: kernel(*args)


def _torch(fn: Callable, args: list) -> Callable[[], Any]:
    import torch

    from bench import torch_kernels

    compiled = torch.compile(getattr(torch_kernels, fn.__name__))
    targs = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
    return lambda: compiled(*targs)


_PEERS: dict[str, tuple[str, Prepare]] = {
    "numba": ("numba", _numba),
    "torch.compile": ("torch", _torch),
}


def available() -> dict[str, Prepare]:
    """The peers whose package is installed (found without importing it)."""
    return {
        name: prepare
        for name, (module, prepare) in _PEERS.items()
        if importlib.util.find_spec(module) is not None
    }


def check_result(expected: Any, got: Any) -> None:
    """Raise when a peer's answer differs from NumPy's (loosely: peers may reorder sums)."""
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            check_result(e, g)
        return
    got = got.numpy() if hasattr(got, "numpy") else got
    np.testing.assert_allclose(
        np.asarray(got, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
        rtol=1e-3,
        atol=1e-4,
    )
