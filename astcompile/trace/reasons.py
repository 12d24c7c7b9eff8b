"""Why the tracer stops: each :class:`TraceBreak` names one of these reasons.

A reason is the short phrase the break's message starts with ("data-dependent control flow")
and the catalogued graph break a user sees for it (:class:`BreakReason`, the GB codes in
``docs/graph-breaks.md``). The tracer raises the member, so the code travels with the break
instead of being looked up again from the phrase.
"""

from __future__ import annotations

from enum import Enum

from astcompile.frontend.breaks import BreakReason

_DATA = BreakReason.DATA_DEPENDENT
_OTHER = BreakReason.TRACE_UNSUPPORTED


class TraceReason(Enum):
    """Value: (phrase, catalogued break). Most are GB021, a NumPy feature the tracer lacks."""

    # values the trace would need to know
    DATA_DEPENDENT_CONTROL = ("data-dependent control flow", _DATA)
    DATA_DEPENDENT_VALUE = ("data-dependent value", _DATA)
    RUNTIME_SIZE = ("size known only at run time", _OTHER)
    VALUE_DEPENDENT_TYPE = ("value-dependent type", _OTHER)
    CONCRETE_ARRAY = ("conversion to a concrete array", _OTHER)
    ARRAY_ITERATION = ("iteration over an array", _OTHER)
    UNROLLED = ("Python iteration unrolled past the trace's budget", _OTHER)
    # NumPy features and operands the tracer does not model
    NOT_SUPPORTED = ("not supported by the tracer", _OTHER)
    DISALLOWED_OP = ("disallowed op", BreakReason.DISALLOWED_CALL)
    UNSUPPORTED_ARGUMENT = ("unsupported argument", _OTHER)
    UNSUPPORTED_OPERAND = ("unsupported operand", _OTHER)
    UNSUPPORTED_DTYPE = ("unsupported dtype", _OTHER)
    UNSUPPORTED_SCALAR = ("unsupported scalar", _OTHER)
    UNSUPPORTED_OUTPUT = ("unsupported output", _OTHER)
    ZERO_D_VIEW = ("0-d view of an argument", _OTHER)
    BOOLEAN_MASK = ("boolean mask", _OTHER)
    ADVANCED_INDEXING = ("advanced indexing", _OTHER)
    COMPLEX_TO_REAL_STORE = ("complex to real store", _OTHER)
    COMPLEX_TO_REAL_CAST = ("complex to real cast", _OTHER)
    MIXED_SIGN_COMPARISON = ("mixed signed/unsigned comparison", _OTHER)
    CLIP_INT_BOUND = ("np.clip with a Python int bound", _OTHER)
    DOT_ABOVE_2D = ("np.dot on arrays above 2-D", _OTHER)
    # Python scalars in loops
    MIN_MAX_ONE_ARGUMENT = ("min/max of one argument", _OTHER)
    MIN_MAX_MIXED_TYPES = ("mixed types in min/max", _OTHER)
    ROUND_DIGITS = ("round with digits", _OTHER)
    LOOP_POWER = ("power of a loop value", _OTHER)
    ASSERT_MESSAGE = ("assert message", _OTHER)
    INT_OVERFLOW = ("Python int beyond int64", _OTHER)
    # loop-carried state
    LOOP_CARRIED_VALUE = ("unsupported loop-carried value", _OTHER)
    LOOP_CARRIED_TYPE = ("loop-carried type", _OTHER)
    LOOP_CARRIED_SHAPE = ("loop-carried shape", _OTHER)
    # Python objects the region reads, changes or returns
    LARGE_CONTAINER = ("large Python container", _OTHER)
    MUTABLE_CONTAINER = ("mutable Python container", _OTHER)
    IDENTITY_COMPARISON = ("identity comparison", _OTHER)
    OBJECT_IDENTITY = ("identity of a Python object", _OTHER)
    OBJECT_METHOD = ("method of a Python object", _OTHER)
    OBJECT_ITERATION = ("iteration over a Python object", _OTHER)
    COMPUTED_KEY = ("computed key", _OTHER)
    LIST_WRITE = ("write into a Python list", _OTHER)
    OBJECT_WRITE = ("write into a Python object", _OTHER)
    SIDE_EFFECT = ("side effect on a Python object", BreakReason.SIDE_EFFECT)
    FOREIGN_BUILTINS = ("builtins other than the function's", _OTHER)
    # callees the region read (frontend/callees.py): what the trace does not run
    PASSED_CALLEE = ("call of an unknown function", BreakReason.UNKNOWN_CALL)
    CALLEE_SIDE_EFFECT = ("call of a function with side effects", BreakReason.SIDE_EFFECT)
    CALLEE_WITH_BREAKS = ("callee with graph breaks", BreakReason.BREAKING_USER_CALL)
    CALLEE_DISABLED = ("call of a disabled function", BreakReason.DISABLED_CALL)
    CALLEE_DISALLOWED = ("call of an op marked disallow_in_graph", BreakReason.DISALLOWED_CALL)
    CALLEE_EXPLICIT_BREAK = ("explicit graph break", BreakReason.EXPLICIT_BREAK)
    TRACED_VALUE_ESCAPES = ("traced value in a Python object", _OTHER)
    MUTABLE_VALUE_ESCAPES = ("mutable value made in the region", _OTHER)

    def __init__(self, phrase: str, code: BreakReason) -> None:
        self.phrase = phrase
        self.code = code

    def __str__(self) -> str:
        return self.phrase
