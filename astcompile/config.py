"""User settings. Environment variables override the defaults at import time.

``ASTCOMPILE_SUPPRESS_ERRORS=1``, ``ASTCOMPILE_CACHE_SIZE_LIMIT=8``, ``ASTCOMPILE_CACHE_DIR``,
``ASTCOMPILE_CACHE_MAX_BYTES``, ``ASTCOMPILE_BUILD_TIMEOUT``, ``ASTCOMPILE_DEBUG=1`` (or
``ASTCOMPILE_DEBUG_DIR``), ``ASTCOMPILE_VERIFY=1``, ``ASTCOMPILE_TIERING=0``,
``ASTCOMPILE_TRITON_AUTOTUNE=0``, ``ASTCOMPILE_COMPILE_BUDGET=0.5``; the test hook
``ASTCOMPILE_PLANT_MISCOMPILE=1``.
"""

from __future__ import annotations

import os


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def _env_bytes(name: str, default: int) -> int:
    """A size in bytes: ``536870912``, or with a binary suffix ``512M``, ``2G``, ``64K``."""
    text = os.environ.get(name, "").strip().upper().removesuffix("B").removesuffix("I")
    if not text:
        return default
    scale = 1 << (10 * "KMG".index(text[-1]) + 10) if text[-1] in "KMG" else 1
    try:
        return int(float(text.rstrip("KMG")) * scale)
    except ValueError:
        raise ValueError(
            f"{name}={os.environ[name]!r}: expected bytes, like 536870912 or 512M"
        ) from None


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
cache_size_limit: int = int(os.environ.get("ASTCOMPILE_CACHE_SIZE_LIMIT", "8"))
#: On-disk cache of built kernels.
cache_dir: str = os.environ.get("ASTCOMPILE_CACHE_DIR") or _default_cache_dir()
#: The on-disk cache is kept under this many bytes, least recently used entries evicted first
#: (0: no limit). Entries used in the last 10 minutes are never evicted.
cache_max_bytes: int = _env_bytes("ASTCOMPILE_CACHE_MAX_BYTES", 512 << 20)
#: Seconds the C compiler may take on one region before the build fails with CompileError
#: (0: no limit).
build_timeout: float = float(os.environ.get("ASTCOMPILE_BUILD_TIMEOUT", "120"))
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
compile_budget: float = float(os.environ.get("ASTCOMPILE_COMPILE_BUDGET", "0.5"))
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
