"""The Triton module and wrapper of a flat schedule: what the Triton backend's routes share.

A flat graph's code is its kernels' module and one wrapper (``flat_code``); store phases and the
bodies of host loops are flat schedules too, written with ``built`` (targets/triton/host_stores.py,
targets/triton/host_loops.py).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def flat_code(sched: Schedule, assured: Assured = NOTHING) -> TritonCode:
    """The Triton module and the wrapper of a flat graph's schedule."""
    parts, signatures, notes = [HEADER], {}, []
    wrapper = built(sched, assured, (parts, signatures, notes))
    return TritonCode("".join(parts), WrapperParts.of(wrapper), signatures, notes=tuple(notes))


def built(
    sched: Schedule, assured: Assured, made: tuple[list, dict, list], fallback: str = EAGER
) -> WrapperSource:
    """The (written) wrapper of ``sched``; ``made``: where its kernels' source, their
    signatures and where its matmuls run are added; ``fallback``: what a failed check runs."""
    parts, signatures, notes = made
    plans = {}
    notes += [n for n in map(matmul_note, sched.steps) if n is not None]
    for step in sched.steps:
        if isinstance(step, Kernel):
            code = TRITON.kernel(step, frozenset())
            parts.append(code.source)
            plans[step.name] = code.plan
            signatures.update(TRITON.signatures(code.plan))
    for node in scan_steps(sched):
        parts.append(scan_functions(node))
        signatures.update(scan_signatures(node))
    wrapper = WrapperSource(sched, plans, TRITON, assured=assured, fallback=fallback)
    wrapper.build()
    return wrapper
