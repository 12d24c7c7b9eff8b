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

import contextlib
import hashlib
import importlib.util
import linecache
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from . import fpflags, trust
from .triton_math import interpreting
from .triton_tuning import Call, Tuner, tuner_for


class HostArray:
    """A NumPy array as the Triton interpreter takes a tensor argument."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray) -> None:
        self.array, self.dtype = array, array.dtype

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def _itself(self, *args: Any, **kwargs: Any) -> HostArray:
        return self

    # What the interpreter calls to move a torch tensor to the host and back: host memory
    # already is, so each returns the array itself (the kernel then writes it in place).
    untyped_storage = cpu = new_empty = set_ = copy_ = _itself

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
    #: programs per row of a reduction: (most elements per row, programs), smallest first
    parts: tuple[tuple[int, int], ...] = ((1 << 62, 1),)


#: mode -> block sizes. On a GPU: 1024-element programs (4 warps) for flat kernels, rows up to
#: 16384 elements in registers, longer rows in 4096-element steps; a reduction of rows of
#: more than 64K elements runs on 16 to 1024 programs per row (each walks at least 4 steps of
#: 4096), at most 1024 in all, so a long one reads with the whole GPU's bandwidth.
BLOCKS = {
    "cuda": Blocks(
        1024,
        16384,
        4096,
        ((1024, 4), (4096, 8), (1 << 30, 16)),
        ((1 << 16, 1), (1 << 18, 16), (1 << 20, 64), (1 << 22, 256), (1 << 62, 1024)),
    ),
    "interpret": Blocks(1 << 16, 1 << 16, 1 << 14, ((1 << 30, 4),), ((1 << 20, 1), (1 << 62, 8))),
}


def mode() -> str:
    return "interpret" if interpreting() else "cuda"


def _pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def _warps(blocks: Blocks, block: int) -> int:
    return next(w for limit, w in blocks.warps if block <= limit)


class KernelLauncher:
    """Launches one kernel: picks its variant, block and grid from the sizes."""

    steps: tuple = ()  #: part and finish functions, in launch order (few long rows)
    tuner: Tuner | None = None  #: on a GPU: the configs timed per shape class

    def __init__(
        self,
        module: ModuleType,
        name: str,
        rows: Sequence[int],
        inner: Sequence[int],
        reduces: bool,
        scratch: Sequence[tuple[str, bool]] = (),
    ) -> None:
        self.rows, self.inner, self.reduces = tuple(rows), tuple(inner), reduces
        self.flat = None if reduces else getattr(module, name)
        self.block = getattr(module, f"{name}_block", None)
        self.loop = getattr(module, f"{name}_loop", None)
        self.scratch = tuple((np.dtype(dtype), each) for dtype, each in scratch)
        self.steps = tuple(_grid_steps(module, name)) if scratch else ()
        self.host = mode() == "interpret"
        self.blocks = BLOCKS[mode()]
        self.tuner = tuner_for(module)

    def __call__(self, sizes: tuple, loads: tuple, scalars: tuple, outputs: tuple) -> None:
        flagged = "fpf" in getattr(self.flat or self.block, "arg_names", ())  # not a store's
        flags = Flags(self.host) if flagged else None
        options = flags.options if flags else {}  # NumPy's ops here clear the CPU's flags:
        fpflags.quiet(lambda: self._run(sizes, loads, scalars, outputs, options))  # kept
        if flags is not None:
            flags.raise_on_cpu()

    def _run(self, sizes: tuple, loads: tuple, scalars: tuple, outputs: tuple, flags: dict) -> None:
        if self.steps:
            nrows, length = self._rows(sizes)
            parts = _parts(self.blocks, nrows, length)
            if parts > 1:
                args = self._args(sizes, loads, scalars, outputs)
                self._grid(args, nrows, length, parts, flags)
                return
        fn, grid, options = self._pick(sizes)
        if grid[0] == 0:
            return
        args = self._args(sizes, loads, scalars, outputs)
        if self.tuner is not None:  # on a GPU: the config timed fastest for this shape class
            call = Call(self, fn, sizes, loads, outputs, args, flags)
            grid, options = self.tuner.choose(call, grid, options)
        _launch(self.host, fn, grid, args, **options, **flags)

    def _args(self, sizes: tuple, loads: tuple, scalars: tuple, outputs: tuple) -> list:
        if self.host:
            values = [_host_scalar(v) for v in scalars]
        else:
            values = [v.item() if isinstance(v, np.generic) else v for v in scalars]
        return [*sizes, *self._arrays(loads), *values, *self._arrays(outputs)]

    def _grid(self, args: list, nrows: int, length: int, parts: int, flags: dict) -> None:
        """Few long rows on ``parts`` programs each: each phase's part function over a grid
        of (parts, rows), then its finish function on one program per row
        (:mod:`astcompile.targets.triton.grid`)."""
        block = self.blocks.loop
        parts = min(parts, block)  # a scan's part sums the totals before it in one block
        chunk = -(-length // parts)
        chunk = -(-chunk // block) * block  # whole steps: only a row's last part is ragged
        parts = -(-length // chunk)
        empty = np.empty if self.host else _cupy().empty
        bufs = [empty(nrows * parts if each else nrows, dtype) for dtype, each in self.scratch]
        args = [*args, chunk, parts, *(self._pointer(b) for b in bufs)]
        finish_block = _pow2(max(parts, 16))
        for fn, finish in self.steps:
            grid, step = ((nrows,), finish_block) if finish else ((parts, nrows), block)
            warps = _warps(self.blocks, step)
            _launch(self.host, fn, grid, args, BLOCK=step, num_warps=warps, **flags)

    def _pointer(self, array: Any) -> Any:
        return HostArray(array) if self.host else DeviceArray(array)

    def _arrays(self, arrays: tuple) -> list[Any]:
        """Each array's pointer, then its strides in elements."""
        args: list[Any] = []
        for a in arrays:
            # a NumPy step's scalar, or a Python number (the real part of a Python complex
            # the host loop carries): a 0-d array of the dtype the graph gave it
            a = a if isinstance(a, np.ndarray) else np.asarray(a)
            args.append(HostArray(a) if self.host else DeviceArray(a))
            args += [s // a.itemsize for s in a.strides]
        return args

    def _rows(self, sizes: tuple) -> tuple[int, int]:
        """(rows, elements per row) of a kernel with reductions."""
        nrows = int(np.prod([sizes[a] for a in self.rows], dtype=np.int64))
        return nrows, int(np.prod([sizes[a] for a in self.inner], dtype=np.int64))

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
        nrows, length = self._rows(sizes)
        if length <= b.row_limit:
            return self.block, (nrows,), _pow2(max(length, 16))
        return self.loop, (nrows,), b.loop


#: Triton's interpreter patches ``triton.language`` process-wide for the kernel it runs: two
#: threads interpreting kernels at once meet each other's patches ("Did you forget to add
#: @triton.jit?"), so interpreted launches take turns; launches on a GPU do not need to.
_INTERPRETER = threading.Lock()


def _launch(host: bool, fn: Any, grid: tuple, args: list, **options: Any) -> None:
    with _INTERPRETER if host else contextlib.nullcontext():
        fn[grid](*args, **options, enable_fp_fusion=False)


class Flags:
    """A launch's IEEE flags: its kernel ORs them into ``buffer`` while ``FP`` (NumPy's error
    state reports one: else it computes none); raised on the CPU after, as C kernels do."""

    def __init__(self, host: bool) -> None:
        self.on = fpflags.reported()
        self.buffer = (np.zeros if host else _cupy().zeros)(1, np.int32)
        pointer = HostArray(self.buffer) if host else DeviceArray(self.buffer)
        self.options = {"fpf": pointer, "FP": self.on}

    def raise_on_cpu(self) -> None:
        if self.on:
            fpflags.raise_bits(int(self.buffer[0]))


def _parts(blocks: Blocks, nrows: int, length: int) -> int:
    """How many programs reduce each of ``nrows`` rows of ``length`` elements: the ``parts``
    table's count for the length, at most its largest count over all rows (many rows keep
    one program each)."""
    if nrows == 0:
        return 1
    most = blocks.parts[-1][1]
    return min(next(p for longest, p in blocks.parts if length <= longest), most // nrows)


def _grid_steps(module: ModuleType, name: str) -> list[tuple[Any, bool]]:
    """(function, is a finish) of a kernel's part and finish functions, in phase order, each
    phase's part before its finish."""
    found = []
    for attr in vars(module):
        for kind, finish in (("_part", False), ("_finish", True)):
            prefix = f"{name}{kind}"
            if attr.startswith(prefix) and attr[len(prefix) :].isdigit():
                found.append((int(attr[len(prefix) :]), finish, getattr(module, attr)))
    return [(fn, finish) for _, finish, fn in sorted(found, key=lambda t: t[:2])]


def _cupy() -> Any:
    import cupy

    return cupy


class MatmulLauncher(KernelLauncher):
    """Launches a matmul kernel (the product's tile, then its epilogue): sizes are the
    product's rows, columns and shared axis; tiles come from the hand-written kernel's table."""

    def __init__(self, module: ModuleType, name: str, dtype: str, **constexprs: Any) -> None:
        self.fn, self.dtype = getattr(module, name), np.dtype(dtype)
        self.flat = self.block = self.fn  # what __call__ asks whether it reports flags
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


#: Triton's own cache as this process set it (a value the user set is left alone).
_triton_cache: dict[str, str] = {}


def load_module(source: str, cache_dir: str) -> ModuleType:
    """The kernels' module, run from ``source`` itself and imported once per process.

    Triton reads a kernel's source through ``inspect``, so the source is also kept in
    ``<cache_dir>/triton/``, under the trust rules of :mod:`trust` (a refused cache folder is
    replaced by a private temporary one, whatever the target), and given to ``linecache``:
    what the file holds is never run (one planted there is overwritten). Triton's own compile
    cache goes to ``triton/cache`` (private, checked) unless ``TRITON_CACHE_DIR`` says
    otherwise."""
    root = trust.cache_root(cache_dir, ("triton", "triton/cache"))
    _use_triton_cache(os.path.join(root, "triton", "cache"))
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    name = f"astcompile_triton_{digest}_{mode()}"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(root, "triton", f"{name}.py")
    code = trust.own_source(path, source, trust.PRIVATE.file)
    linecache.cache[path] = (len(code), None, source.splitlines(True), path)
    module = ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(compile(code, path, "exec"), module.__dict__)  # noqa: S102 - the source we made
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _use_triton_cache(folder: str) -> None:
    current = os.environ.get("TRITON_CACHE_DIR")
    if current is None or current == _triton_cache.get("set"):
        os.environ["TRITON_CACHE_DIR"] = _triton_cache["set"] = folder


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
