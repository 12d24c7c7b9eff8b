"""Hypothesis strategies for the generated holder programs of tests/test_reads_generated.py.

A program is the text of a module that defines ``f`` (the function compiled), ``args()`` (a
fresh argument tuple for one call) and ``state()`` (what its calls leave behind: counters,
appended lists), with the changes made to it between calls. Each kind is a place a compiled
function reads a value from, or a callee it reaches, that the user changes later:

* value holders (``HOLDERS``): attributes, containers, closures, globals, a function's own
  attributes, defaults and code, a callee's defaults and code (swapped as ``%autoreload`` does),
  the module's file edited after import, modules without a file, installed packages, NumPy's
  own names (set, or patched with ``mock.patch.object``);
* callees with side effects (``EFFECTS``) reached through ``self``, a function stored on an
  attribute or an instance attribute shadowing a method: random draws, appends, counters, prints;
* iteration (``LOOPS``) over dicts, views, sets, frozensets and generators held in an argument,
  a global or an attribute, changed in place or rebound.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from hypothesis import strategies as st

#: name: (module set-up after ``def f``, f's parameters, the arguments ``args()`` passes after x,
#: how f reads the value, how a change sets it: a statement of ``setter(new)``, or ``code f`` /
#: ``code helper`` (that function's ``__code__`` from the module written again with ``new``),
#: ``edit`` / ``edit above`` (the module's file written again with ``new``, lines added above),
#: ``autoreload`` (the file written again, imported again, f's and helper's code swapped)).
HOLDERS = {
    "attribute": ("class H: pass\nh = H()\nh.v = {init}", "x, h", "h", "h.v", "h.v = new"),
    "nested": (
        "class H: pass\nh = H()\nh.cfg = H()\nh.cfg.v = {init}",
        "x, h",
        "h",
        "h.cfg.v",
        "h.cfg.v = new",
    ),
    "class attribute": ("class H:\n    v = {init}\nh = H()", "x, h", "h", "h.v", "H.v = new"),
    "dict": ("d = {{'v': {init}}}", "x, d", "d", "d['v']", "d['v'] = new"),
    "list": ("lst = [{init}, 0]", "x, lst", "lst", "lst[0]", "lst[0] = new"),
    "global": ("V = {init}", "x", "", "V", "global V\n    V = new"),
    "callee global": (
        "V = {init}\ndef helper():\n    return V",
        "x",
        "",
        "helper()",
        "global V\n    V = new",
    ),
    "namespace": (
        "import types\nns = types.SimpleNamespace(v={init})",
        "x",
        "",
        "ns.v",
        "ns.v = new",
    ),
    "closure": (None, "x", "", "v", None),  # the factory of _closure_source
    "function attribute": ("def g():\n    pass\ng.v = {init}", "x", "", "g.v", "g.v = new"),
    "own attribute": ("f.v = {init}", "x", "", "f.v", "f.v = new"),
    "own default": ("", "x, v={init}", "", "v", "f.__defaults__ = (new,)"),
    "own keyword default": ("", "x, *, v={init}", "", "v", "f.__kwdefaults__ = {'v': new}"),
    "own keyword default in place": ("", "x, *, v={init}", "", "v", "f.__kwdefaults__['v'] = new"),
    "own mutable default": (
        "",
        "x, d={{'v': {init}}}",
        "",
        "d['v']",
        "f.__defaults__[0]['v'] = new",
    ),
    "own code": ("", "x", "", "({init})", "code f"),
    "callee default": (
        "def helper(v={init}):\n    return v",
        "x",
        "",
        "helper()",
        "helper.__defaults__ = (new,)",
    ),
    "callee keyword default": (
        "def helper(*, v={init}):\n    return v",
        "x",
        "",
        "helper()",
        "helper.__kwdefaults__ = {'v': new}",
    ),
    "callee code": ("def helper():\n    return {init}", "x", "", "helper()", "code helper"),
    "file edited": ("", "x", "", "({init})", "edit"),
    "file edited above": ("", "x", "", "({init})", "edit above"),
    "autoreload": (
        "def helper():\n    return {init}",
        "x",
        "",
        "helper() * ({init})",
        "autoreload",
    ),
    "module without a file": (
        "import types\nm = types.ModuleType('m')\nm.v = {init}",
        "x",
        "",
        "m.v",
        "m.v = new",
    ),
    "installed package": ("", "x", "", "pkg.V", "pkg.V = new"),
    "numpy attribute": (
        "np.ac_generated_v = {init}",
        "x",
        "",
        "np.ac_generated_v",
        "np.ac_generated_v = new",
    ),
    "numpy patched": (
        "mock.patch.object(np, 'negative', {init}).start()",
        "x",
        "",
        "np.negative",
        "mock.patch.object(np, 'negative', new).start()",
    ),
    "numpy constant patched": (
        "mock.patch.object(np, 'e', {init}).start()",
        "x",
        "",
        "np.e",
        "mock.patch.object(np, 'e', new).start()",
    ),
    "math patched": (
        "import math\nmock.patch.object(math, 'tau', {init}).start()",
        "x",
        "",
        "math.tau",
        "mock.patch.object(math, 'tau', new).start()",
    ),
    "base class attribute": (
        "class A:\n    v = {init}\nclass H(A):\n    pass\nh = H()",
        "x, h",
        "h",
        "h.v",
        "A.v = new",
    ),
    "shadowed class attribute": (
        "class H:\n    v = {init}\nh = H()",
        "x, h",
        "h",
        "h.v",
        "h.v = new",
    ),
    "property": (
        "class H:\n    @property\n    def v(self):\n        return self._v\nh = H()\nh._v = {init}",
        "x, h",
        "h",
        "h.v",
        "h._v = new",
    ),
    "slots": (
        "class H:\n    __slots__ = ('v',)\nh = H()\nh.v = {init}",
        "x, h",
        "h",
        "h.v",
        "h.v = new",
    ),
    "nested containers": (
        "cfg = {{'layers': [{{'v': {init}}}]}}",
        "x, cfg",
        "cfg",
        "cfg['layers'][0]['v']",
        "cfg['layers'][0] = {'v': new}",
    ),
    "getattr": (
        (
            "class H:\n    def __getattr__(self, name):\n        return self.d[name]\nh = H()\n"
            "h.d = {{'v': {init}}}"
        ),
        "x, h",
        "h",
        "h.v",
        "h.d['v'] = new",
    ),
    "class swapped": (
        "class H:\n    v = {init}\nclass K:\n    v = {init}\nh = H()",
        "x, h",
        "h",
        "h.v",
        "K.v = new\n    h.__class__ = K if h.__class__ is H else H",
    ),
    "builtin shadowed": ("", "x", "", "abs", "globals()['abs'] = new"),
    "global tuple": ("T = ({init}, 0)", "x", "", "T[0]", "global T\n    T = (new, 0)"),
}
#: The changes the test makes itself, not ``setter(new)``.
SPECIAL = ("code f", "code helper", "edit", "edit above", "autoreload")
#: What the function does with the value, by the kind of value.
BODIES = {
    "number": "return x * {read} + 1.0",
    "in place": "x += {read}\nreturn x",
    "scalar": "return float(x.sum()) * {read} + len(x) * {read}",  # Python or NumPy scalars
    "split": "y = x * {read}\nprint('between')\nreturn y + {read}",  # two regions, Python between
    "loop": "acc = x * 0.0\nfor i in range(3):\n    acc = acc * 0.5 + x * {read}\nreturn acc",
    "elementwise": (
        "out = np.empty_like(x)\nfor i in range(x.shape[0]):\n    out[i] = x[i] * {read} + i\n"
        "return out"
    ),
    "bool": "if {read}:\n    return x + 1.0\nreturn x - 1.0",
    "str": "if {read} == 'a':\n    return x * 2.0\nreturn x",
    "dtype": "return (x * 2.5).astype({read})",
    "callable": "return {read}(x) * 2.0 + 1.0",
}
_NUMBERS = st.one_of(
    st.floats(-4, 4, allow_nan=False).map(repr),
    st.integers(-5, 5).map(repr),
    st.floats(-4, 4, allow_nan=False, width=32).map(lambda v: f"np.float32({v!r})"),
    st.integers(-3, 3).map(lambda v: f"np.full(4, {v}.5)"),
    st.integers(-3, 3).map(lambda v: f"np.full(4, {v}, dtype=np.int32)"),
)
VALUES = {  # an array where a bool is tested raises, as Python does
    "number": _NUMBERS,
    "in place": _NUMBERS,
    "scalar": _NUMBERS,
    "split": _NUMBERS,
    "loop": _NUMBERS,
    "elementwise": _NUMBERS,  # an array raises (a sequence stored into an element)
    "bool": st.one_of(st.sampled_from(["True", "False"]), _NUMBERS),
    "str": st.one_of(st.sampled_from(["'a'", "'b'"]), _NUMBERS),
    "dtype": st.sampled_from(["np.float32", "np.float64", "np.int32", "np.int64", "'float32'"]),
    "callable": st.sampled_from(
        ["np.sin", "np.cos", "np.negative", "np.abs", "lambda v: v * 3.0", "triple"]
    ),
}
#: The kinds of value a holder takes where not all do ("numpy patched" holds a function).
_KINDS = {
    "numpy patched": ["callable"],
    "builtin shadowed": ["callable"],
    "numpy constant patched": [
        "number",
        "in place",
        "scalar",
        "split",
        "loop",
        "elementwise",
        "bool",
    ],
    "math patched": ["number", "in place", "scalar", "split", "loop", "elementwise", "bool"],
}


@dataclass(frozen=True)
class Holder:
    """A value holder program: the holder, the kind of value, the values in turn."""

    holder: str
    kind: str
    values: tuple[str, ...]

    def source(self, value: str) -> str:
        """The module with ``value`` in the holder (again with a new value for ``code``
        and ``edit`` changes: what the user's edited file says)."""
        setup, params, extra, read, setter = HOLDERS[self.holder]
        body = BODIES[self.kind].format(read=read.format(init=value))
        head = (
            "import numpy as np\nfrom unittest import mock\n\ndef triple(v):\n    return v * 3.0\n"
        )
        if self.holder == "installed package":
            head += "import ac_generated_pkg as pkg\n"
        if self.holder == "file edited above":
            head = "# lines added above\n" * self.values.index(value) + head
        if self.holder == "closure":
            return head + _closure_source(body, value)
        setter = "pass" if setter in SPECIAL else setter
        return (
            f"{head}\n"
            f"def f({params.format(init=value)}):\n{_indent(body, 4)}\n\n"
            f"{setup.format(init=value)}\n\ndef setter(new):\n    {setter}\n\n"
            f"def args():\n    return (X.copy(), {extra})\n\nX = np.arange(4.0) - 1.5\n"
        )


def _closure_source(body: str, value: str) -> str:
    return (
        f"def make():\n    v = {value}\n    def f(x):\n{_indent(body, 8)}\n"
        "    def setter(new):\n        nonlocal v\n        v = new\n    return f, setter\n"
        "f, setter = make()\n\ndef args():\n    return (np.arange(4.0) - 1.5,)\n"
    )


def _indent(text: str, spaces: int) -> str:
    return textwrap.indent(text, " " * spaces)


@st.composite
def holders(draw, holder: str) -> Holder:
    kind = draw(st.sampled_from(_KINDS.get(holder, sorted(BODIES))))
    values = draw(st.lists(VALUES[kind], min_size=2, max_size=4, unique=True))
    return Holder(holder, kind, tuple(values))


# -- callees with side effects -------------------------------------------------------------------

#: name: the body of a callee with that effect, written for a method (``self``) and for a
#: module function (``G``, a namespace of the module's globals state).
EFFECTS = {
    "random": "return np.random.rand(*x.shape) > 0.5",
    "random scalar": "return np.random.normal()",
    "append": "{who}.log.append(float(x.sum()))\nreturn 2.0",
    "count": "{who}.n += 1\nreturn {who}.n",
    "print": "print('effect', x.sum())\nreturn 1.5",
    "pure": "return x * 0.5",
    "generator": "return {who}.rng.random(x.shape)",
    "accumulate": "{who}.buf += x\nreturn {who}.buf.sum()",
    "total": "{who}.total = {who}.total + float(x.sum())\nreturn {who}.total",
}
#: What each holder of effects starts with (``who`` is ``self`` or the module's ``G``).
_STATE = "n=0, log=[], total=0.0, rng=np.random.default_rng(0), buf=np.zeros(4)"
#: How ``forward`` uses what the callee returns.
FORWARDS = {
    "once": "return x * {call} + 1.0",
    "loop": "acc = x\nfor i in range(2):\n    acc = acc * {call} + i\nreturn acc",
    "branch": "y = {call}\nif x.sum() > 0:\n    return x + y\nreturn x - y",
}
#: How ``forward`` reaches the callee, and how a change puts another effect there.
REACHES = {
    "method": ("self.effect(x)", "M.effect = M.effect_{new}"),
    "attribute function": ("self.fn(x)", "m.fn = fn_{new}"),
    "shadowing attribute": ("self.effect(x)", "m.effect = fn_{new}"),
    "callable attribute": ("self.layer(x)", "Layer.__call__ = Layer.effect_{new}"),
    "partial attribute": ("self.part(x)", "m.part = functools.partial(fn_{new})"),
    "static method": ("self.static(x)", "M.static = staticmethod(fn_{new})"),
    "dict on the object": ("self.ops['act'](x)", "m.ops['act'] = fn_{new}"),
    "list on the object": ("self.fns[0](x)", "m.fns[0] = fn_{new}"),
    "getattr": ("getattr(self, 'effect')(x)", "M.effect = M.effect_{new}"),
    "through a pure method": ("self.outer(x)", "M.effect = M.effect_{new}"),
}


def _name(effect: str) -> str:
    return effect.replace(" ", "_")


def effects_source(reach: str, forward: str, first: str, backend: str = "") -> str:
    """A class whose compiled ``forward`` reaches a callee with effect ``first``; every effect
    is there as a method, a module function and a callable class's method. With a
    ``backend``, ``forward`` is compiled in the class by a decorator and ``f`` calls it
    through the object (the way the issue's users wrote it), else ``f`` is ``M.forward``."""
    methods = "".join(
        f"    def effect_{_name(e)}(self, x):\n{_indent(b.format(who='self'), 8)}\n"
        for e, b in EFFECTS.items()
    )
    functions = "".join(
        f"def fn_{_name(e)}(x):\n{_indent(b.format(who='G'), 4)}\n\n" for e, b in EFFECTS.items()
    )
    body = FORWARDS[forward].format(call=REACHES[reach][0])
    init = "    def __init__(self):\n        self.__dict__.update(types.SimpleNamespace(" + _STATE
    first = _name(first)
    decorator = f"    @astcompile.compile(backend={backend!r})\n" if backend else ""
    entry = "def f(m, x):\n    return m.forward(x)" if backend else "f = M.forward"
    return (
        f"import functools\nimport types\nimport numpy as np\nimport astcompile\n\nG = types.SimpleNamespace({_STATE})\n\n"
        f"{functions}class Layer:\n{init}).__dict__)\n\n{methods}    __call__ = effect_{first}\n\n\n"
        f"class M:\n{init}).__dict__)\n        self.fn = fn_{first}\n        self.layer = Layer()\n\n"
        f"{decorator}    def forward(self, x):\n{_indent(body, 8)}\n\n{methods}"
        f"    effect = effect_{first}\n    static = staticmethod(fn_{first})\n\n"
        "    def outer(self, x):\n        return self.effect(x)\n\n\n"
        f"m = M()\nm.part = functools.partial(fn_{first})\nm.ops = {{'act': fn_{first}}}\n"
        f"m.fns = [fn_{first}]\n{entry}\n\n\n"
        "def args():\n    return (m, np.arange(4.0) - 1.5)\n\n\n"
        "def state():\n    return [_kept(h) for h in (m, m.layer, G)]\n\n\n"
        "def _kept(h):\n    return (h.n, h.log, h.total, h.buf, h.rng.bit_generator.state['state'])\n"
    )


@st.composite
def callees(draw) -> tuple[str, str, tuple[str, ...], bool]:
    """How f reaches the callee, how forward uses it, its effects in turn, and whether forward
    is compiled by a decorator in its class."""
    reach = draw(st.sampled_from(sorted(REACHES)))
    forward = draw(st.sampled_from(sorted(FORWARDS)))
    effects = draw(st.lists(st.sampled_from(sorted(EFFECTS)), min_size=1, max_size=4))
    return reach, forward, tuple(effects), draw(st.booleans())


# -- iteration -----------------------------------------------------------------------------------

#: How f loops over ``c`` (each key ``k`` reaches x's rows through ``I``, so int and str keys
#: both index).
LOOPS = {
    "for": "for k in c:\n    acc = acc * 2.0 + x[I[k]]",
    "enumerate": "for n, k in enumerate(c):\n    acc = acc * 2.0 + n * x[I[k]]",
    "zip": "for k, row in zip(c, x):\n    acc = acc * 2.0 + I[k] * row",
    "items": "for k, v in c.items():\n    acc = acc * 2.0 + x[I[k]] * I[v]",
    "reversed": "for k in reversed(c):\n    acc = acc * 2.0 + x[I[k]]",  # sets raise
    "list of": "for k in list(c):\n    acc = acc * 2.0 + x[I[k]]",
    "sum": "acc = acc + sum(x[I[k]] * 2.0 for k in c)",
}
#: What ``c`` is, made from the dict ``D``.
CONTAINERS = {
    "dict": "D",
    "keys": "D.keys()",
    "values": "D.values()",
    "items of": "D",  # iterated by the "items" loop
    "set": "set(D)",
    "frozenset": "frozenset(D)",
    "generator": "(k for k in D)",
}
#: Where f finds ``c``: (f's parameters, its first line, the arguments ``args()`` passes).
PLACES = {
    "argument": ("x, c", "", "C"),
    "global": ("x", "c = C", ""),
    "attribute": ("x, h", "c = h.c", "h"),
    "made per call": ("x, c", "", "{make}"),
}
KEYS = st.lists(st.sampled_from([0, 1, 2, 3, "a", "b"]), max_size=4, unique=True)
_INDEX = "I = {0: 0, 1: 1, 2: 2, 3: 3, 'a': 1, 'b': 3}"


@dataclass(frozen=True)
class Loop:
    """An iteration program: the loop, the container, where f finds it, the dicts in turn and
    whether a change rebinds the container (or only changes ``D`` in place)."""

    loop: str
    container: str
    place: str
    dicts: tuple[str, ...]
    rebind: bool

    def source(self) -> str:
        params, first, extra = PLACES[self.place]
        made = CONTAINERS[self.container]
        body = f"{first}\nacc = np.zeros(x.shape[1])\n{LOOPS[self.loop]}\nreturn acc"
        rebind = f"C = {made}" if self.rebind else "pass"
        return (
            f"import numpy as np\n\n{_INDEX}\nD = {self.dicts[0]}\nC = {made}\n\n\n"
            "class H:\n    pass\n\n\nh = H()\nh.c = C\n\n\n"
            f"def f({params}):\n{_indent(body, 4)}\n\n\n"
            "def setter(new):\n    global C\n    D.clear()\n    D.update(new)\n"
            f"    {rebind}\n    h.c = C\n\n\n"
            f"def args():\n    return (np.arange(12.0).reshape(4, 3), {extra.format(make=made)})\n"
        )


@st.composite
def loops(draw) -> Loop:
    loop = draw(st.sampled_from(sorted(LOOPS)))
    items = ["items of"] if loop == "items" else sorted(set(CONTAINERS) - {"items of"})
    container = draw(st.sampled_from(items))
    keys = draw(st.lists(KEYS, min_size=2, max_size=4))
    values = st.sampled_from([0, 1, 2, 3, "a", "b"])
    dicts = tuple(repr({k: draw(values) for k in ks}) for ks in keys)
    place = draw(st.sampled_from(sorted(PLACES)))
    return Loop(loop, container, place, dicts, draw(st.booleans()))
