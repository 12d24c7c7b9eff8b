"""Shared pytest set-up: the --slow flag, hypothesis profiles, a clean astcompile per test."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# CI draws the same examples every run (a red main must mean a code change broke it);
# --slow explores fresh random examples and keeps the failures it finds in the database.
settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "slow", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False, help="run slow tests too")


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("slow" if config.getoption("--slow") else "ci")
    os.environ.setdefault("ASTCOMPILE_VERIFY_IR", "1")  # processes the tests start verify too
    os.environ.setdefault("ASTCOMPILE_COMPILE_BUDGET", "inf")  # and compile on the first call
    from differential import BACKENDS, TRITON, gpu_present

    if "triton" in BACKENDS and not gpu_present():  # the semantic suite on the Triton target
        os.environ.setdefault("TRITON_INTERPRET", "1")
    if TRITON and not gpu_present():
        _import_triton_for_the_interpreter()


def _import_triton_for_the_interpreter() -> None:
    """Import Triton with ``TRITON_INTERPRET=1``: its library functions (``tl.sum``,
    ``tl.cumsum``) are made for the interpreter only when ``triton.language`` is first
    imported so, and a test that imports it first without (``find_spec("triton.backends...")``
    in the ahead-of-time tests) would break every interpreted kernel after it."""
    before = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        import triton.language  # noqa: F401
    finally:
        if before is None:
            del os.environ["TRITON_INTERPRET"]


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test session gets its own kernel cache; in-memory caches are reset per test."""
    import astcompile

    cache = tmp_path_factory.getbasetemp() / "astcompile-cache"
    cache.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setattr(astcompile.config, "cache_dir", str(cache))
    # Which path runs must not depend on this machine's timing: tests that count compiled
    # calls see the compiled path; tests/test_tiering.py turns measuring on with a test clock.
    monkeypatch.setattr(astcompile.config, "tiering", False)
    # Likewise what compiles on the first call: all of it (tests/test_budget.py sets a budget).
    monkeypatch.setattr(astcompile.config, "compile_budget", float("inf"))
    monkeypatch.setattr(astcompile.config, "verify_ir", True)  # the IR checked after each pass
    os.environ.setdefault("ASTCOMPILE_CACHE_DIR", str(cache))
    yield
    astcompile.reset()


@pytest.fixture(autouse=True)
def _triton_interpreted(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test run on backend "triton" where there is no GPU runs its kernels in Triton's
    interpreter, every call of it (``differential.target_mode`` does so for one call)."""
    from differential import gpu_present

    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "triton" and not gpu_present():
        monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.fixture(params=["class", "routed"])
def runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Callable:
    """Each way a compiled function made in the test changes what its calls run: by class (its
    ``__call__``) or, where the C-level call path is loaded when it is made, by route
    (``runtime/fastcall_switch.c``). Gives ``runs(f)``: what a call of ``f`` runs now."""
    import astcompile
    from astcompile.runtime import fastcall

    if request.param == "class":
        monkeypatch.setattr(fastcall, "switch_type", lambda: None)
        monkeypatch.setattr(fastcall, "build_in_background", lambda cache_dir: None)
    else:
        module = fastcall.extension(astcompile.config.cache_dir)
        assert module is not None, "gcc and Python headers are here: the extension must build"

    def runs(f: Any) -> Any:
        route = getattr(f, "current_route", None)
        assert (route is not None) == (request.param == "routed")
        return route or type(f).__call__

    return runs


@pytest.fixture
def fast() -> Any:
    """The C call path's extension, loaded (built into the test cache on first use)."""
    import astcompile
    from astcompile.runtime import fastcall

    module = fastcall.extension(astcompile.config.cache_dir)
    assert module is not None, "gcc and Python headers are here: the extension must build"
    return module
