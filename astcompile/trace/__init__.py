"""The tracer: runs a region's statements on symbolic values and records an IR graph.

NumPy functions, indexing, loops, reads of attributes and globals are turned into
`astcompile.ir` nodes here; what the tracer cannot express raises TraceBreak.
"""
