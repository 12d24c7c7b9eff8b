"""``python bench/gpu.py``: backend "triton" on a GPU (skipped where there is none).

Per kernel (an elementwise chain, row softmax, layernorm, mean+var), float32:

* NumPy in, NumPy out: the compiled call with host arrays (copies to and from the device
  included), next to NumPy on the CPU;
* device arrays: the compiled call on CuPy arrays, its effective bandwidth (bytes the kernel
  must read and write over the time) and that bandwidth as a share of a device-to-device copy
  of the same bytes, measured in the same run;
* ``torch.compile`` on the same math when torch is installed.

Then ``np.maximum(a @ w + b, 0)`` (one matmul kernel with its bias and ReLU) in float32 and
float64, on device arrays: its time and TFLOP/s next to cuBLAS through CuPy (the product,
then CuPy's bias and ReLU; TF32 off, as CuPy's default) and the hand-written kernel alone
(``kernels/triton_matmul.py``: the product without its epilogue), and ``torch.compile`` (TF32
off, as torch's default for matmuls).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import astcompile
from bench.kernels import gelu, matmul_bias_relu, softmax


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def mean_var(x):
    return x.mean(axis=1), x.var(axis=1)


ROWS, COLS = 8192, 4096


def cases() -> list[tuple[Callable, tuple, int]]:
    """(function, float32 arguments, bytes it must move: inputs read once, outputs written)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    g, b = rng.standard_normal(COLS, dtype=np.float32), rng.standard_normal(COLS, dtype=np.float32)
    return [
        (gelu, (x,), 2 * x.nbytes),
        (softmax, (x,), 2 * x.nbytes),
        (layernorm, (x, g, b), 2 * x.nbytes + g.nbytes + b.nbytes),
        (mean_var, (x,), x.nbytes + 2 * ROWS * 4),
    ]


#: (rows, columns, shared) of the matmul cases.
MATMUL = (4096, 4096, 4096)


def matmul_cases(shape: tuple[int, int, int] = MATMUL) -> list[tuple[Callable, tuple]]:
    """``matmul_bias_relu`` on float32 and float64 arguments of ``shape``."""
    rng = np.random.default_rng(0)
    m, n, k = shape
    out = []
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((m, k)).astype(dtype)
        w = rng.standard_normal((k, n)).astype(dtype)
        out.append((matmul_bias_relu, (a, w, rng.standard_normal(n).astype(dtype))))
    return out


def timed(call: Callable, sync: Callable, repeat: int = 20) -> float:
    """Median seconds of ``call()`` after two warm-up calls, the device synchronised."""
    call(), call()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def copy_bandwidth(cp, nbytes: int) -> float:
    """Bytes per second of a device-to-device copy moving ``nbytes`` (read + write)."""
    src = cp.empty(nbytes // 2, dtype=cp.uint8)
    dst = cp.empty_like(src)
    sync = cp.cuda.Device().synchronize
    return nbytes / timed(lambda: cp.copyto(dst, src), sync)


def torch_time(fn: Callable, args: tuple) -> float | None:
    try:
        import torch

        from bench import torch_kernels
    except ImportError:
        return None
    twin = getattr(torch_kernels, fn.__name__, None)
    if twin is None:
        return None
    compiled = torch.compile(twin)
    tensors = [torch.from_numpy(a).cuda() for a in args]
    return timed(lambda: compiled(*tensors), torch.cuda.synchronize)


def row(cp, fn: Callable, args: tuple, nbytes: int) -> str:
    """One kernel's line of the table."""
    sync = cp.cuda.Device().synchronize
    compiled = astcompile.compile(fn, backend="triton")
    on_device = [cp.asarray(a) for a in args]
    host = timed(lambda: compiled(*args), sync, 5)
    dev = timed(lambda: compiled(*on_device), sync)
    cpu = timed(lambda: fn(*args), lambda: None, 3)
    copy = copy_bandwidth(cp, nbytes)
    torch_s = torch_time(fn, args)
    torch_ms = f"{torch_s * 1e3:8.3f}" if torch_s else "       -"
    return (
        f"{fn.__name__:10s} {cpu * 1e3:9.2f} {host * 1e3:11.2f} {dev * 1e3:10.3f} "
        f"{nbytes / dev / 1e9:6.0f} {100 * nbytes / dev / copy:6.0f}% {torch_ms}"
    )


def matmul_row(cp, fn: Callable, args: tuple) -> str:
    """One matmul case's line: ms and TFLOP/s of each way to compute it."""
    from astcompile.runtime.triton_runtime import plain_matmul

    sync = cp.cuda.Device().synchronize
    a, w, b = (cp.asarray(x) for x in args)
    flops = 2 * a.shape[0] * a.shape[1] * w.shape[1]
    compiled = astcompile.compile(fn, backend="triton")
    c = cp.empty((a.shape[0], w.shape[1]), a.dtype)
    times = {
        "astcompile": timed(lambda: compiled(a, w, b), sync),
        "cublas+cupy": timed(lambda: cp.maximum(a @ w + b, 0), sync),
        "kernel_only": timed(lambda: plain_matmul(a, w, c), sync),
    }
    torch_s = torch_time(fn, args)
    cells = [f"{s * 1e3:8.2f} {flops / s / 1e12:6.1f}" for s in times.values()]
    cells.append(
        f"{torch_s * 1e3:8.2f} {flops / torch_s / 1e12:6.1f}" if torch_s else "       -      -"
    )
    return f"{a.dtype.name:8s} " + "  ".join(cells)


def main() -> int:
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
    except Exception as exc:  # noqa: BLE001 - no CuPy, no driver, no device: nothing to time
        print(f"bench/gpu.py: no GPU here ({exc}); nothing measured")
        return 0
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {name}; float32 {ROWS}x{COLS}")
    print("kernel      numpy_ms  host_io_ms  device_ms  GB/s   %copy  torch_ms")
    for fn, args, nbytes in cases():
        print(row(cp, fn, args, nbytes))
    print(
        f"\nnp.maximum(a @ w + b, 0), device arrays, {MATMUL} (rows, columns, shared): ms TFLOP/s"
    )
    print("dtype    astcompile         cublas+cupy        kernel_only        torch.compile")
    for fn, args in matmul_cases():
        print(matmul_row(cp, fn, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
