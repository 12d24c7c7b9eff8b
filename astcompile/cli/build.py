"""``astcompile build PKG_DIR``: the graph-break report of ``check``, then kernels compiled ahead
of time for every declared signature, saved in ``__astcache__/`` beside the modules.

Building imports the package (its module-level code runs) and calls each function with example
arguments. Exit status: 0 when everything declared was built, 1 when something failed (an import,
a signature's example call), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys

from astcompile.aot import BuildResult, FunctionBuild, build_package
from astcompile.cli.files import MissingPathError, python_files
from astcompile.cli.options import add_jobs, jobs
from astcompile.cli.report import format_text
from astcompile.cli.scan import check_paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("package", metavar="PKG_DIR", help="the package (or folder of modules)")
    add_jobs(parser, "functions built in parallel, in threads")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summaries")


def run(args: argparse.Namespace) -> int:
    try:
        files = python_files([args.package])
    except MissingPathError as exc:
        print(f"astcompile build: error: {exc}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.package):
        print(f"astcompile build: error: {args.package} is not a folder", file=sys.stderr)
        return 2
    sys.stdout.write(format_text(check_paths(files, jobs=jobs(args)), [], quiet=args.quiet))
    result = _build(args)
    print(format_table(result))
    for error in result.errors + [f"{f.name}: {e}" for f in result.functions for e in f.errors]:
        print(f"astcompile build: {error}", file=sys.stderr)
    failed = result.errors or any(f.errors for f in result.functions)
    return 1 if failed else 0


def _build(args: argparse.Namespace) -> BuildResult:
    from tqdm import tqdm

    show = not args.no_progress and sys.stderr.isatty()
    with tqdm(desc="astcompile build", unit="fn", disable=not show, file=sys.stderr) as bar:
        return build_package(args.package, jobs=jobs(args), progress=_Bar(bar))


class _Bar:
    """The build's progress on a tqdm bar: its length once known, then each function done."""

    def __init__(self, bar) -> None:
        self.bar = bar

    def start(self, total: int) -> None:
        self.bar.reset(total=total)

    def done(self, job: FunctionBuild) -> None:
        self.bar.set_postfix_str(job.name.rsplit(":", 1)[-1], refresh=False)
        self.bar.update(1)


def format_table(result: BuildResult) -> str:
    """functions, graphs, breaks, kernels built and time, one row per function and a total."""
    head = ("function", "signatures", "graphs", "breaks", "kernels", "time")
    rows = [
        (f.name, len(f.signatures), f.graphs, f.breaks, f.kernels, f"{f.seconds:.2f} s")
        for f in result.functions
    ]
    total = (
        "total",
        sum(r[1] for r in rows),
        sum(r[2] for r in rows),
        sum(r[3] for r in rows),
        sum(r[4] for r in rows),
        f"{result.seconds:.2f} s",
    )
    table = [head, *rows, total]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    where = ", ".join(result.manifests) or "nothing written"
    return "\n".join(lines) + f"\n{len(result.functions)} functions built into {where}"
