"""The tracer: runs a region's statements on symbolic values and records an IR graph.

NumPy functions, indexing, loops, reads of attributes and globals are turned into
`astcompile.ir` nodes here; what the tracer cannot express raises TraceBreak.
"""

# The handler modules, each filling its rows of trace/handlers.py's table as it is imported.
from astcompile.trace import (  # noqa: F401
    complex,
    growing_lists,
    indexing,
    int_bounds,
    local_lists,
    loop_starts,
    loops,
    numpy_api,
    numpy_sequences,
    pycomplex,
    scalars,
    unions,
)
