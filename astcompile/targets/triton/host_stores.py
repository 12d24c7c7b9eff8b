"""A store region's code on the Triton target: each phase's wrapper, then its store kernels.

With one phase the phase's wrapper is the region's. With more, each phase is a function over
the region's leaves and what the phases before it handed on, and the region's function calls
them in turn; only the first falls back to the graph when a size fact the trace relied on fails (a later
phase runs after stores, which the graph would make twice; its only check that can fail is a
max/min over an empty axis, which raises NumPy's ValueError there), and its stand-ins for
earlier values are typed by the phase that made them.
"""

from __future__ import annotations

from astcompile.ir.ops import Op
from astcompile.lower.host import EAGER, NO_IDENTITY, Assured, WrapperSource, unsafe_lines
from astcompile.lower.names import sanitize
from astcompile.lower.store_plan import Phase, StoreRegion
from astcompile.targets.triton.flat import Module, TritonCode, built
from astcompile.targets.triton.store_kernels import (
    store_kernel,
    store_lines,
    store_name,
    store_parameters,
    view_ndim,
)
from astcompile.targets.triton.triton_target import kernel_lookup
from astcompile.targets.wrapper import WrapperParts


def store_code(region: StoreRegion, assured: Assured) -> TritonCode:
    """The Triton module and the wrapper of ``region``."""
    module = Module()
    py = store_sources(region, assured, module)
    return module.code(WrapperParts(py, module.consts, module.steps), region.stored_leaves)


def unsafe_check(stored: tuple[int, ...], overlap: bool) -> list[str]:
    """Wrapper lines: a call writing into a read-only argument (or, with ``overlap``, into one
    another argument overlaps) runs the region's own statements, as NumPy would run them
    (``runtime.triton_device.unsafe_writes``)."""
    if not stored:
        return []
    return unsafe_lines(f"_unsafe(leaves, {stored!r}, {overlap})", "  # read-only or overlapping")


def store_sources(
    region: StoreRegion, assured: Assured, module: Module, checks: bool = True
) -> str:
    """The wrapper source of ``region``, its kernels added to ``module``; the first phase
    checks the written
    arguments (``unsafe_check``) before anything else. Without ``checks``
    (a segment of a loop region, whose host checked the arguments) no phase falls back to
    the graph: only a max/min over an empty axis can fail, and it raises NumPy's error."""
    sources = []
    leaves = len(region.phases[0].graph.inputs)
    for i, phase in enumerate(region.phases):
        stand_ins = {n.id for n in phase.graph.inputs[leaves:]}
        typed = Assured(assured.typed | stand_ins, assured.unit_c)
        fallback = _fallback(i, len(region.phases), checks)
        wrapper = built(phase.kernels, typed, module, fallback)
        if i == 0 and checks:  # a read-only argument: NumPy raises, so the statements run
            wrapper.lines[1:1] = unsafe_check(region.stored_leaves, False)
        _with_tail(wrapper, phase, module)
        sources.append(module.taken(wrapper))
    if len(region.phases) > 1:
        sources.append(_in_turn(region, checks))
    return "".join(sources)


def _fallback(phase: int, phases: int, checks: bool) -> str:
    """What phase ``phase`` runs when a check fails: the first falls back to the graph (or,
    followed by others, says so with None); one after stores raises NumPy's error."""
    if phase > 0 or not checks:
        return NO_IDENTITY
    return "return None" if phases > 1 else EAGER


def _with_tail(wrapper: WrapperSource, phase: Phase, module: Module) -> None:
    """The phase's wrapper with its store kernels launched, in program order, before it
    returns what it hands on."""
    wrapper.lines.pop()  # its return comes after the stores
    head = []
    for k, tail in enumerate(phase.tail):
        store = tail.store
        if store.op is Op.CHECK:  # raises here, after the stores before it, as NumPy would
            wrapper.numpy_step(store, [wrapper.ref(tail.value)])
            continue
        name, ndim = store_name(phase.graph, k), view_ndim(store)
        module.parts.append(store_kernel(store, name, ndim))
        module.signatures[name] = dict(store_parameters(store, ndim))
        head.append(kernel_lookup(name, (), (), False))
        refs = (wrapper.ref(tail.value), wrapper.ref(tail.base))
        for line in store_lines(store, k, name, refs, tail.overlaps):
            wrapper.emit(line)
    wrapper.returns([wrapper.ref(o) for o in phase.graph.outputs[: phase.hands_on]])
    wrapper.header = [*head, *wrapper.header]


def _in_turn(region: StoreRegion, checks: bool) -> str:
    """The region's function: each phase over the leaves and what the earlier ones handed on."""
    names = [f"region_{sanitize(p.graph.name)}" for p in region.phases]
    lines = [f"def region_{sanitize(region.name)}(leaves):", f"    carried = {names[0]}(leaves)"]
    if checks:
        lines += [
            "    if carried is None:  # a size fact the trace relied on fails: nothing stored yet",
            f"        {EAGER}",
        ]
    for name in names[1:]:
        lines += ["    leaves = (*leaves, *carried)", f"    carried = {name}(leaves)"]
    return "\n".join([*lines, "    return carried"]) + "\n"
