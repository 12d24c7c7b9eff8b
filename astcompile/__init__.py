"""astcompile: a source-level compiler for plain NumPy code.

``@astcompile.compile`` rewrites a function's source into compiled regions and eager segments
at the statements it cannot compile (graph breaks), then runs each region as fused kernels.
"""

from astcompile import config
from astcompile.api import (
    allow_in_graph,
    compile,
    compile_times,
    device,
    disable,
    disallow_in_graph,
    graph_break,
    reset,
    run,
)
from astcompile.errors import CompileError, GraphBreakError, NoSourceError, Unsupported
from astcompile.explain import ExplainOutput, explain
from astcompile.logs import configure_from_env as _configure_logs
from astcompile.logs import set_logs
from astcompile.version import __version__ as __version__

__all__ = [
    "CompileError",
    "ExplainOutput",
    "GraphBreakError",
    "NoSourceError",
    "Unsupported",
    "allow_in_graph",
    "compile",
    "compile_times",
    "config",
    "device",
    "disable",
    "disallow_in_graph",
    "explain",
    "graph_break",
    "reset",
    "run",
    "set_logs",
]

_configure_logs()
