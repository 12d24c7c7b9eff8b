"""``lm``: the math functions generated Triton kernels call (``lm.tanh(x)``).

On a GPU (and for ahead-of-time compiles) ``lm`` is Triton's ``libdevice``, the correctly
rounded or few-ulp CUDA math library. Triton's interpreter (``TRITON_INTERPRET=1``) cannot call
``libdevice`` (it raises "extern_elementwise not supported in interpreter mode"), so there each
name is the NumPy ufunc of the same function applied to the interpreter's NumPy-backed block:
the kernel text is the same in both modes, only what ``lm.tanh`` means changes. Only the names
the rule table (``astcompile/targets/triton/triton_rules.py``) uses are here; a test checks each
exists in ``libdevice``.
"""

from __future__ import annotations

import os
import types
from typing import Any

import numpy as np

#: libdevice name -> NumPy ufunc, and whether it returns a truth value (libdevice: an int).
FUNCTIONS: dict[str, tuple[Any, bool]] = {
    "exp": (np.exp, False),
    "exp2": (np.exp2, False),
    "expm1": (np.expm1, False),
    "log": (np.log, False),
    "log2": (np.log2, False),
    "log10": (np.log10, False),
    "log1p": (np.log1p, False),
    "sqrt": (np.sqrt, False),
    "cbrt": (np.cbrt, False),
    "sin": (np.sin, False),
    "cos": (np.cos, False),
    "tan": (np.tan, False),
    "asin": (np.arcsin, False),
    "acos": (np.arccos, False),
    "atan": (np.arctan, False),
    "sinh": (np.sinh, False),
    "cosh": (np.cosh, False),
    "tanh": (np.tanh, False),
    "asinh": (np.arcsinh, False),
    "acosh": (np.arccosh, False),
    "atanh": (np.arctanh, False),
    "floor": (np.floor, False),
    "ceil": (np.ceil, False),
    "trunc": (np.trunc, False),
    "rint": (np.rint, False),
    "atan2": (np.arctan2, False),
    "hypot": (np.hypot, False),
    "copysign": (np.copysign, False),
    "pow": (np.power, False),
    "signbit": (np.signbit, True),
}


def interpreting() -> bool:
    """Whether Triton runs kernels in its interpreter (read when a kernel module is loaded)."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def _numpy_as_imported() -> types.ModuleType:
    """NumPy's namespace as it is now, for Triton's interpreter, which computes each block op
    by calling ``np.sum``, ``np.where``... at run time: a user's ``mock.patch.object(np, "sum",
    ...)`` must change what their code calls, not what a kernel computes (names NumPy loads
    on first use still come from NumPy)."""
    copy = types.ModuleType(np.__name__, np.__doc__)
    vars(copy).update(vars(np))
    copy.__getattr__ = lambda name: getattr(np, name)  # type: ignore[attr-defined]
    return copy


_NUMPY = _numpy_as_imported()


def _interpreted(ufunc: Any, truth: bool) -> Any:
    def call(*args: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        values = [a.handle.data if isinstance(a, tl.tensor) else _NUMPY.asarray(a) for a in args]
        with _NUMPY.errstate(all="ignore"):
            data = _NUMPY.asarray(ufunc(*values))
        first = args[0]
        if isinstance(first, tl.tensor):
            scalar = first.dtype
            block = first.type.get_block_shapes() if first.type.is_block() else None
        else:  # a scalar kernel argument: the interpreter passes a Python number
            scalar = tl.float64 if values[0].dtype.kind == "f" else tl.int64
            block = None
        scalar = tl.int32 if truth else scalar
        data = data.astype(_NUMPY.int32 if truth else values[0].dtype)
        ty = tl.block_type(scalar, block) if block else scalar
        return tl.tensor(TensorHandle(data, scalar), ty)

    call.__name__ = ufunc.__name__
    return call


def _shim() -> types.SimpleNamespace:
    return types.SimpleNamespace(
        **{name: _interpreted(ufunc, truth) for name, (ufunc, truth) in FUNCTIONS.items()}
    )


def math_module() -> Any:
    """``libdevice``, or its NumPy stand-in under the interpreter (which then computes on
    NumPy as it was when this module was imported)."""
    if interpreting():
        import triton.runtime.interpreter

        triton.runtime.interpreter.np = _NUMPY
        return _shim()
    from triton.language.extra import libdevice

    return libdevice
