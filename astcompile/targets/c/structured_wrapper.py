"""The C function and the Python wrapper of a structured region.

The wrapper checks the arguments (as the fused-kernel wrapper does), refuses arguments the C
code cannot treat like NumPy would (a written array that is read-only or overlaps another
argument: those calls run the region's own statements), runs the NumPy steps that come before
everything else (``x.sort()``'s sort: ``StructPlan.hoisted``), allocates every buffer with
``np.empty``, calls the C function once and turns its status into NumPy's exception. Array outputs are the
buffers themselves or NumPy views of arguments and buffers, built here so views escape as views.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from astcompile.ir.graph import Graph, InputKind, LoopAttr, Node, walk
from astcompile.ir.ops import Op
from astcompile.ir.shapes import is_runtime
from astcompile.lower.fastplan import (
    VIEW_KINDS,
    NoFastPlan,
    dim_plan,
    product,
    size_conditions,
    view_step,
)
from astcompile.lower.host import HostWriter, unsafe_lines
from astcompile.lower.names import sanitize, value_name
from astcompile.lower.pyexpr import STEPS, dim_expr, shape_expr
from astcompile.lower.source_notes import lines_of
from astcompile.lower.structured_plan import StructuredUnsupported, runtime_index
from astcompile.targets.c import structured_signals as signals
from astcompile.targets.c.ctypes import ctype, scalar_args, scalar_params, scalar_value
from astcompile.targets.c.entry import HEADER, exported
from astcompile.targets.c.structured import Emitter
from astcompile.targets.c.structured_checks import PRELUDE

#: Around a region function whose loops pick scalars by data (a branch made a select,
#: passes/ifconvert.py). GCC's -O2 vectoriser ("very cheap" cost model) leaves a user loop
#: scalar whenever vectorising needs an epilogue for the last iterations; the "cheap" model
#: vectorises the work of each iteration that does not depend on the values carried round and
#: keeps a carried sum scalar and in order, bit for bit (a branchy sum ran 8x faster). Only
#: there: it costs GCC 20-40% more time on a region function. Unrolled, with an integer
#: carried round split into independent partial sums (GCC expands no float one without
#: -fassociative-math, so float sums keep their order): a count of x > t over 65k floats took
#: 3.3 us against 4.9 us, GCC's time within the noise.
CHEAP_VECTORS = [
    "#pragma GCC push_options",
    "/* vectorise what each iteration computes apart from the values carried round */",
    (
        '#pragma GCC optimize("vect-cost-model=cheap", "unroll-loops", '
        '"variable-expansion-in-unroller")'
    ),
]


#: The words a failing region function leaves for its error (ir/checks.py: ``err[0..3]``); the
#: selectors' choices (``sel``) follow them in the same buffer.
ERR_WORDS = 4


@dataclass
class Param:
    ctype: str
    cname: str
    py: str
    word: tuple | None = None  # the fast plan's word for it (lower/fastplan.py), if any


def region_source(graph: Graph, em: Emitter) -> tuple[str, str, HostWriter]:
    """The region's C function, its cffi declaration and its (written) wrapper."""
    name = f"region_{sanitize(graph.name)}"
    params, prologue = _input_params(graph, em)
    for a in em.allocs:
        params.append(Param("void*", f"{a.name}_p", f"_fb({a.name})", ("p", ("t", a.name))))
        prologue.append(f"{ctype(a.dtype)}* {a.name} = ({ctype(a.dtype)}*){a.name}_p;")
    epilogue: list[str] = []
    for j, out in enumerate(graph.outputs):
        if em.plan.is_scalar(out):
            params.append(Param("void*", f"out{j}", f"_fb(out{j})", ("b", ("o", j))))
            epilogue.append(f"*({ctype(out.dtype)}*)out{j} = {em.scalar(out)};")
    sels = list(em.selectors.items())
    for j, (_, (var, _choices, _bias)) in enumerate(sels):
        epilogue.append(f"sel[{j}] = {var};")
    params.append(Param("void*", "err_p", "_fb(err)", ("b", ("err",))))  # one buffer for both
    prologue.append("int64_t* err = (int64_t*)err_p;")
    prologue.append(f"int64_t* sel = err + {ERR_WORDS};  /* the selectors, after the error */")
    tables = ["    " + line for line in em.tables.values()]
    body = tables + ["    " + line for line in prologue] + em.lines + ["    " + e for e in epilogue]
    where = lines_of(n for ns in em.plan.levels.values() for n in ns)
    head = f"/* region {graph.name}: from {where or '?'} */"
    if em.signalling:
        body = [f"    {signals.ENTER}", *body, f"    {signals.LEAVE}"]
    body.append("    return 0;")
    function, decl = exported("int", name, [(p.ctype, p.cname) for p in params], body)
    function = [head, *function]
    if _selects_in_loops(graph):
        function = [*CHEAP_VECTORS, *function, "#pragma GCC pop_options"]
    c = "\n".join([HEADER, PRELUDE, *function, ""])
    wrapper = _Wrapper(graph, em, name, params, sels)
    wrapper.build()
    return c, decl, wrapper


def _size_text(cond: tuple) -> str:
    """Python for one of ``Emitter.sizes`` (the fast plan reads them as they are)."""
    kind, a, b = cond
    if kind == "eq":
        return f"{dim_expr(a)} == {dim_expr(b)}"
    return f"({dim_expr(a)} != 0 or {dim_expr(b)} == 0)"  # "rows"


def _selects_in_loops(graph: Graph) -> bool:
    bodies = [n.attr.body for n in walk(graph.nodes()) if isinstance(n.attr, LoopAttr)]
    return any(n.op is Op.WHERE and n.shape == () for b in bodies for n in b.nodes())


def unit_name(node: Node) -> str:
    """The wrapper's name for a read-only argument with its last axis made unit-stride."""
    return f"u_{value_name(node)}"


def _input_params(graph: Graph, em: Emitter) -> tuple[list[Param], list[str]]:
    params, prologue = [Param("int64_t", "nthreads", "_nthreads()", ("n",))], []
    for k, node in enumerate(graph.inputs):
        name, t = value_name(node), ctype(node.dtype)
        if node.attr.input_kind is InputKind.SCALAR:
            parts = scalar_params(name, node.dtype)
            word = ("x", k, t) if node.dtype.kind not in "bc" else None  # as cffi converts
            params += [
                Param(pt, pn, py, word)
                for (pt, pn), py in zip(parts, scalar_args(name, node.dtype))
            ]
            if len(parts) > 1:  # a complex scalar arrives as its two parts
                prologue.append(f"const {t} {name} = {scalar_value(name, node.dtype)};")
            continue
        params += [
            Param("int64_t", f"n{k}_{a}", f"d{k}_{a}", ("e", ("d", k, a))) for a in range(node.ndim)
        ]
        py = unit_name(node) if em.unit_last(node) else name
        _array(node, py, params, prologue, ("in", k))
    for node in em.plan.hoisted:  # NumPy's result: its own pointer and strides, sizes known
        _array(node, value_name(node), params, prologue, None)
    return params, prologue


def _array(
    node: Node, py: str, params: list[Param], prologue: list[str], ref: tuple | None
) -> None:
    """An array's pointer and byte strides (``py``: the wrapper's array; ``ref``: the fast
    plan's name for it, if it has one), as typed C names."""
    name, t = value_name(node), ctype(node.dtype)
    params.append(Param("void*", f"{name}_p", f"_ptr({py})", ref and ("p", ref)))
    prologue.append(f"{t}* {name} = ({t}*){name}_p;")
    for a in range(node.ndim):
        params.append(
            Param("int64_t", f"{name}_bs{a}", f"{py}.strides[{a}]", ref and ("s", ref, a))
        )
        prologue.append(f"const int64_t {name}_s{a} = {name}_bs{a} / (int64_t)sizeof({t});")


_VIEWS = (Op.INDEX, Op.TRANSPOSE, Op.RESHAPE, Op.BROADCAST_TO, Op.REAL, Op.IMAG)


class _Wrapper(HostWriter):
    """The region's wrapper: the shared forms around one call of its C function, whose status
    turns into NumPy's exception."""

    def __init__(
        self, graph: Graph, em: Emitter, name: str, params: list[Param], sels: list
    ) -> None:
        super().__init__()
        self.graph, self.em, self.name, self.params = graph, em, name, params
        self.sels = {rid: j for j, (rid, _) in enumerate(sels)}

    def build(self) -> str:
        self.open(self.name, self.graph)
        self.checks(self.graph, [_size_text(c) for c in self.em.sizes])
        self._aliasing()
        for node in self.em.plan.hoisted:
            self.numpy_step(node, [value_name(i) for i in node.inputs], value_name(node))
        for n in self.graph.inputs:
            if n.attr.input_kind is InputKind.ARRAY and self.em.unit_last(n):
                self.unit_last(value_name(n), n.dtype.itemsize)
        for a in self.em.allocs:
            self.alloc(a.name, shape_expr(a.shape), f"_dt_{a.name}", a.dtype)
        for j, out in enumerate(self.graph.outputs):
            if self.em.plan.is_scalar(out):
                self.alloc(f"out{j}", "()", f"_odt{j}", out.dtype)
        self.alloc("err", str(ERR_WORDS + len(self.sels)), "_i64", np.dtype(np.int64))
        self.emit(f"rc = _lib.{self.name}({', '.join(p.py for p in self.params)})")
        self.emit("if rc:")
        self.consts["_checks"] = tuple(self.em.checks)
        self.consts["_sites"] = tuple(self.em.sites)
        self.emit("_raise(rc, err, _checks, _sites)", 2)
        self.emit(f"return [{', '.join(self._returned())}]")
        self.fast = self._fast_plan()
        return self.source()

    def _fast_plan(self) -> dict | None:
        """The wrapper as a fast plan (``lower/fastplan.py``), run by the C-level call path:
        where it runs no NumPy step first and returns no selected array. A written argument
        that is read-only or shares memory with another goes to the Python wrapper."""
        graph, em = self.graph, self.em
        if em.plan.hoisted or self.sels:
            return None
        if any(p.word is None for p in self.params):
            return None
        views: dict[tuple, tuple] = {}  # ref -> the step that makes a view returned
        try:
            inputs = [_plan_input(k, n, em) for k, n in enumerate(graph.inputs)]
            outputs = [self._plan_output(o, j, views) for j, o in enumerate(graph.outputs)]
            steps = [
                ("empty", ("t", a.name), a.dtype.str, tuple(map(dim_plan, a.shape)))
                for a in em.allocs
            ]
            conds = size_conditions(graph, [])
            conds += [(kind, dim_plan(a), dim_plan(b)) for kind, a, b in em.sizes]
        except NoFastPlan:
            return None
        steps += [("scratch", o[:2], 2) for o in outputs if o[0] == "o"]
        steps += views.values()  # made before the call, which fills their bytes
        steps.append(("scratch", ("err",), ERR_WORDS))
        words = tuple(p.word for p in self.params)
        call = ("callrc", self.name, words, _work(inputs), ("err",), ERR_WORDS)
        steps = _written(graph, em) + steps
        return {
            "inputs": tuple(inputs),
            "conds": tuple(conds),
            "calls": (*steps, call),
            "outputs": tuple(outputs),
        }

    def _plan_output(self, node: Node, j: int, views: dict[tuple, tuple]) -> tuple:
        """The plan's name for output ``j`` (``node``); a view's step goes into ``views``."""
        if self.em.plan.is_scalar(node):
            if j < 0:
                raise NoFastPlan("a scalar inside an output view")
            return ("o", j, node.dtype.str)
        if node.op is Op.INPUT:
            return ("in", node.attr.index)
        if node.op is Op.STORE:
            return self._plan_output(node.inputs[0], j, views)
        names = {a.name for a in self.em.allocs}
        if node.id in self.em.plan.buffers and value_name(node) in names:
            return ("t", value_name(node))
        if node.op in VIEW_KINDS and node.id not in self.sels:
            ref = ("v", value_name(node))
            of = self._plan_output(node.inputs[0], -1, views)
            views.setdefault(ref, view_step(node, ref, of))
            return ref
        raise NoFastPlan(f"output {node!r}")

    def _returned(self) -> list[str]:
        """Python for each output. A view returned twice (``v = y[::2]; return v, v``) is
        made once, so both are one object as in NumPy; a second ``y[::2]`` is its own node."""
        ids = [node.id for node in self.graph.outputs]
        made: dict[int, str] = {}
        for j, node in enumerate(self.graph.outputs):
            if node.id in made:
                continue
            made[node.id] = self.ref(_sized(node), j)
            if ids.count(node.id) > 1 and not made[node.id].isidentifier():
                self.emit(f"r{j} = {made[node.id]}")
                made[node.id] = f"r{j}"
        return [made[i] for i in ids]

    def _aliasing(self) -> None:
        """Calls whose written arrays are read-only or overlap another argument run the
        region's own statements (NumPy raises, or writes through the overlap, as written)."""
        name = [value_name(n) for n in self.graph.inputs]
        conds = [
            f"not {name[k]}.flags.writeable"
            if kind == "writable"
            else f"_np.may_share_memory({name[k]}, {name[j[0]]})"
            for kind, k, *j in _written(self.graph, self.em)
        ]
        if conds:
            self.lines += unsafe_lines(" or ".join(conds))

    def ref(self, node: Node, j: int = -1) -> str:
        """Python for an output: an argument, a buffer, or a NumPy view of one of them."""
        if self.em.plan.is_scalar(node):
            if j < 0:
                raise StructuredUnsupported("a scalar inside an output view")
            return f"out{j}"
        if node.op is Op.INPUT or node.id in self.em.plan.buffers or node in self.em.plan.hoisted:
            return value_name(node)
        if node.op is Op.STORE:
            return self.ref(node.inputs[0])
        if node.id in self.sels:
            _, choices, bias = self.em.selectors[node.id]
            named = ", ".join(c if isinstance(c, str) else self.ref(c) for c in choices)
            return f"({named},)[err[{ERR_WORDS + self.sels[node.id]}] + {bias}]"
        if node.op in STEPS and node.op in _VIEWS:
            if runtime_index(node):
                raise StructuredUnsupported("an output view with a runtime index")
            return STEPS[node.op](node, [self.ref(node.inputs[0])])
        raise StructuredUnsupported(f"output {node!r} ({node.op.name}) cannot be returned")


def _written(graph: Graph, em: Emitter) -> list[tuple]:
    """The plan's checks of ``_aliasing``: each written argument is writeable and apart
    from every other array argument (C order, so exactly ``np.may_share_memory``)."""
    arrays = [k for k, n in enumerate(graph.inputs) if n.attr.input_kind is InputKind.ARRAY]
    written = [k for k in arrays if graph.inputs[k].id in em.written]
    steps = [("writable", k) for k in written]
    return steps + [("apart", k, j) for k in written for j in arrays if j != k]


def _plan_input(k: int, node: Node, em: Emitter) -> tuple:
    if node.attr.index != k:
        raise NoFastPlan("inputs out of order")
    if node.attr.input_kind is InputKind.SCALAR:
        return ("scalar",)
    if node.attr.input_kind is not InputKind.ARRAY:
        raise NoFastPlan(f"input {node!r}")
    return ("array", node.ndim, node.dtype.str, em.unit_last(node))


#: The work of a loop whose trip counts may come from scalars (``range(n)``, a ``while`` on a
#: tolerance): unbounded, so the call frees the GIL as cffi's did.
UNBOUNDED = ("k", 2**62)


def _work(inputs: list[tuple]) -> tuple:
    """The elements of the array arguments (the call frees the GIL from a few thousand on), or
    ``UNBOUNDED`` where a scalar argument (or a constant: no argument) may set how long the
    loops run."""
    if not inputs or any(ref[0] == "scalar" for ref in inputs):
        return UNBOUNDED
    out = ("k", 0)
    for k, ref in enumerate(inputs):
        out = ("+", out, product([("d", k, a) for a in range(ref[1])]))
    return out


def _sized(node: Node) -> Node:
    """An output whose length only the C code knows (``x[:k]`` for a ``k`` that varies) would
    be returned at its bound's length, its tail uninitialised: such a region runs as written."""
    if any(is_runtime(d) for d in node.shape):
        raise StructuredUnsupported("an output whose length is known only at run time")
    return node
