"""Generated programs: a holder of one value (an attribute, a dict item, a closure cell, a
global, a function's attribute or default, a module's attribute, ...) read by a compiled function, replaced between calls, sometimes by another kind of
value; the compiled result must equal the plain function's after every change (see
tests/test_reads.py for one test per kind of read)."""

from __future__ import annotations

import importlib
import sys
import textwrap

import numpy as np
from differential import BACKENDS, assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import astcompile

_HOLDERS = {  # name: (module set-up, parameters, how the function reads it, how a change sets it)
    "attribute": ("class H: pass\nh = H()\nh.v = {init}", "x, h", "h.v", "h.v = new"),
    "nested": (
        "class H: pass\nh = H()\nh.cfg = H()\nh.cfg.v = {init}",
        "x, h",
        "h.cfg.v",
        "h.cfg.v = new",
    ),
    "class attribute": ("class H:\n    v = {init}\nh = H()", "x, h", "h.v", "H.v = new"),
    "dict": ("d = {{'v': {init}}}", "x, d", "d['v']", "d['v'] = new"),
    "list": ("lst = [{init}, 0]", "x, lst", "lst[0]", "lst[0] = new"),
    "global": ("V = {init}", "x", "V", "global V\n    V = new"),
    "callee global": (
        "V = {init}\ndef helper():\n    return V",
        "x",
        "helper()",
        "global V\n    V = new",
    ),
    "namespace": ("import types\nns = types.SimpleNamespace(v={init})", "x", "ns.v", "ns.v = new"),
    "function attribute": ("def g():\n    pass\ng.v = {init}", "x", "g.v", "g.v = new"),
    "callee default": (
        "def helper(v={init}):\n    return v",
        "x",
        "helper()",
        "helper.__defaults__ = (new,)",
    ),
    "callee keyword default": (
        "def helper(*, v={init}):\n    return v",
        "x",
        "helper()",
        "helper.__kwdefaults__ = {'v': new}",
    ),
    "module without a file": (
        "import types\nm = types.ModuleType('m')\nm.v = {init}",
        "x",
        "m.v",
        "m.v = new",
    ),
    "numpy attribute": (
        "np.ac_generated_v = {init}",
        "x",
        "np.ac_generated_v",
        "np.ac_generated_v = new",
    ),
    "closure": (
        (
            "def make():\n    v = {init}\n    def f(x):\n{body}\n    def setter(new):\n"
            "        nonlocal v\n        v = new\n    return f, setter\nf, setter = make()"
        ),
        None,
        "v",
        None,
    ),
}
_BODIES = {  # what the function does with the value, by the kind of value
    "number": "return x * {read} + 1.0",
    "bool": "if {read}:\n    return x + 1.0\nreturn x - 1.0",
    "str": "if {read} == 'a':\n    return x * 2.0\nreturn x",
}
_NUMBERS = st.one_of(
    st.floats(-4, 4, allow_nan=False).map(repr),
    st.integers(-5, 5).map(repr),
    st.floats(-4, 4, allow_nan=False, width=32).map(lambda v: f"np.float32({v!r})"),
    st.integers(-3, 3).map(lambda v: f"np.full(4, {v}.5)"),
    st.integers(-3, 3).map(lambda v: f"np.full(4, {v}, dtype=np.int32)"),
)
_VALUES = {
    "number": _NUMBERS,
    "bool": st.sampled_from(["True", "False"]),
    "str": st.sampled_from(["'a'", "'b'"]),
}


@st.composite
def _programs(draw):
    holder = draw(st.sampled_from(sorted(_HOLDERS)))
    kind = draw(st.sampled_from(sorted(_BODIES)))
    values = draw(st.lists(_VALUES[kind], min_size=2, max_size=4))
    return holder, kind, values, draw(st.sampled_from(BACKENDS))


def _indent(text: str, spaces: int) -> str:
    return textwrap.indent(text, " " * spaces)


def _program_source(holder: str, kind: str, init: str) -> str:
    setup, params, read, setter = _HOLDERS[holder]
    body = _BODIES[kind].format(read=read)
    if params is None:  # the closure: the function and its setter live in the factory
        return "import numpy as np\n" + setup.format(init=init, body=_indent(body, 8)) + "\n"
    return (
        f"import numpy as np\n{setup.format(init=init)}\n\ndef f({params}):\n"
        f"{_indent(body, 4)}\n\ndef setter(new):\n    {setter}\n"
    )


@settings(max_examples=40)
@given(_programs())
def test_generated_holders_follow_changes(tmp_path_factory, program):
    holder, kind, values, backend = program
    folder = tmp_path_factory.mktemp("holders")
    name = f"holders_{abs(hash((holder, kind, tuple(values), backend)))}"
    (folder / f"{name}.py").write_text(_program_source(holder, kind, values[0]))
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))
    params = _HOLDERS[holder][1] or "x"
    extra = [getattr(module, p.strip()) for p in params.split(",")[1:]]
    compiled = astcompile.compile(module.f, backend=backend)
    x = np.arange(4.0) - 1.5
    for new in values[1:] + [values[0]]:
        expected = module.f(x.copy(), *extra)
        assert_same_value(compiled(x.copy(), *extra), expected)
        module.setter(eval(new, {"np": np}))
    sys.modules.pop(name, None)
