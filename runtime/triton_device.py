"""Where a Triton region's arrays live, and the region callable that moves them there.

Under ``TRITON_INTERPRET=1`` everything stays in host memory: the wrapper allocates outputs
with ``np.empty`` and the interpreter runs the kernels over the NumPy arrays. On a GPU the
wrapper works on CuPy arrays: NumPy inputs are copied to the device on entry and the results
copied back (NumPy in, NumPy out); when any input already is a device array
(``__cuda_array_interface__``) nothing is copied back and results stay CuPy arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from .triton_runtime import KernelLauncher, MatmulLauncher, mode, on_device


def _factory(module: ModuleType | None) -> Callable[..., KernelLauncher]:
    def kernel(
        name: str, rows: tuple, inner: tuple, reduces: bool, scratch: tuple = ()
    ) -> KernelLauncher:
        return KernelLauncher(module, name, rows, inner, reduces, scratch)

    return kernel


def _matmul_factory(module: ModuleType | None) -> Callable[..., MatmulLauncher]:
    def matmul(name: str, dtype: str) -> MatmulLauncher:
        return MatmulLauncher(module, name, dtype)

    return matmul


def cupy() -> Any:
    """CuPy, imported on first use (the ``[gpu]`` extra)."""
    import cupy as cp

    return cp


def broadcast(value: Any, shape: tuple) -> np.ndarray:
    """A stored value as a read-only array of the view's shape (strides 0 where broadcast)."""
    return np.broadcast_to(np.asarray(value), shape)


def owned(value: Any) -> np.ndarray:
    """A stored value that is a view of its target, copied first (as NumPy's assignment)."""
    return np.array(value, copy=True)


def scalar_array(value: Any, dtype: np.dtype) -> np.ndarray:
    """A scalar a loop region's segment reads, as a 0-d array of its dtype (kept if it is one)."""
    return np.asarray(value, dtype)


def unsafe_writes(leaves: Sequence[Any], stored: Sequence[int], overlap: bool) -> bool:
    """Whether a call writes into a read-only NumPy argument (NumPy raises) or, with
    ``overlap``, into one that another argument overlaps (``f(a[1:], a[:-1])``: the iterations
    of a loop made whole-array statements would see each other's writes, and on a GPU each
    argument is copied on its own). Such a call runs the region's own statements."""
    for i in stored:
        w = leaves[i]
        if not isinstance(w, np.ndarray):
            continue
        if not w.flags.writeable:
            return True
        if overlap and any(
            j != i and isinstance(o, np.ndarray) and np.may_share_memory(w, o)
            for j, o in enumerate(leaves)
        ):
            return True
    return False


def _never(leaves: Sequence[Any], stored: Sequence[int], overlap: bool) -> bool:
    return False


def _device_broadcast(value: Any, shape: tuple) -> Any:
    cp = cupy()
    return cp.broadcast_to(cp.asarray(value), shape)


def bind(
    graph: Any,
    parts: Any,
    module: ModuleType | None,
    make_wrapper: Callable,
    stored: Sequence[int] = (),
) -> Callable:
    """The region's callable for ``parts`` (its wrapper) over ``module`` (its kernels);
    ``stored``: the leaves its stores write into."""
    consts = {"_bcast": broadcast, "_own": owned, "_a0": scalar_array, "_unsafe": unsafe_writes}
    consts.update(parts.consts, _kernel=_factory(module), _matmul=_matmul_factory(module))
    if mode() == "cuda":  # the NumPy arguments are checked before they are copied
        consts["_unsafe"] = _never
        cp = cupy()
        consts.update(_empty=cp.empty, _ndarray=cp.ndarray, _bcast=_device_broadcast, _own=cp.copy)
        consts.update(_a0=cp.asarray)
    wrapper = make_wrapper(graph, type(parts)(parts.py, consts, parts.steps), None)
    del wrapper.parts  # not a C entry: the warm cache must not persist it as one
    if mode() != "cuda":
        return wrapper
    return _device_call(wrapper, tuple(stored), wrapper.__globals__["_RunPlain"])


def _device_call(wrapper: Callable, stored: tuple[int, ...], run_plain: type) -> Callable:
    cp = cupy()

    def run(leaves: Sequence[Any]) -> list:
        if stored and unsafe_writes(leaves, stored, True):  # the region's own statements
            raise run_plain("a written argument is read-only or overlaps another argument")
        on_gpu = any(on_device(v) for v in leaves)
        moved = [cp.asarray(v) if isinstance(v, np.ndarray) else v for v in leaves]
        try:
            out = wrapper(moved)
        finally:  # a NumPy argument written on the device: the caller sees the writes, also
            for i in stored:  # those made before an error (an assert in the tenth iteration)
                if isinstance(leaves[i], np.ndarray):
                    leaves[i][...] = cp.asnumpy(moved[i])
        if on_gpu:
            return out
        return type(out)(cp.asnumpy(v) if isinstance(v, cp.ndarray) else v for v in out)

    run.py_source = wrapper.py_source
    return run
