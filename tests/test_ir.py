"""The IR itself: ``verify`` against the op table, the verify hook between stages, and the
attribute kinds (enums that are also their words, pickled into the warm cache)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from astcompile import config
from astcompile.ir.attrs import IndexKind, InputKind, SizeCheckKind
from astcompile.ir.graph import (
    ConstAttr,
    Graph,
    IfAttr,
    IndexItem,
    InputAttr,
    LoopAttr,
    Node,
    ReduceAttr,
    SizeCheckAttr,
    StoreAttr,
    VerifyError,
    verify,
    verify_between,
    walk,
)
from astcompile.ir.ops import SIGNATURES, Op
from astcompile.ir.results import Box, OutKind, OutSpec
from astcompile.passes import pass_list
from astcompile.trace.tracer import trace_callable

F64 = np.dtype(np.float64)


def _input(index: int = 0, shape: tuple = (3,), kind: InputKind = InputKind.ARRAY) -> Node:
    return Node(Op.INPUT, (), F64, shape, InputAttr(index, f"a{index}", kind))


def _graph(*outputs: Node, inputs: list[Node], effects: list[Node] = ()) -> Graph:
    return Graph("g", inputs, list(outputs), list(effects))


def test_every_op_has_a_signature():
    assert set(SIGNATURES) == set(Op)


def test_a_well_formed_graph_passes():
    x = _input()
    one = Node(Op.CONST, (), F64, (), ConstAttr(1.0))
    total = Node(Op.SUM, (Node(Op.ADD, (x, one), F64, (3,)),), F64, (), ReduceAttr((0,), False))
    verify(_graph(total, inputs=[x]))


@pytest.mark.parametrize(
    "op, inputs, message",
    [
        (Op.ADD, 1, "add has 1 inputs, expected 2"),
        (Op.NEG, 2, "neg has 2 inputs, expected 1"),
        (Op.WHERE, 2, "where has 2 inputs, expected 3"),
    ],
)
def test_verify_catches_a_wrong_arity(op, inputs, message):
    x = _input()
    node = Node(op, (x,) * inputs, F64, (3,))
    with pytest.raises(VerifyError, match=message):
        verify(_graph(node, inputs=[x]))


def test_variadic_ops_need_their_least_inputs():
    x = _input()
    store = Node(Op.STORE, (x,), F64, (3,), StoreAttr(()))
    with pytest.raises(VerifyError, match="store has 1 inputs, expected at least 2"):
        verify(_graph(inputs=[x], effects=[store]))


def test_verify_catches_a_wrong_attribute_type():
    x = _input()
    total = Node(Op.SUM, (x,), F64, (), None)
    with pytest.raises(VerifyError, match="sum carries None, expected ReduceAttr"):
        verify(_graph(total, inputs=[x]))


def test_verify_checks_each_item_of_a_tuple_attribute():
    x = _input()
    view = Node(Op.INDEX, (x,), F64, (2,), (slice(0, 2),))
    with pytest.raises(VerifyError, match="expected a tuple of IndexItem"):
        verify(_graph(view, inputs=[x]))
    good = Node(Op.INDEX, (x,), F64, (2,), (IndexItem(IndexKind.SLICE, 0, 2, 1),))
    verify(_graph(good, inputs=[x]))


def test_verify_looks_inside_loop_bodies():
    """A LOOP's body is a graph of its own; a broken node there is found too."""
    start, stop, step = (
        Node(Op.CONST, (), np.dtype(np.int64), (), ConstAttr(v)) for v in (0, 3, 1)
    )
    init = _input()
    i = _input(1, (), InputKind.LOOP_VAR)
    carried = _input(2, (3,), InputKind.CARRIED)
    broken = Node(Op.MUL, (carried,), F64, (3,))
    body = Graph("body", [i, carried], [broken])
    loop = Node(Op.LOOP, (start, stop, step, init), F64, (), LoopAttr(body, carried=1))
    final = Node(Op.RESULT, (loop,), F64, (3,), 0)
    with pytest.raises(VerifyError, match="mul has 1 inputs, expected 2"):
        verify(_graph(final, inputs=[init], effects=[loop]))


def test_a_loop_needs_its_heads_and_carried_values():
    start, stop = (Node(Op.CONST, (), np.dtype(np.int64), (), ConstAttr(v)) for v in (0, 3))
    i = _input(0, (), InputKind.LOOP_VAR)
    carried = _input(1, (3,), InputKind.CARRIED)
    body = Graph("body", [i, carried], [carried])
    loop = Node(Op.LOOP, (start, stop), F64, (), LoopAttr(body, carried=1))
    with pytest.raises(VerifyError, match="fewer inputs than its loop heads and carried"):
        verify(_graph(inputs=[], effects=[loop]))


def _break_an_add(graph: Graph) -> tuple[Graph, bool]:
    """A pass with a bug: every ADD loses its second input."""
    (out,) = graph.outputs
    return _graph(Node(Op.ADD, out.inputs[:1], out.dtype, out.shape), inputs=graph.inputs), True


def test_the_stage_runner_verifies_after_each_pass_and_names_it(monkeypatch):
    """A broken graph is raised as it is, past the stage's ``on_error`` (a compiler bug is
    never turned into a fallback)."""
    from astcompile import pipeline as stage_list
    from astcompile import stages
    from astcompile.targets.c.c_backend import CBackend

    bug = stage_list.Stage(
        "breaks_adds",
        stages.graph_pass(_break_an_add),
        "a bug",
        when=stages.for_codegen,
        on_error=stages.codegen_failed,
    )
    monkeypatch.setattr(stage_list, "TARGET_STAGES", (bug,))
    monkeypatch.setattr(config, "suppress_errors", True)
    graph = trace_callable(lambda x: x + 1.0, [np.ones(3)])
    with pytest.raises(VerifyError, match=r"after breaks_adds: .* has 1 inputs"):
        stage_list.run_target_stages(graph, CBackend())
    monkeypatch.setattr(config, "verify_ir", False)
    stage_list.run_target_stages(graph, CBackend())  # off (outside the tests): no check, no cost


def test_verify_between_names_the_stage():
    x = _input()
    with pytest.raises(VerifyError, match=r"^after trace: "):
        verify_between(_graph(Node(Op.ADD, (x,), F64, (3,)), inputs=[x]), "trace")


@pytest.mark.parametrize("kinds", [IndexKind, SizeCheckKind, OutKind, Box, InputKind])
def test_each_kind_round_trips_through_pickle(kinds):
    for member in kinds:
        assert pickle.loads(pickle.dumps(member)) is member


@pytest.mark.parametrize("kinds", [IndexKind, SizeCheckKind, OutKind, Box])
def test_kinds_are_their_words(kinds):
    """Code written against the string kinds (``item.kind == "slice"``, tables keyed by the
    word) keeps working, and a kind prints as its word in listings and generated code."""
    for member in kinds:
        assert member == member.value and {member.value: 1}[member] == 1
        assert str(member) == member.value and f"{member}" == member.value


def test_attributes_store_kinds_as_members_and_pickle():
    """A word passed by older code becomes the member; pickled attributes come back equal."""
    item = IndexItem("slice", 0, 3, 1)
    check = SizeCheckAttr("store", (1, 2))
    spec = OutSpec("graph", 1, "0d")
    assert item.kind is IndexKind.SLICE and check.kind is SizeCheckKind.STORE
    assert spec.kind is OutKind.GRAPH and spec.box is Box.ZERO_D
    for attr in (item, check, spec, OutSpec(OutKind.GRAPH, 0, (Box.PYTHON, int, 1))):
        assert pickle.loads(pickle.dumps(attr)) == attr


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError):
        IndexItem("range")
    with pytest.raises(ValueError):
        OutSpec("graph", 0, "matrix")


def test_a_real_compile_verifies_after_the_trace_and_every_graph_pass(monkeypatch):
    """The stage runner verifies the graph every stage leaves: a pass or target stage that
    breaks an invariant in a user's compile is named there."""
    import astcompile
    from astcompile.ir import graph as graph_module

    seen: list[str] = []
    monkeypatch.setattr(config, "verify_ir", True)
    monkeypatch.setattr(graph_module, "verify_between", lambda g, stage: seen.append(stage))

    @astcompile.compile(backend="c")
    def scaled(x):
        return np.sqrt(x * 2.0 + 1.0).sum()

    scaled(np.ones(5))
    names = [name for name, _, _ in pass_list.PIPELINE]
    assert seen[0] == "trace" and names == [s for s in seen if s in names]
    assert {"schedule", "lower", "load", "wrap"} <= set(seen)


def test_walk_meets_each_node_once_through_chained_branches():
    """Each branch of ``if`` k reads the result of ``if`` k - 1 (a count carried through nine
    unrolled neighbour tests): a walk that entered every sub-graph anew took 2**k steps, and
    tracing such a loop took seconds before anything was compiled."""
    x = _input()
    value, made = x, [x]
    for _ in range(12):
        then_g = Graph("then", [], [_neg(value)])
        else_g = Graph("else", [], [value])
        value = Node(Op.IF, (x, value), F64, (3,), IfAttr(then_g, else_g))
        made += [value, then_g.outputs[0]]
    seen = [n.id for n in walk(_graph(value, inputs=[x]).nodes())]
    assert len(seen) == len(set(seen)) == len(made)


def _neg(node: Node) -> Node:
    return Node(Op.NEG, (node,), F64, node.shape)
