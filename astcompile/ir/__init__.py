"""The intermediate representation: graphs of frozen nodes, the op table, symbolic shapes.

Everything after tracing reads only this package: the passes, the schedule, the targets and
the call-time layer (which unpickles trace results from the warm cache without the tracer).
"""
