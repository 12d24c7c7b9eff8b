"""What the rewrite hands the runtime for each region (no libcst: the rewrite cache loads it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoopSpec:
    """``for target in range(...)`` at ``line`` lowered to a body function of ``target`` and
    the ``carried`` names (see frontend/loops.py)."""

    line: int
    target: str
    carried: tuple[str, ...]


@dataclass(frozen=True)
class BranchSpec:
    """An ``if`` inside a lowered loop body at ``line``: the names its branches pass on."""

    line: int
    names: tuple[str, ...]


Spec = LoopSpec | BranchSpec


@dataclass(frozen=True)
class RegionSpec:
    """One region: ``def name(*params)`` returning the tuple ``outputs``; see contract.md."""

    name: str
    params: tuple[str, ...]
    outputs: tuple[str, ...]
    globals_read: tuple[str, ...]
    body_source: str
    first_line: int
    last_line: int
    statement_count: int
    structured: tuple[Spec, ...] = ()  # loops lowered when the body is compiled (file lines)


def structured_specs(items: tuple | list) -> tuple[Spec, ...]:
    """LoopSpec/BranchSpec back from their JSON form (dicts) in the rewrite cache."""
    specs: list[Spec] = []
    for item in items:
        if isinstance(item, (LoopSpec, BranchSpec)):
            specs.append(item)
        elif "target" in item:
            specs.append(LoopSpec(item["line"], item["target"], tuple(item["carried"])))
        else:
            specs.append(BranchSpec(item["line"], tuple(item["names"])))
    return tuple(specs)
