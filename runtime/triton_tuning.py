"""Block sizes and ``num_warps`` timed on the GPU, once per kernel and shape class.

:data:`~astcompile.runtime.triton_runtime.BLOCKS` picks a kernel's block and warps from its
sizes. On a GPU the first launch of a kernel for a new *shape class* (its kind and its sizes
rounded up to powers of two) also times a few configs around the table's choice: half and
twice its block where the kernel allows another block (an elementwise kernel, a row walked in
a loop; a row held in one block needs a block that holds it), each with 4 and 8 warps and the
table's own. It runs them on the call's own arguments, keeps the fastest (the table's choice
on a tie) and writes it to ``<cache_dir>/triton/tuning.json``, keyed by the kernel's source
hash, the shape class, the arrays' dtypes and the device's name, so later launches and later
processes take it without timing anything.

The candidates write into scratch copies of the kernel's outputs; the chosen config then runs
once on the real ones, so a kernel writing into an argument writes it once, as untuned.

Off under ``TRITON_INTERPRET`` (no GPU to time) and with ``ASTCOMPILE_TRITON_AUTOTUNE=0``
(``config.triton_autotune``): the table's choice, untimed.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from . import forksafe, trust
from .triton_math import interpreting

#: (BLOCK, num_warps)
Config = tuple[int, int]


class Call(NamedTuple):
    """One launch as the launcher is about to make it."""

    launcher: Any  #: the KernelLauncher (its variants, rows and inner axes)
    fn: Any  #: the variant it picked
    sizes: tuple
    loads: tuple
    outputs: tuple
    args: list  #: the kernel's arguments, the outputs' pointers and strides last
    flags: dict  #: its IEEE flags buffer and switch, by keyword (triton_runtime.Flags)


#: ``measure(run, config)``: seconds one ``run()`` of ``config`` takes (tests inject a clock)
Measure = Callable[[Callable[[], None], Config], float]

SMALLEST_BLOCK = 16
WARPS = (4, 8)
RECENT = 4096  #: exact sizes remembered (a launch then skips the shape class's key)


def _pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def _product(sizes: Any, axes: tuple[int, ...] | None = None) -> int:
    total = 1
    for a, s in enumerate(sizes):
        if axes is None or a in axes:
            total *= int(s)
    return total


def _valid(config: Any) -> bool:
    return (
        isinstance(config, list)
        and len(config) == 2
        and all(type(n) is int and n > 0 and n & (n - 1) == 0 for n in config)
    )


def kind_of(launcher: Any, fn: Any) -> str:
    """``flat`` (elementwise), ``block`` (each row in one block) or ``loop`` (rows in steps)."""
    if fn is launcher.flat:
        return "flat"
    return "block" if fn is launcher.block else "loop"


def shape_class(launcher: Any, kind: str, sizes: tuple, arrays: tuple) -> str:
    """What a config is tuned for: the element count, or the rows and the row's length, each
    rounded up to a power of two, and the dtypes of the arrays read and written."""
    dtypes = ",".join(a.dtype.str[1:] for a in arrays)
    if kind == "flat":
        return f"flat:{_pow2(_product(sizes))}:{dtypes}"
    rows, length = _product(sizes, launcher.rows), _product(sizes, launcher.inner)
    return f"{kind}:{_pow2(rows)}x{_pow2(length)}:{dtypes}"


def candidates(kind: str, table: Config, total: int) -> list[Config]:
    """The configs timed: the table's first, then its block halved and doubled (kernels whose
    block is free; a flat kernel's never past its element count), each with 4, 8 and the
    table's warps."""
    block, warps = table
    blocks = [block]
    if kind != "block":
        blocks += [b for b in (block // 2, block * 2) if b >= SMALLEST_BLOCK]
    if kind == "flat":
        blocks = [b for b in blocks if b == block or b <= _pow2(max(total, SMALLEST_BLOCK))]
    return [(b, w) for b in blocks for w in dict.fromkeys((warps, *WARPS))]


def grid_of(kind: str, total: int, block: int, grid: tuple[int]) -> tuple[int]:
    """The grid for ``block``: an elementwise kernel's programs cover its elements, a row
    kernel's are its rows whatever the block."""
    return (-(-total // block),) if kind == "flat" else grid


class Tuner:
    """The configs chosen for one cache folder's kernels: kept in memory, persisted as JSON."""

    def __init__(self, path: str, device: Callable[[], str], measure: Measure) -> None:
        self.path, self._device, self.measure = path, device, measure
        self.device: str | None = None  # asked for on the first launch
        self.chosen: dict[str, Config] | None = None
        self.digests: dict[Any, str] = {}
        self.recent: dict[tuple, tuple[tuple[int], dict]] = {}  #: exact sizes -> launch
        self.lock = forksafe.object_lock(self, "lock")

    def choose(self, call: Call, grid: tuple[int], options: dict) -> tuple[tuple[int], dict]:
        """(grid, options) to launch ``call`` with: the known config for its kernel and shape
        class, else the fastest of the candidates, timed now on its arguments and saved. The
        answer for the same sizes and dtypes is remembered as it is."""
        loads, outputs = call.loads, call.outputs
        recent = (call.fn, call.sizes, *[a.dtype for a in loads], *[o.dtype for o in outputs])
        launch = self.recent.get(recent)
        if launch is None:
            launch = self.lookup(call, grid, options)
            if len(self.recent) >= RECENT:
                self.recent.clear()
            self.recent[recent] = launch
        return launch

    def lookup(self, call: Call, grid: tuple[int], options: dict) -> tuple[tuple[int], dict]:
        """:meth:`choose` for sizes not seen lately: the saved config, or one timed now."""
        kind, total = kind_of(call.launcher, call.fn), _product(call.sizes)
        shape = shape_class(call.launcher, kind, call.sizes, (*call.loads, *call.outputs))
        key = self.key(call.fn, shape)
        config = self.known().get(key)
        if config is None:
            with self.lock:  # one thread times, the others then find its choice
                config = self.known().get(key)
                if config is None:
                    config = self.tune(call, grid, (options["BLOCK"], options["num_warps"]))
                    self.save(key, config)
        block, warps = config
        if kind == "block":  # the row must fit its block, whatever the file says
            block = options["BLOCK"]
        return grid_of(kind, total, block, grid), {**options, "BLOCK": block, "num_warps": warps}

    def key(self, fn: Any, shape: str) -> str:
        digest = self.digests.get(fn)
        if digest is None:
            source = inspect.getsource(fn.fn)  # the @triton.jit function's own text
            digest = hashlib.sha256(source.encode()).hexdigest()[:20]
            self.digests[fn] = digest
        if self.device is None:
            self.device = self._device()
        return f"{digest}:{fn.fn.__name__}:{shape}:{self.device}"

    def tune(self, call: Call, grid: tuple[int], table: Config) -> Config:
        """The fastest candidate, each run on scratch copies of the outputs."""
        kind, total = kind_of(call.launcher, call.fn), _product(call.sizes)
        scratch = tuple(o.copy() for o in call.outputs)
        written = len(call.launcher._arrays(call.outputs))  # pointers and strides
        values = [*call.args[: len(call.args) - written], *call.launcher._arrays(scratch)]
        best, best_time = table, float("inf")
        for config in candidates(kind, table, total):
            block, warps = config
            launch = call.fn[grid_of(kind, total, block, grid)]

            def run(launch: Any = launch, block: int = block, warps: int = warps) -> None:
                launch(*values, **call.flags, BLOCK=block, num_warps=warps, enable_fp_fusion=False)

            try:
                seconds = self.measure(run, config)
            except Exception:  # a config the device cannot run (registers, shared memory)
                if config == table:  # is passed over; the table's must run
                    raise
                continue
            if seconds < best_time:
                best, best_time = config, seconds
        return best

    def known(self) -> dict[str, Config]:
        if self.chosen is None:
            self.chosen = self.read()
        return self.chosen

    def read(self) -> dict[str, Config]:
        """The saved configs; an entry that is not two powers of two is left out (timed
        again), as is everything in a file that is not JSON."""
        try:  # under the trust rules (runtime/trust.py), as every file the caches read
            saved = json.loads(trust.read_file(self.path) or b"{}")
            return {k: (v[0], v[1]) for k, v in saved.items() if _valid(v)}
        except (ValueError, AttributeError):
            return {}  # none yet, or unreadable: tuned again and rewritten

    def save(self, key: str, config: Config) -> None:
        """Adds ``key`` to the file, keeping what other processes wrote (temp + rename)."""
        merged = {**self.read(), **self.known(), key: config}
        self.chosen = merged
        os.makedirs(os.path.dirname(self.path), mode=trust.PRIVATE.folder, exist_ok=True)
        data = json.dumps({k: list(v) for k, v in sorted(merged.items())}, indent=1)
        trust.write_file(self.path, data.encode(), trust.PRIVATE.file)


def gpu_time(run: Callable[[], None], config: Config) -> float:
    """Seconds per run: once to compile and warm up, then enough runs for about 10 ms."""
    import cupy as cp

    run()
    cp.cuda.runtime.deviceSynchronize()
    reps, seconds = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(reps):
            run()
        cp.cuda.runtime.deviceSynchronize()
        seconds = (time.perf_counter() - start) / reps
        if reps * seconds >= 0.01 or reps >= 64:
            return seconds
        reps *= 4


def gpu_name() -> str:
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.runtime.getDevice())
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


_TUNERS: dict[str, Tuner] = {}


def tuner_for(module: Any, on_gpu: bool | None = None) -> Tuner | None:
    """The tuner of ``module``'s cache folder, or None: under the interpreter (``on_gpu``
    defaults to whether Triton compiles for the GPU), with tuning off, or for a module that
    is not in a cache folder."""
    from astcompile import config

    on_gpu = not interpreting() if on_gpu is None else on_gpu
    path = getattr(module, "__file__", None)
    if not (on_gpu and config.triton_autotune) or path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in _TUNERS:
        _TUNERS[folder] = Tuner(os.path.join(folder, "tuning.json"), gpu_name, gpu_time)
    return _TUNERS[folder]
