"""A pytest plugin for the run against the installed wheel (``tests/test_packaging.py``): the run
fails if any ``astcompile`` module was imported from outside this environment's ``sys.prefix``
(the checkout, an editable install), and its summary says where they came from."""

from __future__ import annotations

import os
import sys

import pytest


def _strays() -> list[str]:
    prefix = os.path.realpath(sys.prefix) + os.sep
    return sorted(
        f"{name} ({module.__file__})"
        for name, module in list(sys.modules.items())
        if name.split(".")[0] == "astcompile"
        and getattr(module, "__file__", None)
        and not os.path.realpath(module.__file__).startswith(prefix)
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _strays():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    strays = _strays()
    if strays:
        terminalreporter.write_line("astcompile modules from outside the environment:")
        for line in strays:
            terminalreporter.write_line(f"  {line}")
    else:
        terminalreporter.write_line(f"astcompile imported from {os.path.realpath(sys.prefix)}")
