"""User settings. Environment variables override the defaults at import time.

``ASTCOMPILE_SUPPRESS_ERRORS=1``, ``ASTCOMPILE_CACHE_SIZE_LIMIT=8``, ``ASTCOMPILE_CACHE_DIR``,
``ASTCOMPILE_CACHE_MAX_BYTES``, ``ASTCOMPILE_BUILD_TIMEOUT``, ``ASTCOMPILE_DEBUG=1`` (or
``ASTCOMPILE_DEBUG_DIR``), ``ASTCOMPILE_VERIFY=1``, ``ASTCOMPILE_TIERING=0``,
``ASTCOMPILE_TRITON_AUTOTUNE=0``, ``ASTCOMPILE_COMPILE_BUDGET=0.5``; the test hook
``ASTCOMPILE_PLANT_MISCOMPILE=1``.

Each is checked here: a value outside what a setting accepts stops the import with a
:class:`SettingError` naming the variable and what it accepts, rather than a bare parse error
at import or, worse, a value that fails every build later (a negative timeout) or means
nothing (a negative size).
"""

from __future__ import annotations

import math
import os

#: What a flag may be set to (any case): the words for on, then those for off.
_ON, _OFF = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


class SettingError(ValueError):
    """An environment variable set to something astcompile does not accept (at import)."""


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    if word not in _ON + _OFF:
        raise SettingError(f"{name}={value!r}: expected 1 or 0 (also true/false, yes/no, on/off)")
    return word in _ON


def _env_number(
    name: str, default: float, kind: type, accepted: str, infinite: bool = False
) -> float:
    """A number of ``kind`` (int or float), at least 0 and finite unless ``infinite`` says it
    may be ``inf``; ``accepted`` says what it means in the error naming ``name``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or math.isnan(value) or value < 0 or (math.isinf(value) and not infinite):
        raise SettingError(f"{name}={os.environ[name]!r}: expected {accepted}")
    return value


def _env_bytes(name: str, default: int) -> int:
    """A size in bytes: ``536870912``, or with a binary suffix ``512M``, ``2G``, ``64K``."""
    text = os.environ.get(name, "").strip().upper().removesuffix("B").removesuffix("I")
    if not text:
        return default
    scale = 1 << (10 * "KMG".index(text[-1]) + 10) if text[-1] in "KMG" else 1
    try:
        value = float(text.rstrip("KMG")) * scale
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise SettingError(
            f"{name}={os.environ[name]!r}: expected a size in bytes of 0 or more (0: no "
            "limit), like 536870912 or 512M"
        )
    return int(value)


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "astcompile")


def _default_debug_dir() -> str | None:
    explicit = os.environ.get("ASTCOMPILE_DEBUG_DIR")
    if explicit:
        return explicit
    return os.path.abspath("astcompile_debug") if _env_flag("ASTCOMPILE_DEBUG", False) else None


#: A failing backend compile falls back to NumPy for that region with a warning instead of raising.
suppress_errors: bool = _env_flag("ASTCOMPILE_SUPPRESS_ERRORS", False)
#: Compiled entries kept per region before it runs eagerly with a one-time warning.
cache_size_limit: int = _env_number(
    "ASTCOMPILE_CACHE_SIZE_LIMIT", 8, int, "a whole number of entries, 0 or more"
)
#: On-disk cache of built kernels.
cache_dir: str = os.environ.get("ASTCOMPILE_CACHE_DIR") or _default_cache_dir()
#: The on-disk cache is kept under this many bytes, least recently used entries evicted first
#: (0: no limit). Only an entry another process is loading at that moment is spared.
cache_max_bytes: int = _env_bytes("ASTCOMPILE_CACHE_MAX_BYTES", 512 << 20)
#: Seconds the C compiler may take on one region before the build fails with CompileError
#: (0: no limit).
build_timeout: float = _env_number(
    "ASTCOMPILE_BUILD_TIMEOUT", 120.0, float, "seconds, a number of 0 or more (0: no limit)"
)
#: When set, the rewritten source, every graph and the generated C and wrappers are written below
#: this folder (one folder per function; see astcompile/debug_dump.py).
debug_dir: str | None = _default_debug_dir()
#: Check every compiled region call against its plain code run on copies of the inputs; a
#: mismatch warns and writes a stand-alone repro (slow; for when a result looks wrong).
verify: bool = _env_flag("ASTCOMPILE_VERIFY", False)
#: Time a few calls of each compiled function both ways and run the function as written where
#: that is faster (``jit/tiering.py``). Off: always the compiled path (tests that count
#: compiled calls turn it off; results are the same either way).
tiering: bool = _env_flag("ASTCOMPILE_TIERING", True)
#: Seconds a compiled function may spend compiling in the caller's thread before the rest is
#: put off: built in the background, or traced once the time run plain pays for it
#: (``jit/budget.py``; the rule is in docs/api.md). ``inf``: always compile at once (the tests).
compile_budget: float = _env_number(
    "ASTCOMPILE_COMPILE_BUDGET", 0.5, float, "seconds, a number of 0 or more, or inf", True
)
#: On a GPU, time a few block sizes and warp counts on a Triton kernel's first launch for a new
#: shape class and keep the fastest, saved under ``cache_dir`` (runtime/triton_tuning.py).
#: Off: the fixed table's choice. Never under TRITON_INTERPRET.
triton_autotune: bool = _env_flag("ASTCOMPILE_TRITON_AUTOTUNE", True)
#: Check the IR's invariants (astcompile.ir.graph.verify) after tracing and after every graph
#: pass; the tests set it. A failure is a compiler bug.
verify_ir: bool = _env_flag("ASTCOMPILE_VERIFY_IR", False)
#: Test hook, never for real use: regions compiled while set return a value off by one, so
#: tests can check that ``verify`` catches a miscompile and that its repro reproduces it.
plant_miscompile: bool = _env_flag("ASTCOMPILE_PLANT_MISCOMPILE", False)
