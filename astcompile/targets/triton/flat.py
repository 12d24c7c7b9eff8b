"""The Triton module and wrapper of a flat schedule: what the Triton backend's routes share.

A flat graph's code is its kernels' module and one wrapper (``flat_code``); store phases and the
bodies of host loops are flat schedules too, written with ``built`` (targets/triton/host_stores.py,
targets/triton/host_loops.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from astcompile.lower.host import EAGER, NOTHING, Assured, WrapperSource
from astcompile.passes.schedule import Kernel, Schedule
from astcompile.targets.triton.matmul import matmul_note
from astcompile.targets.triton.triton_scan import scan_functions, scan_signatures, scan_steps
from astcompile.targets.triton.triton_source import HEADER
from astcompile.targets.triton.triton_target import TRITON
from astcompile.targets.wrapper import WrapperParts


@dataclass
class TritonCode:
    """What ``lower`` made for a flat graph: the kernels' module source and the wrapper."""

    source: str
    parts: WrapperParts
    signatures: dict[str, dict[str, str]]  #: kernel function -> its parameters' types (AOT)
    stored_leaves: tuple[int, ...] = ()  #: arguments written into (copied back from a GPU)
    notes: tuple[str, ...] = ()  #: how its loops and matmuls run, for ``explain``

    def target(self) -> str:
        """``triton``, with how its loops and matmuls run: what ``explain`` prints."""
        return f"triton ({'; '.join(self.notes)})" if self.notes else "triton"


@dataclass
class Module:
    """What a region's code gathers as its writers go (a store region's phases, a host
    program's segments): the kernels' module source, their signatures, explain's notes, and
    the constants and NumPy steps its wrapper functions name."""

    parts: list[str] = field(default_factory=lambda: [HEADER])
    signatures: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    consts: dict[str, object] = field(default_factory=dict)
    steps: dict = field(default_factory=dict)

    def taken(self, wrapper: WrapperSource) -> str:
        """``wrapper``'s source; its constants and NumPy steps become the region's."""
        self.consts.update(wrapper.consts)
        self.steps.update(wrapper.steps)
        return wrapper.source()

    def code(self, wrapper: WrapperParts, stored: tuple = (), notes: tuple = ()) -> TritonCode:
        """The region's code: its kernels' module and ``wrapper``."""
        module = "".join(self.parts)
        return TritonCode(module, wrapper, self.signatures, stored, (*notes, *self.notes))


def flat_code(sched: Schedule, assured: Assured = NOTHING) -> TritonCode:
    """The Triton module and the wrapper of a flat graph's schedule."""
    module = Module()
    return module.code(WrapperParts.of(built(sched, assured, module)))


def built(
    sched: Schedule, assured: Assured, module: Module, fallback: str = EAGER
) -> WrapperSource:
    """The (written) wrapper of ``sched``, its kernels' source, their signatures and where its
    matmuls run added to ``module``; ``fallback``: what a failed check runs."""
    plans = {}
    module.notes += [n for n in map(matmul_note, sched.steps) if n is not None]
    for step in sched.steps:
        if isinstance(step, Kernel):
            code = TRITON.kernel(step, frozenset())
            module.parts.append(code.source)
            plans[step.name] = code.plan
            module.signatures.update(TRITON.signatures(code.plan))
    for node in scan_steps(sched):
        module.parts.append(scan_functions(node))
        module.signatures.update(scan_signatures(node))
    wrapper = WrapperSource(sched, plans, TRITON, assured=assured, fallback=fallback)
    wrapper.build()
    return wrapper
