"""Command-line values the commands share: counts, and ``-j/--jobs``."""

from __future__ import annotations

import argparse

from astcompile.cli.scan import default_jobs


def count(text: str) -> int:
    """An ``argparse`` type: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, not {text}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, not {text}")
    return value


def add_jobs(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "-j", "--jobs", type=count, metavar="N", help=f"{what} (default or 0: one per CPU)"
    )


def jobs(args: argparse.Namespace) -> int:
    """``--jobs``, or the CPUs this process may run on when it is absent or 0."""
    return args.jobs or default_jobs()
