"""Rules of astcompile's folder layout (issue 25), checked on the source as
tests/test_jit_layer.py checks the call-time layer."""

from __future__ import annotations

from test_jit_layer import _imported, _modules

#: Stages after the trace read the graph only; the tracer's helpers they need live in ir/.
AFTER_TRACE = ("astcompile.codegen", "astcompile.passes", "astcompile.backends")


def test_later_stages_import_nothing_of_the_tracer():
    known = _modules()
    reaching = sorted(
        f"{m} -> {t}"
        for m, p in known.items()
        if m.startswith(AFTER_TRACE)
        for t in _imported(m, p, known)
        if t.startswith("astcompile.trace")
    )
    assert reaching == []
