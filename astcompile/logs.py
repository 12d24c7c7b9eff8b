"""Logging through the stdlib ``logging`` module under the ``astcompile`` logger.

``ASTCOMPILE_LOGS=graph_breaks,recompiles,guards,output_code,perf_hints`` (or :func:`set_logs`) switches
the named channels to INFO on stderr, like ``TORCH_LOGS`` does for torch.compile.
"""

from __future__ import annotations

import logging
import os

CHANNELS = ("graph_breaks", "recompiles", "guards", "output_code", "perf_hints")
root = logging.getLogger("astcompile")
graph_breaks = logging.getLogger("astcompile.graph_breaks")
recompiles = logging.getLogger("astcompile.recompiles")
guards = logging.getLogger("astcompile.guards")
output_code = logging.getLogger("astcompile.output_code")
#: Where compiled code is not faster, and what runs instead (``jit/tiering.py``).
perf_hints = logging.getLogger("astcompile.perf_hints")
_handler: logging.Handler | None = None


def set_logs(*channels: str) -> None:
    """Show the named channels (see CHANNELS) at INFO on stderr; no names turns them off."""
    global _handler
    unknown = [c for c in channels if c not in CHANNELS]
    if unknown:
        raise ValueError(f"unknown log channel(s) {unknown}; choose from {', '.join(CHANNELS)}")
    if _handler is None:
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("[astcompile.%(channel)s] %(message)s"))
        _handler.addFilter(_add_channel)
        root.addHandler(_handler)
    for name in CHANNELS:
        logging.getLogger(f"astcompile.{name}").setLevel(
            logging.INFO if name in channels else logging.WARNING
        )


def _add_channel(record: logging.LogRecord) -> bool:
    record.channel = record.name.rsplit(".", 1)[-1]
    return True


def configure_from_env() -> None:
    value = os.environ.get("ASTCOMPILE_LOGS", "")
    channels = [c.strip() for c in value.split(",") if c.strip()]
    if channels:
        set_logs(*channels)
