"""Source → libcst analysis → rewritten function with region calls.

Public entry points (used by the API and, without executing user code, by the CLI):

- ``source.function_source(fn) -> FunctionSource`` (``sources_in_module`` for a file's text)
- ``analysis.analyze_function(src, resolver) -> FunctionAnalysis`` with a
  ``resolve.RuntimeResolver(fn)`` or ``resolve.StaticResolver(module, filename)``
- ``rewrite.rewrite_function(src, analysis, all_eager=False) -> RewriteResult``
- ``materialize.build_function(...)`` turns rewritten source back into a live function that
  shares the original's globals and closure cells.

Helpers, in pipeline order: ``tables`` (call rules as data), ``exprs`` (dotted names, static
tests), ``statements`` (simple-statement rules), ``breaks`` (the reason catalogue), ``names``
(reads/writes, block structure), ``liveness``, ``regions`` (cutting blocks into runs).
"""
