"""Every NumPy function and method the tracer models binds its arguments by NumPy's own
signature: the tables agree with ``inspect.signature`` of the real callables, and positional
calls (``a.var(None, None, None, 1)``) compile to NumPy's answer."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from differential import BACKENDS
from test_masks import assert_compiled_same

from astcompile.ir.ops import REGISTRY, UFUNC_TO_OP
from astcompile.trace import masks, numpy_api, numpy_bind
from astcompile.trace.context import TraceBreak

P = inspect.Parameter


def _entries():
    """(label, NumPy signature, handler) of every table entry."""
    for table in (numpy_api.FUNCTIONS, numpy_api.CREATION, masks.FUNCTIONS):
        for func, handler in table.items():
            yield f"np.{func.__name__}", numpy_bind.function_signature(func), handler
    for table in (numpy_api.METHODS, masks.METHODS):
        for name, handler in table.items():
            yield f"ndarray.{name}", numpy_bind.method_signature(name), handler


ENTRIES = list(_entries())


def _kinds(signature):
    return [(p.name, p.kind) for p in signature.parameters.values()]


@pytest.mark.parametrize("label, signature, handler", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_handler_takes_arguments_as_numpy_binds_them(label, signature, handler):
    """Positional-only values and ``*args`` arrive by position, the rest by NumPy's names: the
    handler takes as many positions, no ``**kwargs`` that could swallow an argument, requires
    only NumPy's parameters, and its defaults are NumPy's (an omitted argument means the same)."""
    numpy_params = list(signature.parameters.values())
    mine = list(inspect.signature(handler).parameters.values())
    leading = [p for p in numpy_params if p.kind is P.POSITIONAL_ONLY]
    assert all(p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) for p in mine[: len(leading)])
    has_varargs = [any(p.kind is P.VAR_POSITIONAL for p in ps) for ps in (numpy_params, mine)]
    assert has_varargs[0] == has_varargs[1], f"{label}: *args differ"
    assert not any(p.kind is P.VAR_KEYWORD for p in mine), f"{label}: handler takes **kwargs"
    by_name = {
        p.name: p for p in numpy_params if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)
    }
    for p in mine[len(leading) :]:
        if p.kind is P.VAR_POSITIONAL:
            continue
        if p.default is P.empty:
            assert p.name in by_name, f"{label}: handler requires {p.name}, not NumPy's"
        numpy_default = by_name[p.name].default if p.name in by_name else P.empty
        if numpy_default not in (P.empty, np._NoValue) and p.default is not P.empty:
            assert p.default == numpy_default, f"{label}: default of {p.name}"


@pytest.mark.parametrize("name", sorted({*numpy_api.METHODS, *masks.METHODS}))
def test_method_signatures_are_ndarrays_own(name):
    """A method's signature is ndarray's text signature, with the parameters NumPy forwards
    ``**kwargs`` to spelled out after it."""
    own = inspect.signature(getattr(np.ndarray, name))
    listed = [k for k in _kinds(own) if k[1] is not P.VAR_KEYWORD]
    assert _kinds(numpy_bind.method_signature(name))[: len(listed)] == listed


def test_forwarded_method_parameters_follow_numpys_order():
    names = lambda n: list(numpy_bind.method_signature(n).parameters)
    assert names("var") == ["self", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean"]
    assert names("max") == ["self", "axis", "out", "keepdims", "initial", "where"]
    assert names("sum") == ["self", "axis", "dtype", "out", "keepdims", "initial", "where"]


def test_every_function_has_a_signature():
    for func in (*numpy_api.FUNCTIONS, *numpy_api.CREATION):
        assert numpy_bind.function_signature(func) == inspect.signature(func)


@pytest.mark.parametrize("ufunc", list(UFUNC_TO_OP), ids=lambda u: u.__name__)
def test_ufunc_ops_take_numpys_operands(ufunc):
    """A ufunc's operands arrive in order (NumPy binds ``out=`` itself): the op's arity is
    ``ufunc.nin`` and the ufunc has one output."""
    assert REGISTRY[UFUNC_TO_OP[ufunc]].nin == ufunc.nin and ufunc.nout == 1


def test_an_argument_the_handler_lacks_breaks_unless_it_is_numpys_default():
    signature = numpy_bind.function_signature(np.sum)
    handler = numpy_api.FUNCTIONS[np.sum]
    with pytest.raises(TraceBreak, match=r"np.sum with initial= runs in NumPy"):
        numpy_bind.call(signature, handler, (None,), {"initial": 1}, "np.sum")
    seen = numpy_bind.call(signature, lambda a, axis=None: (a, axis), (1, 0, None), {}, "np.sum")
    assert seen == (1, 0)


def test_a_call_numpy_rejects_is_a_type_error():
    with pytest.raises(TypeError, match=r"np\.var"):
        numpy_bind.call_function(np.var, numpy_api.FUNCTIONS[np.var], (1,), {"axes": 0})


def var_positional_ddof(a):
    return a.var(None, None, None, 1)


def std_positional_ddof(a):
    return np.std(a, 0, None, None, 1)


def std_positional_keepdims(a):
    return a.std(1, None, None, 1, True), np.var(a, 0, None, None, 0, True)


def max_positional_keepdims(a):
    return np.max(a, 0, None, True), a.min(1, None, True), np.argmax(a, 1, None, keepdims=True)


def sum_positional_keepdims(a):
    return np.sum(a, 0, None, None, True), a.prod(1, None, None, True), a.mean(1, None, None, True)


def like_with_shape(a):
    return np.zeros_like(a, shape=(2, 2)), np.full_like(a, fill_value=2), np.ones_like(a, None)


def asarray_copy(a):
    b = np.asarray(a, copy=True)
    b[0, 0] = 100.0
    return b


def keyword_bounds_and_names(a):
    return (
        np.clip(a, min=1, max=3),
        a.clip(1, 3),
        np.broadcast_to(array=a, shape=(2, 2, 3)),
        np.real(val=a),
        np.where(a > 2, a, 0.0),
    )


def shapes_by_position(a):
    return a.reshape(3, 2), a.reshape((3, 2)), a.transpose(1, 0), np.transpose(a, (1, 0)), a.T


CALLS = [
    var_positional_ddof,
    std_positional_ddof,
    std_positional_keepdims,
    max_positional_keepdims,
    sum_positional_keepdims,
    like_with_shape,
    asarray_copy,
    keyword_bounds_and_names,
    shapes_by_position,
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", CALLS, ids=lambda f: f.__name__)
def test_positional_and_keyword_calls_compile_to_numpys_answer(caplog, fn, backend):
    assert_compiled_same(caplog, fn, np.arange(6.0).reshape(2, 3), backend=backend)
