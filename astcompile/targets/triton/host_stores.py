"""A store region's code on the Triton target: each phase's wrapper, then its store kernels.

With one phase the phase's wrapper is the region's. With more, each phase is a function over
the region's leaves and what the phases before it handed on, which ends calling the next one
with what it hands on (the first is the region's function): all written by the one wrapper
writer (``lower/host.py``). Only the first falls back to the graph when a size fact the trace
relied on fails (a later phase runs after stores, which the graph would make twice; its only
check that can fail is a max/min over an empty axis, which raises NumPy's ValueError there),
and its stand-ins for earlier values are typed by the phase that made them.
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
    names = [f"region_{sanitize(p.graph.name)}" for p in region.phases]
    for i, phase in enumerate(region.phases):
        stand_ins = {n.id for n in phase.graph.inputs[leaves:]}
        typed = Assured(assured.typed | stand_ins, assured.unit_c)
        fallback = EAGER if i == 0 and checks else NO_IDENTITY  # after stores: NumPy's error
        wrapper = built(phase.kernels, typed, module, fallback)
        if i == 0 and checks:  # a read-only argument: NumPy raises, so the statements run
            wrapper.lines[1:1] = unsafe_check(region.stored_leaves, False)
        _with_tail(wrapper, phase, module, names[i + 1] if i + 1 < len(names) else "")
        sources.append(module.taken(wrapper))
    if len(region.phases) > 1:  # the first phase is the region's function
        sources.append(f"region_{sanitize(region.name)} = {names[0]}\n")
    return "".join(sources)


def _with_tail(wrapper: WrapperSource, phase: Phase, module: Module, then: str) -> None:
    """The phase's wrapper with its store kernels launched, in program order, before it
    returns what it hands on, or (``then``: the next phase) the next phase's results over
    the leaves and what this one hands on."""
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
    outs = [wrapper.ref(o) for o in phase.graph.outputs[: phase.hands_on]]
    if then:
        args = f"(*leaves, {', '.join(outs)})" if outs else "leaves"
        wrapper.emit(f"return {then}({args})")
    else:
        wrapper.returns(outs)
    wrapper.header = [*head, *wrapper.header]
