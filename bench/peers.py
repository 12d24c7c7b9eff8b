"""Optional peers: Numba ``njit(parallel=True)`` and ``torch.compile``, when importable."""

from __future__ import annotations

from collections.abc import Callable


def numba_version(fn: Callable) -> Callable | None:
    try:
        import numba
    except ImportError:
        return None
    try:
        return numba.njit(parallel=True, cache=False)(fn)
    except Exception:  # noqa: BLE001 - Numba rejects some NumPy code; reported as n/a
        return None


def torch_version(fn: Callable) -> Callable | None:
    try:
        import torch
    except ImportError:
        return None
    return torch.compile(fn)  # traces NumPy code on ndarray arguments itself


def available() -> dict[str, Callable[[Callable], Callable | None]]:
    peers = {}
    for name, make in (("numba", numba_version), ("torch.compile", torch_version)):
        try:
            __import__("numba" if name == "numba" else "torch")
            peers[name] = make
        except ImportError:
            pass
    return peers
