"""The slow path of a region call: when compiled code must not run alone.

Two settings send a region call here instead of straight to its compiled entry:

- **``np.errstate``/``np.seterr`` asks to raise** (or call, or log) on a floating-point error:
  compiled code cannot report one, so the region's plain code runs and NumPy raises exactly as
  it would (see :mod:`astcompile.runtime.errstate`).
- **``config.verify``** (``ASTCOMPILE_VERIFY=1``), an accuracy checker like torch.compile's
  ``REPRO_LEVEL=4``: the region runs compiled, then its plain code runs on copies of the
  inputs taken before the compiled run; results and the arguments as each run left them are
  compared (:mod:`astcompile.compare`). A mismatch warns once per region and guard key, naming
  the function, region and lines, and writes a stand-alone repro (:mod:`astcompile.repro`).

``config.plant_miscompile`` is the test hook for the second: every region compiled while it is
set returns a wrong value (:func:`plant`).
"""

from __future__ import annotations

import linecache
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile import config, repro
from astcompile.compare import call_differences, copy_args, input_floor
from astcompile.jit.entries import MISS
from astcompile.jit.fp_errors import after_compiled
from astcompile.runtime import errstate, fpflags

_lock = threading.Lock()
_reported: weakref.WeakKeyDictionary[Any, set[tuple]] = weakref.WeakKeyDictionary()


def region_call(region: Any, args: tuple) -> tuple:
    """Run ``region`` when ``config.verify`` is set or NumPy's error state is not quiet."""
    if not errstate.quiet():
        region.stats.eager_calls += 1
        return region.body(*args)
    return checked_call(region, args)


def checked_call(region: Any, args: tuple) -> tuple:
    """The region's usual result; when a compiled entry produced it, checked against the plain
    code run on copies of the inputs (none where an input cannot be copied: a generator, a
    dict view; the call is then not checked, never failed)."""
    try:
        pristine = copy_args(args)
    except Exception:  # noqa: BLE001 - deepcopy's error for any object it cannot copy
        pristine = None
    compiled_before = region.stats.compiled_calls
    fpflags.clear()  # NumPy's warnings, as the region's usual call gives them
    result = region.guards(*args)
    if result is MISS:
        result = region.call(args)
    elif fpflags.raised():
        result = after_compiled(region, args, result)
    if region.stats.compiled_calls == compiled_before or pristine is None:
        return result  # the plain code ran, or there is nothing to run it on: no check
    problems = _plain_differences(region, result, args, pristine)
    if problems:
        _report(region, pristine, problems)
    return result


def _plain_differences(region: Any, result: tuple, args: tuple, pristine: tuple) -> list[str]:
    plain_args = copy_args(pristine)
    try:
        with np.errstate(all="ignore"):  # NumPy's warnings were the compiled run's to give
            expected = region.body(*plain_args)
    except Exception as exc:  # noqa: BLE001 - any exception of the user's code is the finding
        return [f"the plain code raised {type(exc).__name__}: {exc}; the compiled code did not"]
    return call_differences(result, expected, args, plain_args, region.names, input_floor(pristine))


def _report(region: Any, args: tuple, problems: list[str]) -> None:
    """Warn once per region and guard key, with a repro of this call."""
    key = region.key(args)
    with _lock:
        seen = _reported.setdefault(region, set())
        if key in seen:
            return
        seen.add(key)
    try:
        folder = repro.write(region, args, problems)
        where = f"a stand-alone repro: python {folder}/repro.py"
    except Exception as exc:  # noqa: BLE001 - never lose the user's call to a failed write
        where = f"no repro could be written ({type(exc).__name__}: {exc})"
    spec = region.spec
    filename = region.owner.fn.__code__.co_filename
    line = linecache.getline(filename, spec.first_line).strip()
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    warnings.warn(
        f"astcompile verify: {region.owner.name}, region {spec.name} ({filename}, lines "
        f"{spec.first_line}-{spec.last_line}: `{line}`): the compiled result differs from the "
        f"plain code: {'; '.join(problems[:3])}{more}. {where}",
        RuntimeWarning,
        stacklevel=5,
    )


def plant(run: Callable[[list], list]) -> Callable[[list], list]:
    """``run`` itself, or, while ``config.plant_miscompile`` is set (a test hook), ``run``
    made wrong: its first non-empty numeric array output is off by one in its first element;
    with none, it writes that error into its first array argument instead."""
    if not config.plant_miscompile:
        return run

    def planted(leaves: list) -> list:
        outputs = list(run(leaves))
        for i, out in enumerate(outputs):
            if _bumpable(out):
                outputs[i] = _bump(out.copy())
                return outputs
        target = next((leaf for leaf in leaves if _bumpable(leaf)), None)
        if target is not None and target.flags.writeable:
            _bump(target)
        return outputs

    return planted


def _bumpable(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.size > 0 and value.dtype.kind in "biufc"


def _bump(a: np.ndarray) -> np.ndarray:
    first = (0,) * a.ndim
    a[first] = not a[first] if a.dtype.kind == "b" else a[first] + 1
    return a
