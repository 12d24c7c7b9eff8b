"""Source → libcst analysis → rewritten function with region calls.

Public entry points (used by the API and, without executing user code, by the CLI):

- ``source.function_source(fn) -> FunctionSource``
- ``analysis.analyze_function(src, resolver) -> FunctionAnalysis``
- ``rewrite.rewrite_function(src, analysis, all_eager=False) -> RewriteResult``
- ``materialize.build_function(...)`` turns rewritten source back into a live function that
  shares the original's globals and closure cells.
"""
