"""Declared argument types for ahead-of-time builds, and example arguments made from them.

A signature is one string per call form, Numba-like: ``"float64[:, :], float64, int"`` reads
"a 2-D float64 array, a NumPy float64 scalar, a Python int". Array types are a NumPy dtype name
followed by one ``:`` per dimension; ``::1`` as the last dimension asks for a C-contiguous array
(every example array is C-contiguous, so ``[:]`` and ``[::1]`` build the same kernel). A bare
dtype name is a NumPy scalar; ``int``, ``float`` and ``bool`` are Python scalars.

``astcompile build`` calls the function with :func:`example_args`: small arrays whose sizes are
at least 2, so the kernel stays generic in every size (the tracer specialises only sizes 0 and
1). Sizes are aligned from the last axis, as broadcasting aligns them: the last axis of every
array has 5 elements, the one before it 7, then 11 and 13. A call whose sizes relate the same
way (equal where the examples are equal) uses the built kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

#: Sizes of the example arrays' axes, last axis first.
EXAMPLE_SIZES = (5, 7, 11, 13, 17, 19, 23, 29)
PYTHON_SCALARS = {"int": int, "float": float, "bool": bool}
DTYPES = {
    "bool": np.bool_,
    "bool_": np.bool_,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
_EXAMPLES = {int: (3,), float: (1.5,), bool: (True, False)}
FORMAT_HELP = (
    'expected comma-separated argument types such as "float64[:, :], float32[::1], '
    'float64, int": a NumPy dtype with one `:` per array dimension, a bare dtype for a '
    "NumPy scalar, or int/float/bool for a Python scalar (see docs/api.md)"
)


class SignatureError(ValueError):
    """A declared signature that does not follow the format; the message names it."""


@dataclass(frozen=True)
class ArgType:
    """One declared argument: ``python`` (int/float/bool), or ``dtype`` with ``ndim`` (0: scalar)."""

    text: str
    dtype: np.dtype | None = None
    ndim: int = 0
    contiguous: bool = False
    python: type | None = None

    def examples(self) -> tuple[Any, ...]:
        """Example values of this type (both truth values for a Python bool, else one)."""
        if self.python is not None:
            return _EXAMPLES[self.python]
        if self.ndim == 0:
            return (self.dtype.type(_fill(self.dtype, 1)[0]),)
        shape = tuple(reversed(EXAMPLE_SIZES[: self.ndim]))
        size = int(np.prod(shape))
        return (_fill(self.dtype, size).reshape(shape),)


@dataclass(frozen=True)
class Signature:
    text: str
    args: tuple[ArgType, ...]

    def example_args(self) -> list[tuple[Any, ...]]:
        """Every combination of the arguments' example values (Python bools take both)."""
        return [tuple(combo) for combo in product(*(a.examples() for a in self.args))]


def _fill(dtype: np.dtype, size: int) -> np.ndarray:
    """Deterministic values in [0.5, 1.5) (ints 1..5, alternating bools): safe for log, sqrt, /."""
    if dtype.kind == "b":
        return np.arange(size) % 2 == 0
    if dtype.kind in "iu":
        return (np.arange(size) % 5 + 1).astype(dtype)
    return (0.5 + (np.arange(size) % 11) / 11.0).astype(dtype)


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth < 0:
            raise SignatureError("unbalanced ']'")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise SignatureError("unclosed '['")
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _arg_type(text: str) -> ArgType:
    name, bracket, rest = text.partition("[")
    name = name.strip()
    if not bracket:
        if name in PYTHON_SCALARS:
            return ArgType(text, python=PYTHON_SCALARS[name])
        return ArgType(text, dtype=_dtype(name))
    if not rest.endswith("]"):
        raise SignatureError(f"{text!r}: text after ']'")
    dims = [d.replace(" ", "") for d in rest[:-1].split(",")]
    for k, dim in enumerate(dims):
        if dim != ":" and not (dim == "::1" and k == len(dims) - 1):
            raise SignatureError(f"{text!r}: dimension {dim!r} must be ':' (or '::1' last)")
    return ArgType(text, dtype=_dtype(name), ndim=len(dims), contiguous=dims[-1] == "::1")


def _dtype(name: str) -> np.dtype:
    if name not in DTYPES:
        known = ", ".join(sorted(set(DTYPES) | set(PYTHON_SCALARS)))
        raise SignatureError(f"unknown or unsupported type {name!r} (known: {known})")
    return np.dtype(DTYPES[name])


def parse_signature(text: str) -> Signature:
    """Parse one signature string; :class:`SignatureError` names it and says what is wrong."""
    if not isinstance(text, str):
        raise SignatureError(f"signature {text!r} is not a string; {FORMAT_HELP}")
    try:
        parts = _split_top(text) if text.strip() else []
        if any(not p for p in parts):
            raise SignatureError("empty argument type")
        return Signature(text, tuple(_arg_type(p) for p in parts))
    except SignatureError as exc:
        raise SignatureError(f"bad signature {text!r}: {exc}; {FORMAT_HELP}") from None


def parse_signatures(texts: Any) -> tuple[Signature, ...]:
    """Validate a ``signatures=`` value: a list of strings (one string is taken as a list of one)."""
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, (list, tuple)):
        raise SignatureError(f"signatures must be a list of strings, not {type(texts).__name__}")
    return tuple(parse_signature(t) for t in texts)
