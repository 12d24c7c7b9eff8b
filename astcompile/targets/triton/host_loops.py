"""A loop region's code on the Triton target: its segments' wrappers, and the host function
that checks the arguments once and runs the user's loops around them.

    def region_heat_region_0(leaves):
        u_0, c__1, steps_2 = leaves
        d0_0, = u_0.shape                       # the argument checks, as a flat wrapper's
        for t_4 in range(c5, steps_2, c6):      # heat.py:7: a host loop
            region_heat_region_0__s0(leaves)    # the body's kernel and store kernel
        return ()

Values cross segments as host variables: ``v12`` (a value a segment handed on), the loop
variable and the carried values under their user names. A segment reads a scalar other than
the loop variable as a 0-d array (``_a0``), so a value the device computed stays there.
"""

from __future__ import annotations

from astcompile.ir.attrs import DynIndex, InputKind
from astcompile.ir.graph import Node, walk
from astcompile.ir.ops import Op
from astcompile.lower.host import NO_IDENTITY, Assured, HostWriter
from astcompile.lower.host_program import (
    HostBranch,
    HostIndex,
    HostLoop,
    HostProgram,
    HostStep,
    Segment,
    every_item,
)
from astcompile.lower.ids import nid
from astcompile.lower.names import sanitize, value_name
from astcompile.lower.pyexpr import const_value, dim_expr, item_expr
from astcompile.targets.triton.flat import Module, TritonCode, built
from astcompile.targets.triton.host_stores import store_sources, unsafe_check
from astcompile.targets.wrapper import WrapperParts


def loop_code(program: HostProgram, assured: Assured) -> TritonCode:
    """The Triton module of every segment's kernels, and the region's wrapper."""
    host = _Host(program, assured)
    host.build()
    return host.module.code(WrapperParts.of(host), program.stored_leaves, (note(program),))


def note(program: HostProgram) -> str:
    """What ``explain`` says of a loop region on Triton."""
    said = []
    if any(isinstance(item, HostLoop) for item in every_item(program.body)):
        said.append("host loops launching the body's kernels, arrays kept on the device")
    if program.grids:
        lines = ", ".join(program.grids)
        said.append(f"independent loops as kernels over all their iterations ({lines})")
    if program.reads_back:
        reads = ", ".join(program.reads_back)
        said.append(f"one value read back from the device per test: {reads}")
    return "; ".join(said)


class _Host(HostWriter):
    def __init__(self, program: HostProgram, assured: Assured) -> None:
        super().__init__()
        self.program, self.graph = program, program.graph
        arrays = {n.id for n in self.graph.inputs if n.attr.input_kind is InputKind.ARRAY}
        self.assured = Assured(frozenset(arrays), assured.unit_c)  # the host checked them
        self.region_assured = assured
        self.module = Module(consts=self.consts, steps=self.steps)  # the segments' too
        self.names: dict[int, str] = {n.id: value_name(n) for n in self.graph.inputs}
        self.all_nodes = list(walk(self.graph.nodes()))

    def build(self) -> str:
        graph = self.graph
        self.open(f"region_{sanitize(graph.name)}", graph)
        self.checks(graph, (), self.region_assured)
        self.lines += unsafe_check(self.program.stored_leaves, bool(self.program.grids))
        self._items(self.program.body, 1)
        self.returns([self.ref(o) for o in graph.outputs])
        return self.source()

    def ref(self, node: Node) -> str:
        """The host expression of ``node``'s value."""
        if node.op is Op.CONST:
            self.consts[f"c{nid(node)}"] = const_value(node)
            return f"c{nid(node)}"
        if node.op is Op.DIM:
            return f"({dim_expr(node.attr)})"
        return self.names[node.id]

    def _items(self, items: tuple, depth: int) -> None:
        for item in items:
            if isinstance(item, Segment):
                self._segment(item, depth)
            elif isinstance(item, HostStep):
                self._host_step(item.node, depth)
            elif isinstance(item, HostBranch):
                self._branch(item, depth)
            elif isinstance(item, HostIndex):
                self._host_index(item, depth)
            else:
                self._loop(item, depth)

    def _branch(self, branch: HostBranch, depth: int) -> None:
        """``if``/``else`` on the host; each block sets the values the branch picks."""
        node = branch.node
        picked = [f"r{nid(node)}_{k}" for k in range(len(node.attr.then_graph.outputs))]
        test = node.inputs[0]
        self.emit(f"if {self.ref(test)}:  # {node.loc}{self._read(test, ',')}", depth)
        for block, graph, word in [
            (branch.then, node.attr.then_graph, None),
            (branch.orelse, node.attr.else_graph, "else:"),
        ]:
            if word:
                self.emit(word, depth)
            start = len(self.lines)
            self._items(block, depth + 1)
            if picked:
                outs = ", ".join(self.ref(o) for o in graph.outputs)
                self.emit(f"{', '.join(picked)}, = {outs},", depth + 1)
            if len(self.lines) == start:
                self.emit("pass", depth + 1)
        for user in self.all_nodes:
            if user.op is Op.RESULT and user.inputs[0] is node:
                self.names[user.id] = picked[user.attr]

    def _host_index(self, item: HostIndex, depth: int) -> None:
        """``x[i, 1:3]`` on the host: NumPy's (or CuPy's) own indexing, so a negative index
        counts from the end and one out of range raises ``IndexError`` here."""
        node = item.node
        keys = []
        for k in node.attr:
            if isinstance(k.start, DynIndex):
                index = node.inputs[k.start.input]
                ref = self.ref(index)
                keys.append(ref if self.program.on_host(index) else f"int({ref})")
            else:
                keys.append(item_expr(k))
        if item.view:
            keys.append("...")  # a view even of one element
        expr = f"{self.ref(node.inputs[0])}[{', '.join(keys)}]"
        if node.ndim == 0 and not item.view:
            expr = f"_own({expr})"  # one element's value, as NumPy reads it
        self.names[node.id] = f"v{nid(node)}"
        self.emit(f"v{nid(node)} = {expr}  # {node.loc}", depth)

    def _host_step(self, node: Node, depth: int) -> None:
        """A host scalar, by the eager interpreter's rule: NumPy's scalar arithmetic."""
        self.names[node.id] = f"v{nid(node)}"
        args = [self.ref(i) for i in node.inputs]
        self.numpy_step(node, args, f"v{nid(node)}", depth, runner="_host", note=f"  # {node.loc}")

    def _segment(self, seg: Segment, depth: int) -> None:
        name = f"region_{sanitize(seg.graph.name)}"
        stand_ins = {n.id for n in seg.graph.inputs[len(self.graph.inputs) :]}
        typed = Assured(self.assured.typed | stand_ins, self.assured.unit_c)
        if seg.stores is not None:
            src = store_sources(seg.stores, typed, self.module, checks=False)
        else:
            src = self.module.taken(built(seg.kernels, typed, self.module, NO_IDENTITY))
        self.header.append(src.rstrip("\n"))  # the segment's functions
        stand_in_nodes = seg.graph.inputs[len(self.graph.inputs) :]
        args = [self._argument(x, s) for x, s in zip(seg.reads, stand_in_nodes)]
        call = f"{name}((*leaves, {', '.join(args)}))" if args else f"{name}(leaves)"
        for node in seg.hands_on:
            self.names[node.id] = f"v{nid(node)}"
        outs = [self.names[n.id] for n in seg.hands_on]
        if outs:
            call = f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}"
        self.emit(call, depth)

    def _argument(self, node: Node, stand_in: Node) -> str:
        """A segment's argument: a 0-d array for a scalar it reads from memory."""
        ref = self.ref(node)
        if stand_in.attr.input_kind is InputKind.ARRAY and stand_in.shape == ():
            self.consts[f"_sdt{nid(stand_in)}"] = stand_in.dtype
            return f"_a0({ref}, _sdt{nid(stand_in)})"
        return ref

    def _loop(self, loop: HostLoop, depth: int) -> None:
        """The user's ``for``/``while``: carried values as host variables, the body's items,
        the next values and the exit test."""
        node, attr = loop.node, loop.node.attr
        inits = node.inputs[attr.heads : attr.heads + attr.carried]
        holders = [value_name(h) for h in attr.holders]
        self.names.update((h.id, name) for h, name in zip(attr.holders, holders))
        if holders:
            self.emit(f"{', '.join(holders)}, = {', '.join(self.ref(i) for i in inits)},", depth)
        self._loop_head(node, depth)
        start = len(self.lines)
        self._items(loop.body, depth + 1)
        self._loop_tail(node, holders, depth + 1)
        if len(self.lines) == start:
            self.emit("pass", depth + 1)
        for k, result in self._results(node):
            self.names[result.id] = holders[k]

    def _loop_head(self, node: Node, depth: int) -> None:
        attr = node.attr
        where = f"  # {node.loc}: a host loop" if node.loc else ""
        if attr.is_while:
            test, go = node.inputs[0], f"go{nid(node)}"
            self.emit(f"{go} = bool({self.ref(test)}){self._read(test)}", depth)
            self.emit(f"while {go}:{where}", depth)
            return
        var = attr.body.inputs[0]
        self.names[var.id] = value_name(var)
        bounds = ", ".join(self._bound(b) for b in node.inputs[:3])
        self.emit(f"for {value_name(var)} in range({bounds}):{where}", depth)

    def _loop_tail(self, node: Node, holders: list[str], depth: int) -> None:
        """The carried values' next values (all read before any is set), then the exit test."""
        attr, go = node.attr, f"go{nid(node)}"
        outs = [self.ref(o) for o in attr.body.outputs]
        if not attr.exits:
            if holders:
                self.emit(f"{', '.join(holders)}, = {', '.join(outs)},", depth)
            return
        self.emit(f"{', '.join([*holders, go])}, = {', '.join(outs)},", depth)
        read = self._read(attr.body.outputs[-1])
        if attr.is_while:
            self.emit(f"{go} = bool({go}){read}", depth)
        else:
            self.emit(f"if not {go}:{read}", depth)
            self.emit("break", depth + 1)

    def _bound(self, node: Node) -> str:
        ref = self.ref(node)
        return ref if node.op in (Op.CONST, Op.INPUT, Op.DIM) else f"int({ref})"

    def _read(self, node: Node, after: str = "  #") -> str:
        """A comment for a statement that reads ``node`` on the host."""
        return "" if self.program.on_host(node) else f"{after} read back from the device"

    def _results(self, loop: Node) -> list[tuple[int, Node]]:
        """(carried position, RESULT node) of each final value of ``loop`` read after it."""
        return [(n.attr, n) for n in self.all_nodes if n.op is Op.RESULT and n.inputs[0] is loop]
