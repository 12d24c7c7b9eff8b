"""The Numba column: each program through ``numba.njit`` as its author would decorate it.

Numba compiles lazily, so a program it cannot type fails on its first call: the row then
says why in a few words instead of a time. Its answer is checked like ours before it is timed.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bench.programs import decorated
from bench.programs._compare import Outcome, compare, run


@dataclass
class NumbaRun:
    fn: Callable[..., Any] | None = None  # the jitted program, when it compiled and agreed
    first_call: float | None = None  # seconds, compile included
    note: str = ""  # why there is no time


def numba_version(fn: Callable[..., Any], args: tuple, plain: Outcome) -> NumbaRun:
    """``fn`` under ``numba.njit``, called once (its compile) and checked against ``plain``."""
    if importlib.util.find_spec("numba") is None:
        return NumbaRun(note="numba not installed")
    import numba

    jitted = decorated(fn, numba.njit)
    first = run(jitted, args)
    if first.error is not None and plain.error is None:
        return NumbaRun(note=_short(first.error))
    verdict = compare(_as_python(plain), _as_python(first))
    if not verdict.ok:
        return NumbaRun(note=f"{verdict.status}: {verdict.detail[:60]}")
    return NumbaRun(jitted, first.seconds)


def _as_python(outcome: Outcome) -> Outcome:
    """The outcome with NumPy scalars as Python numbers: Numba returns a ``float`` where
    NumPy returns a ``np.float64``, a difference of Numba's model, not a wrong answer."""
    return replace(outcome, result=_scalars_as_python(outcome.result))


def _scalars_as_python(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return type(value)(_scalars_as_python(v) for v in value)
    return value


def _short(error: BaseException) -> str:
    """The first words of Numba's typing error, which run to pages (in terminal colours)."""
    text = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(error)).split())
    text = re.sub(r"^(Failed in nopython mode pipeline \(step: [^)]*\)\s*)", "", text)
    return f"{type(error).__name__}: {text[:70]}"
