"""``astcompile COMMAND ...``: the command line (console script ``astcompile``).

Each command is a module with ``add_arguments(parser)`` and ``run(args) -> int``, imported only
when that command runs, so ``check`` never pays for (or depends on) what ``build`` needs.
Exit codes: 0 success, 1 the check found what it was asked to refuse, 2 usage or input errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

DESCRIPTION = "astcompile: static graph-break checks and ahead-of-time builds for NumPy code."

#: name -> (module, one-line help)
COMMANDS = {
    "check": ("astcompile.cli.check", "report graph breaks statically, without running any code"),
    "build": ("astcompile.cli.build", "compile a package's kernels ahead of time"),
    "cache": ("astcompile.cli.cache", "show (info) or empty (clear) the on-disk kernel cache"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, return its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    from astcompile import __version__

    parser = argparse.ArgumentParser(prog="astcompile", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"astcompile {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    module = None
    for name, (path, help_text) in COMMANDS.items():
        command_parser = commands.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = _load(name, path)
            if module is None:
                return 2
            module.add_arguments(command_parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    if module is None:
        parser.print_help(sys.stderr)
        return 2
    return module.run(args)


def _load(name: str, path: str) -> ModuleType | None:
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name != path:
            raise
        print(
            f"astcompile: the '{name}' command is not available in this installation "
            f"(module {path} is missing)",
            file=sys.stderr,
        )
        return None
