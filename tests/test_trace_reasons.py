"""TraceBreak's reasons: each break carries its catalogued code, its message text is the
phrase and the detail, and every raise in the package names a reason."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import astcompile
from astcompile.frontend.breaks import BreakReason
from astcompile.ir.graph import Loc
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason

PACKAGE = pathlib.Path(astcompile.__file__).parent


def test_the_message_is_location_phrase_and_detail():
    exc = TraceBreak(TraceReason.ADVANCED_INDEXING, "a uint64 index array", Loc("f.py", 3))
    assert str(exc) == "f.py:3: advanced indexing: a uint64 index array"
    assert exc.reason.code is BreakReason.TRACE_UNSUPPORTED


def test_a_reason_must_be_a_trace_reason():
    with pytest.raises(TypeError, match="needs a TraceReason"):
        TraceBreak("data-dependent value", "a free phrase")


def test_phrases_are_distinct():
    phrases = [r.phrase for r in TraceReason]
    assert len(phrases) == len(set(phrases))


@pytest.mark.parametrize(
    "reason, code",
    [
        (TraceReason.DATA_DEPENDENT_CONTROL, "GB007"),
        (TraceReason.DATA_DEPENDENT_VALUE, "GB007"),
        (TraceReason.DISALLOWED_OP, "GB005"),
        (TraceReason.SIDE_EFFECT, "GB012"),
        (TraceReason.NOT_SUPPORTED, "GB021"),
        (TraceReason.LOOP_CARRIED_TYPE, "GB021"),
    ],
)
def test_reasons_carry_their_catalogued_code(reason, code):
    assert reason.code.code == code


#: Calls that name a break's reason: ``rerun_on_failure(reason, ...)`` hands its reason to
#: ``control.require_no_stores``, which raises it (its ``TraceBreak(reason, ...)`` is the one
#: call whose reason is a name, checked here through the calls that hand it one).
REASON_CALLS = {"TraceBreak", "rerun_on_failure"}
HANDED_ON = "trace/control.py", "reason"


def _reason_arguments() -> list[tuple[str, ast.expr | None]]:
    """(where, first argument) of every call in the package that names a break's reason."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE))
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)  # C.f()
            first = node.args[0] if node.args else None
            handed_on = (where, getattr(first, "id", None)) == HANDED_ON
            if name in REASON_CALLS and not (handed_on and name == "TraceBreak"):
                found.append((f"{where}:{node.lineno}", first))
    return found


def test_every_trace_break_names_a_reason_and_every_reason_is_raised():
    calls = _reason_arguments()
    assert len(calls) > 40
    named = set()
    for where, first in calls:
        is_member = (
            isinstance(first, ast.Attribute)
            and isinstance(first.value, ast.Name)
            and first.value.id == "TraceReason"
        )
        assert is_member, f"{where}: TraceBreak without a TraceReason member"
        named.add(first.attr)
    assert named == {r.name for r in TraceReason}, "a reason no code raises"


def test_a_break_found_while_tracing_reports_its_code_at_the_users_line():
    def f(x):
        flag = bool(x.sum() > 0)
        return x * flag

    def g(x, items):
        items[0] = x.sum()
        return x + 1

    (data,) = astcompile.explain(astcompile.compile(f, backend="eager"), np.ones(3)).break_reasons
    assert data.code == "GB007" and data.source_line == "flag = bool(x.sum() > 0)"
    assert data.detail.startswith("data-dependent control flow: the truth value of an array")
    compiled = astcompile.compile(g, backend="eager")
    (effect,) = astcompile.explain(compiled, np.ones(3), [0.0]).break_reasons
    assert effect.code == "GB012" and effect.source_line == "items[0] = x.sum()"
    assert effect.detail.startswith("side effect on a Python object: the region changes a list")
