"""Red team 11's adversarial programs (tests/adversarial_samples/), compiled against plain.

Each sample file holds scenarios ``t_<name>(m, C, rec)``: ``m`` is a fresh import of the file
(its globals, classes and closures the run's own, so a scenario that rebinds a global or
mutates a class attribute changes only its twin), ``C`` compiles a function (plain: returns it),
``rec`` calls it and records the outcome. The plain and compiled records must be equal: the
result's Python type, dtype, shape and bits, the exception's type and message, the warnings,
what was printed, the arguments afterwards and which results are (or share memory with)
arguments. Floats that differ in the last bits only are compared again rounded to five
significant digits (the tolerance table's business, astcompile/compare.py).

Every scenario runs on eager; on "c" and "triton" (Triton's interpreter) only those that found
a bug, the rest with --slow (their kernels cost about a minute to build on a cold cache).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from differential import TRITON

import astcompile

SAMPLES = Path(__file__).parent / "adversarial_samples"

#: The scenarios that found a wrong result (fixed): on every backend by default.
FOUND = {
    "t_partial_passed",  # a partial's bound argument numbered before the argument arrays
    "t_property_side_effect",  # a counting property read once a call
    "t_python_zero_division",  # a warning lost before a check's error on the sole path
    "t_custom_exception",  # x.T @ x of a 1 x 1 result on Triton
    "t_loop_complex_accum",  # 0j + np.float64 is a Python complex
    "t_loop_list_build",  # np.array of an empty grown list is float64
}

_loaded = [0]


def _load(path: Path) -> Any:
    """A fresh module of ``path``, registered (dataclasses look their module up)."""
    _loaded[0] += 1
    name = f"adversarial_{path.stem}_{_loaded[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _scenarios() -> list:
    found = []
    for path in sorted(SAMPLES.glob("*.py")):
        source = path.read_text()
        names = [
            line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def t_")
        ]
        found += [(path, name) for name in names]
    return found


def _rounded(value: Any) -> bytes:
    """Floats (and complex parts) to five significant digits, as bytes."""
    a = np.asarray(value).astype(np.complex128)
    with np.errstate(all="ignore"):
        size = np.where(np.isfinite(a), np.abs(a), 1.0)
        scale = 10.0 ** np.floor(np.log10(np.where(size > 0, size, 1.0)))
        near = np.round(a / scale, 5) * scale
    return np.where(np.isfinite(a), near, a).tobytes()


def snap(v: Any, loose: bool, depth: int = 0) -> Any:
    """A comparable picture of ``v``: types by name, arrays by dtype, shape and bytes."""
    if depth > 8:
        return ("deep",)
    inner = lambda x: snap(x, loose, depth + 1)
    if isinstance(v, np.ma.MaskedArray):
        return ("ma", type(v).__name__, inner(v.data), inner(np.ma.getmaskarray(v)))
    if isinstance(v, np.ndarray):
        if loose and v.dtype.kind in "fc":
            data: Any = _rounded(v)
        elif v.dtype.hasobject:
            data = [inner(x) for x in v.ravel().tolist()]
        else:
            data = np.ascontiguousarray(v).tobytes()
        return ("nd", type(v).__name__, v.dtype.descr, v.shape, data, v.flags.writeable)
    if isinstance(v, np.generic):
        if isinstance(v, np.void) or v.dtype.hasobject:
            return ("g", type(v).__name__, repr(v))
        data = _rounded(v) if loose and v.dtype.kind in "fc" else v.tobytes()
        return ("g", type(v).__name__, v.dtype.str, data)
    if type(v) is float:
        return ("float", _rounded(v) if loose else (repr(v), np.signbit(v)))
    if isinstance(v, (bool, int, complex, str, bytes, type(None))):
        return (type(v).__name__, repr(v))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(inner(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), inner(x)) for k, x in v.items()))
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        fields = dataclasses.fields(v)
        return ("dc", type(v).__name__, tuple((f.name, inner(getattr(v, f.name))) for f in fields))
    if type(v).__name__ == "generator" or callable(v):
        return ("object", type(v).__name__)
    state = dict(getattr(v, "__dict__", {}))
    state.update({k: getattr(v, k) for k in getattr(type(v), "__slots__", ()) if hasattr(v, k)})
    return ("obj", type(v).__name__, tuple((k, inner(x)) for k, x in state.items()))


def _arrays(v: Any) -> list:
    if isinstance(v, np.ndarray):
        return [v]
    if isinstance(v, (tuple, list)):
        return [a for x in v for a in _arrays(x)]
    if isinstance(v, dict):
        return [a for x in v.values() for a in _arrays(x)]
    return []


class Record:
    """What each call returned, raised, warned and printed, and what it left in its arguments;
    ``strict`` and ``loose`` (floats rounded) pictures of each."""

    def __init__(self) -> None:
        self.strict: list = []
        self.loose: list = []

    def call(self, f: Callable, *args: Any, **kwargs: Any) -> Any:
        printed = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
            warnings.simplefilter("always")
            try:
                result, error = f(*args, **kwargs), None
            except Exception as exc:  # noqa: BLE001 - whatever the plain call raises
                result, error = None, (type(exc).__name__, str(exc))
        said = [(w.category.__name__, str(w.message)) for w in caught]
        ids = [
            (x is y, bool(np.shares_memory(x, y)))
            for x in _arrays(result)
            for y in _arrays((args, kwargs))
        ]
        for loose, log in ((False, self.strict), (True, self.loose)):
            outcome = (snap(result, loose), error, said, snap((args, kwargs), loose))
            log.append((*outcome, ids, printed.getvalue()))
        return result

    def note(self, value: Any) -> None:
        self.strict.append(snap(value, False))
        self.loose.append(snap(value, True))


def _run(path: Path, name: str, wrap: Callable) -> Record:
    module, record = _load(path), Record()
    with np.errstate(all="warn"):
        getattr(module, name)(module, wrap, record)
    return record


def _params() -> list:
    params = []
    for path, name in _scenarios():
        for backend in ["eager", "c", *TRITON]:
            slow = backend != "eager" and name not in FOUND
            marks = [pytest.mark.slow] if slow else []
            params.append(pytest.param(path, name, backend, marks=marks, id=f"{name}-{backend}"))
    return params


@pytest.mark.parametrize("path, name, backend", _params())
def test_adversarial_program_matches_plain(path, name, backend):
    plain = _run(path, name, lambda f: f)
    compiled = _run(path, name, lambda f: astcompile.compile(f, backend=backend))
    if compiled.strict == plain.strict or compiled.loose == plain.loose:
        return
    pairs = [(p, g) for p, g in zip(plain.loose, compiled.loose) if p != g]
    first = pairs[0] if pairs else (len(plain.loose), len(compiled.loose))
    pytest.fail(
        f"call {plain.loose.index(first[0]) if pairs else '?'} differs:\n"
        f"plain    {first[0]}\ncompiled {first[1]}"
    )
