"""``astcompile.device("cuda")``: where functions compiled with ``backend="auto"`` run.

Like ``torch.device("cuda")`` as a context manager: a function compiled with the default
backend and first called inside ``with astcompile.device("cuda"):`` compiles its regions with
the Triton target (GPU kernels; NumPy inputs are copied to the device and results back, CuPy
arrays stay there). Outside it, or under ``device("cpu")``, ``"auto"`` is the C target. An
explicit ``backend=`` always wins. The choice is made at a function's first call, as the
backend is.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib.util
import os
from collections.abc import Iterator

DEVICES = ("cpu", "cuda")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("astcompile_device", default="cpu")


def current() -> str:
    """The device of the innermost ``device(...)`` block ("cpu" outside any)."""
    return _current.get()


def _check_cuda() -> None:
    """Triton must be installed, and a GPU present unless its interpreter runs the kernels."""
    if importlib.util.find_spec("triton") is None:
        raise RuntimeError("astcompile.device('cuda') needs Triton: pip install 'astcompile[gpu]'")
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        return
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise RuntimeError(
            f"astcompile.device('cuda'): no CUDA device usable through CuPy ({exc}); "
            "install 'astcompile[gpu]' on a machine with a GPU, or set TRITON_INTERPRET=1 to "
            "run the kernels in Triton's interpreter on the CPU"
        ) from exc
    if count == 0:
        raise RuntimeError("astcompile.device('cuda'): CuPy sees no CUDA device")


@contextlib.contextmanager
def device(name: str) -> Iterator[None]:
    """Run functions compiled with ``backend="auto"`` on ``name`` ("cuda" or "cpu")."""
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}; choose 'cuda' or 'cpu'")
    if name == "cuda":
        _check_cuda()
    token = _current.set(name)
    try:
        yield
    finally:
        _current.reset(token)
