"""``astcompile cache info|clear``: what the on-disk cache holds, and emptying it.

The cache is ``config.cache_dir`` (``ASTCOMPILE_CACHE_DIR``). ``info`` prints its folder, size
against ``config.cache_max_bytes``, the entries of each kind and whether code is loaded from it
(the trust rules of ``runtime/trust.py``); ``clear`` removes every entry, waiting for a sweep
another process may be running. Neither compiles nor imports anything of the user's.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from astcompile import config
from astcompile.runtime import UnsafeCacheDir, evict, trust


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("info", "clear"),
        help="info: what the cache holds; clear: remove every entry",
    )
    parser.add_argument("--json", action="store_true", help="info: print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.action == "clear":
        freed = evict.clear(config.cache_dir)
        print(f"removed {_size(freed)} from {config.cache_dir}")
        return 0
    report = info(config.cache_dir)
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else format_info(report))
    return 0


def info(cache_dir: str) -> dict[str, Any]:
    """The cache's folder, limit, trust, and per kind of entry its count and bytes."""
    entries, leftovers = evict.scan(cache_dir)
    sections = {label: {"entries": 0, "bytes": 0} for _, label in evict.SECTIONS}
    for entry in entries:
        sections[entry.section]["entries"] += 1
        sections[entry.section]["bytes"] += entry.size
    return {
        "folder": cache_dir,
        "bytes": sum(e.size for e in entries),
        "max_bytes": config.cache_max_bytes,
        "sections": sections,
        "leftovers": len(leftovers),
        "problem": _problem(cache_dir),
    }


def _problem(cache_dir: str) -> str:
    """Why compiled code is not loaded from ``cache_dir`` ("" when it is)."""
    try:
        trust.check_folder(cache_dir, cache_dir)
    except FileNotFoundError:
        return "it does not exist yet (it is created at the first compile)"
    except UnsafeCacheDir as exc:
        return str(exc)
    return ""


def format_info(report: dict[str, Any]) -> str:
    limit = _size(report["max_bytes"]) if report["max_bytes"] else "no limit"
    lines = [
        f"cache folder  {report['folder']}",
        f"size          {_size(report['bytes'])} of {limit} (ASTCOMPILE_CACHE_MAX_BYTES)",
    ]
    for label, found in report["sections"].items():
        lines.append(f"  {label:<15} {found['entries']:>6}  {_size(found['bytes'])}")
    if report["leftovers"]:
        lines.append(f"  {'leftovers':<15} {report['leftovers']:>6}  (of interrupted builds)")
    used = "no: " + report["problem"] if report["problem"] else "yes"
    lines.append(f"loaded from   {used}")
    return "\n".join(lines) + "\n"


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"
