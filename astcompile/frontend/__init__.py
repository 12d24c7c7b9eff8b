"""Source → libcst analysis → rewritten function with region calls.

Public entry points (used by the API and, without executing user code, by the CLI):

- ``source.function_source(fn) -> FunctionSource`` (``sources_in_module`` for a file's text)
- ``analysis.analyze_function(src, resolver, tree=None) -> FunctionAnalysis`` with a
  ``resolve.RuntimeResolver(fn)`` or ``static_resolve.StaticResolver(module, filename, ...)``;
  the CLI passes the file's ``tree.ModuleTree`` (parsed once) so no def is parsed again
- ``rewrite.rewrite_function(src, analysis, all_eager=False) -> RewriteResult``
- ``materialize.build_function(...)`` turns rewritten source back into a live function that
  shares the original's globals and closure cells.

Helpers, in pipeline order: ``walk`` (read-only tree walks), ``tree`` (a module parsed once,
positions per def), ``tables`` (call rules as data), ``exprs`` (dotted names, static tests),
``dynamic`` (locals that hold array values), ``statements`` and ``compound`` (statement
rules), ``breaks`` (the reason catalogue), ``names`` (reads/writes, block structure),
``liveness``, ``regions`` (cutting blocks into runs).
"""
