"""``astcompile check FILE_OR_DIR...``: report graph breaks statically and enforce a budget.

Exit 0 within budget; 1 when a ``fullgraph=True`` function breaks or the breaks exceed
``max-breaks`` / ``max-breaks-per-file`` (``[tool.astcompile]`` or the command line); 2 for
usage errors and for files that cannot be parsed (the other files are still checked).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

from astcompile.cli.files import MissingPathError, python_files
from astcompile.cli.options import add_jobs, count, jobs
from astcompile.cli.project_config import Config, ConfigError, find_pyproject, load_config
from astcompile.cli.report import format_text, to_json
from astcompile.cli.scan import CODES, CheckOptions, CheckReport, check_paths


class UsageError(Exception):
    """A bad command-line value (exit 2)."""


@dataclass(frozen=True)
class Budget:
    """The limits in force, each with where it came from (for the error message)."""

    max_breaks: int | None
    max_breaks_per_file: int | None
    origin: dict[str, str]
    config: str | None

    def as_json(self) -> dict:
        return {
            "max_breaks": self.max_breaks,
            "max_breaks_per_file": self.max_breaks_per_file,
            "config": self.config,
        }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="files and folders")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--select", action="append", metavar="CODES", help="report only these code prefixes"
    )
    parser.add_argument(
        "--ignore", action="append", metavar="CODES", help="never report these code prefixes"
    )
    parser.add_argument(
        "--max-breaks", type=count, metavar="N", help="total breaks allowed (overrides config)"
    )
    parser.add_argument(
        "--max-breaks-per-file", type=count, metavar="N", help="breaks allowed in one file"
    )
    parser.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.astcompile] from this file only"
    )
    add_jobs(parser, "files checked in parallel, in processes")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary")


def run(args: argparse.Namespace) -> int:
    try:
        files = python_files(args.paths)
        config = load_config(args.config or find_pyproject(args.paths))
        options = CheckOptions(
            select=_prefixes(args.select, config.select),
            ignore=_prefixes(args.ignore, config.ignore),
        )
    except (MissingPathError, ConfigError, UsageError) as exc:
        print(f"astcompile check: error: {exc}", file=sys.stderr)
        return 2
    budget = _budget(args, config)
    report = check_paths(files, options, jobs=jobs(args))
    found = violations(report, budget)
    code = exit_code(report, found)
    if args.json:
        print(json.dumps(to_json(report, found, budget.as_json(), code), indent=2))
    else:
        sys.stdout.write(format_text(report, found, quiet=args.quiet))
    return code


def violations(report: CheckReport, budget: Budget) -> list[str]:
    """Why the check fails, in words: fullgraph functions that break, then budgets exceeded."""
    found = []
    for fn in report.functions:
        if fn.target.fullgraph and fn.breaks:
            found.append(
                f"{fn.target.name}() in {fn.target.source.filename}:{fn.target.line} is compiled "
                f"with fullgraph=True and has {_breaks(len(fn.breaks))}"
            )
    limit = budget.max_breaks_per_file
    if limit is not None:
        for file in report.files:
            if len(file.breaks) > limit:
                found.append(
                    f"{file.path} has {_breaks(len(file.breaks))}, more than "
                    f"max-breaks-per-file = {limit} ({budget.origin['max_breaks_per_file']})"
                )
    total = len(report.breaks)
    if budget.max_breaks is not None and total > budget.max_breaks:
        found.append(
            f"{_breaks(total)} in all, more than max-breaks = {budget.max_breaks} "
            f"({budget.origin['max_breaks']})"
        )
    return found


def exit_code(report: CheckReport, violations: list[str]) -> int:
    if report.errors:
        return 2
    return 1 if violations else 0


def _budget(args: argparse.Namespace, config: Config) -> Budget:
    values, origin = {}, {}
    for key in ("max_breaks", "max_breaks_per_file"):
        flag = getattr(args, key)
        values[key] = flag if flag is not None else getattr(config, key)
        option = "--" + key.replace("_", "-")
        origin[key] = option if flag is not None else f"from {config.source}"
    return Budget(origin=origin, config=config.source, **values)


def _prefixes(flags: list[str] | None, configured: tuple[str, ...]) -> tuple[str, ...]:
    """``--select GB01,GB002 --select GB1`` -> prefixes; each must match a known code."""
    if flags is None:
        prefixes = configured
    else:
        prefixes = tuple(p.strip().upper() for flag in flags for p in flag.split(",") if p.strip())
    for prefix in prefixes:
        if not any(code.startswith(prefix) for code in CODES):
            raise UsageError(f"unknown code or prefix {prefix!r} (codes are GB001-GB021)")
    return prefixes


def _breaks(number: int) -> str:
    return f"{number} graph break" if number == 1 else f"{number} graph breaks"
