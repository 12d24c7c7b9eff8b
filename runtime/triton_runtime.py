"""What generated Triton kernels need at call time: array adapters, module loading, launches.

Triton launches a kernel with anything that has ``data_ptr()`` and ``dtype``. On a GPU the
arrays are CuPy arrays (or anything with ``__cuda_array_interface__``), passed through
:class:`DeviceArray`. Under ``TRITON_INTERPRET=1`` the interpreter runs the kernel on the CPU
over host memory; it also calls a few torch-tensor methods on each argument (to copy it to
the host and back), all no-ops for a NumPy array, which :class:`HostArray` provides.

Block sizes and ``num_warps`` come from :data:`BLOCKS`, by mode: the interpreter costs about
1 ms per program instance whatever its block, so it takes large blocks and small grids. On a
GPU, :mod:`~astcompile.runtime.triton_tuning` times a few configs around the table's choice on
a kernel's first launch for a new shape class and keeps the fastest.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .triton_math import interpreting
from .triton_tuning import Call, Tuner, tuner_for


class HostArray:
    """A NumPy array as the Triton interpreter takes a tensor argument."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray) -> None:
        self.array, self.dtype = array, array.dtype

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    # What the interpreter calls to move a torch tensor to the host and back: host memory
    # already is, so each returns the array itself (the kernel then writes it in place).
    def untyped_storage(self) -> HostArray:
        return self

    def cpu(self) -> HostArray:
        return self

    def new_empty(self, *args: Any, **kwargs: Any) -> HostArray:
        return self

    def set_(self, *args: Any) -> HostArray:
        return self

    def copy_(self, other: Any) -> HostArray:
        return self

    def storage_offset(self) -> int:
        return 0

    def size(self) -> tuple[int, ...]:
        return self.array.shape

    def stride(self) -> tuple[int, ...]:
        return self.array.strides


class DeviceArray:
    """A device array (``__cuda_array_interface__``) as a Triton pointer argument."""

    __slots__ = ("dtype", "ptr")

    def __init__(self, array: Any) -> None:
        face = array.__cuda_array_interface__
        self.ptr, self.dtype = face["data"][0], np.dtype(face["typestr"])

    def data_ptr(self) -> int:
        return self.ptr


def on_device(array: Any) -> bool:
    return hasattr(array, "__cuda_array_interface__")


@dataclass(frozen=True)
class Blocks:
    """Block sizes of one mode."""

    flat: int  #: elements per program of an elementwise kernel (at most)
    row_limit: int  #: the longest row held in one block
    loop: int  #: the step of a row walked in a loop
    warps: tuple[tuple[int, int], ...]  #: (largest block, num_warps), smallest first


#: mode -> block sizes. On a GPU: 1024-element programs (4 warps) for flat kernels, rows up to
#: 16384 elements in registers, longer rows in 4096-element steps.
BLOCKS = {
    "cuda": Blocks(1024, 16384, 4096, ((1024, 4), (4096, 8), (1 << 30, 16))),
    "interpret": Blocks(1 << 16, 1 << 16, 1 << 14, ((1 << 30, 4),)),
}


def mode() -> str:
    return "interpret" if interpreting() else "cuda"


def _pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def _warps(blocks: Blocks, block: int) -> int:
    return next(w for limit, w in blocks.warps if block <= limit)


class KernelLauncher:
    """Launches one kernel: picks its variant, block and grid from the sizes."""

    tuner: Tuner | None = None  #: on a GPU: the configs timed per shape class

    def __init__(
        self,
        module: ModuleType,
        name: str,
        rows: Sequence[int],
        inner: Sequence[int],
        reduces: bool,
    ) -> None:
        self.rows, self.inner, self.reduces = tuple(rows), tuple(inner), reduces
        self.flat = None if reduces else getattr(module, name)
        self.block = getattr(module, f"{name}_block", None)
        self.loop = getattr(module, f"{name}_loop", None)
        self.host = mode() == "interpret"
        self.blocks = BLOCKS[mode()]
        self.tuner = tuner_for(module)

    def __call__(self, sizes: tuple, loads: tuple, scalars: tuple, outputs: tuple) -> None:
        fn, grid, options = self._pick(sizes)
        if grid[0] == 0:
            return
        if self.host:
            values = [_host_scalar(v) for v in scalars]
        else:
            values = [v.item() if isinstance(v, np.generic) else v for v in scalars]
        args = [*sizes, *self._arrays(loads), *values, *self._arrays(outputs)]
        if self.tuner is not None:  # on a GPU: the config timed fastest for this shape class
            call = Call(self, fn, sizes, loads, outputs, args)
            grid, options = self.tuner.choose(call, grid, options)
        fn[grid](*args, **options, enable_fp_fusion=False)

    def _arrays(self, arrays: tuple) -> list[Any]:
        """Each array's pointer, then its strides in elements."""
        args: list[Any] = []
        for a in arrays:
            a = np.asarray(a) if isinstance(a, np.generic) else a  # a NumPy step's scalar
            args.append(HostArray(a) if self.host else DeviceArray(a))
            args += [s // a.itemsize for s in a.strides]
        return args

    def _pick(self, sizes: tuple) -> tuple[Any, tuple[int], dict]:
        """(function, grid, launch options) for ``sizes``."""
        fn, grid, block = self._variant(sizes)
        return fn, grid, {"BLOCK": block, "num_warps": _warps(self.blocks, block)}

    def _variant(self, sizes: tuple) -> tuple[Any, tuple[int], int]:
        b = self.blocks
        if not self.reduces:
            total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
            block = min(_pow2(max(total, 16)), b.flat)
            return self.flat, (-(-total // block),), block
        nrows = int(np.prod([sizes[a] for a in self.rows], dtype=np.int64))
        length = int(np.prod([sizes[a] for a in self.inner], dtype=np.int64))
        if length <= b.row_limit:
            return self.block, (nrows,), _pow2(max(length, 16))
        return self.loop, (nrows,), b.loop


class MatmulLauncher(KernelLauncher):
    """Launches a matmul kernel (the product's tile, then its epilogue): sizes are the
    product's rows, columns and shared axis; tiles come from the hand-written kernel's table."""

    def __init__(self, module: ModuleType, name: str, dtype: str, **constexprs: Any) -> None:
        self.fn, self.dtype = getattr(module, name), np.dtype(dtype)
        self.host = mode() == "interpret"
        self.constexprs = constexprs  # beyond the tiles (a generated kernel has none)

    def _pick(self, sizes: tuple) -> tuple[Any, tuple[int], dict]:
        from astcompile.kernels.triton_matmul import tiles

        rows, cols, shared = (int(s) for s in sizes)
        t = tiles(mode(), self.dtype, rows, cols, shared)
        options = {**t.constexprs(), **self.constexprs, "num_warps": t.num_warps}
        return self.fn, t.grid(rows, cols), options


def plain_matmul(a: Any, b: Any, out: Any) -> None:
    """``out[...] = a @ b`` by the hand-written kernel alone (benchmarks and tests): host
    arrays under the interpreter, device arrays on a GPU."""
    import triton.language as tl

    from astcompile.kernels.triton_matmul import accumulation

    _, acc, dot = accumulation(out.dtype)
    run = MatmulLauncher(
        matmul_kernels(), "matmul", out.dtype.name, ACC=getattr(tl, acc[3:]), DOT=dot
    )
    run((*out.shape, a.shape[1]), (a, b), (), (out,))


def matmul_kernels() -> ModuleType:
    """``kernels/triton_matmul.py`` with its ``@triton.jit`` functions made for this mode.

    ``triton.jit`` makes an interpreted or a compiled function when its module is imported, and
    a process may run both (the tests do), so each mode imports the file under its own name,
    as :func:`load_module` names each region's module. Its shape table and the rest of its
    Python are read from the package module (``astcompile.kernels.triton_matmul``)."""
    name = f"astcompile_triton_matmul_{mode()}"
    if name not in sys.modules:
        path = importlib.util.find_spec("astcompile.kernels.triton_matmul").origin
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def load_module(source: str, cache_dir: str) -> ModuleType:
    """The kernels' module, written to ``<cache_dir>/triton/`` (Triton reads a kernel's
    source from its file) and imported once per process; Triton's own compile cache goes
    under the same directory unless ``TRITON_CACHE_DIR`` says otherwise."""
    folder = os.path.join(cache_dir, "triton")
    os.makedirs(folder, exist_ok=True)
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(folder, "cache"))
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    name = f"astcompile_triton_{digest}_{mode()}"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(folder, f"{name}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _host_scalar(value: Any) -> Any:
    """A scalar argument as the interpreter's 0-d tensor of its dtype: the interpreter turns
    ints into int32 tensors and leaves floats as Python numbers, which have no ``.to``."""
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    data = np.asarray(value)  # a Python float is float64, an int int64, as the kernel types them
    kind, bits = data.dtype.kind, data.dtype.itemsize * 8
    ty = (
        tl.int1
        if kind == "b"
        else tl.str_to_ty({"f": "fp", "i": "i", "u": "u"}[kind] + str(bits), None)
    )
    return tl.tensor(TensorHandle(data.reshape(1), ty), ty)
