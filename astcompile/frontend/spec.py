"""What the rewrite hands the runtime for each region (no libcst: the rewrite cache loads it)."""

from __future__ import annotations

import types
from dataclasses import dataclass

#: The ``def`` name a lambda's source is given (frontend/source.lambda_source): a lambda's
#: code is named ``<lambda>``, which no ``def`` can be.
LAMBDA_DEF = "__ac_lambda"


def def_name(fn: types.FunctionType) -> str:
    """The name of the ``def`` in ``fn``'s source, which the rewrite keeps."""
    name = fn.__code__.co_name
    return LAMBDA_DEF if name == "<lambda>" else name


@dataclass(frozen=True)
class LoopSpec:
    """A ``for`` or ``while`` at ``line`` lowered to a body function of its target and the
    ``carried`` names (see frontend/loop_plan.py). ``brk`` names the flag a ``break`` sets (one of
    the carried names), ``go`` the flag that is false once a ``break``/``continue`` ran in the
    current iteration; both are empty when the body has no such jump."""

    line: int
    target: str
    carried: tuple[str, ...]
    brk: str = ""
    go: str = ""
    #: carried names that may be unbound when the loop starts (first assigned in its body and
    #: read only after it): they start as UNBOUND, see frontend/loop_plan.py
    unbound: tuple[str, ...] = ()
    #: the carried copy of the target, when the target is read after the loop ("" if not)
    last: str = ""
    #: the flag a ``return`` in the body sets (it also breaks); the region returns its value
    #: after the loop ("" without a return)
    ret: str = ""
    #: the flag a ``raise`` in the body sets (it also breaks); the exception is made and
    #: raised in Python after the loop ("" without a raise)
    raised: str = ""
    #: a comprehension's loop (frontend/comprehensions.py): where it does not trace, the trace
    #: runs it as Python, a copy per item, as it ran the comprehension
    unrolled: bool = False
    #: ``for ... else`` with a ``break``: the ``if not brk:`` its ``else`` block runs under
    #: after the loop (None: no ``else``, or one that always runs, with no break to skip it)
    orelse: BranchSpec | None = None
    #: carried names (or the target) only the loop's returns read after it: they start as
    #: UNSEEN, since a return runs only after the body bound them (frontend/loop_plan.py)
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True)
class BranchSpec:
    """An ``if`` inside a lowered loop body at ``line``: the names its branches pass on.
    ``unbound``: those of them that may be unbound before it, which every branch binds before
    any read (``y`` in ``if t < 0: y = t * t else: y = 2 * t``): they start as UNBOUND."""

    line: int
    names: tuple[str, ...]
    unbound: tuple[str, ...] = ()


@dataclass(frozen=True)
class GuardSpec:
    """After the ``if`` at ``line`` (it holds a ``break``/``continue``), the rest of its block
    runs only while the flag ``go`` holds: an ``if go:`` passing on ``names``."""

    line: int
    go: str
    names: tuple[str, ...]


class _Unbound:
    """The value of a variable a loop would have left unbound (it ran zero times).

    Region bodies start such a variable as UNBOUND (frontend/lowering.py); the rewritten
    function deletes any region output that comes back UNBOUND, so a later read raises
    ``UnboundLocalError`` exactly as in the plain function. The tracer never carries it: a
    traced loop that would leave it unbound falls back to the plain statements.
    """

    def __repr__(self) -> str:
        return "<unbound>"

    def __reduce__(self) -> str:
        return "UNBOUND"


UNBOUND = _Unbound()


class _Unseen(_Unbound):
    """The start value of a variable only a loop's ``return`` reads after it: the tracer
    starts it as a zero of the kind the body gives it, which nothing reads."""

    def __repr__(self) -> str:
        return "<unseen>"

    def __reduce__(self) -> str:
        return "UNSEEN"


UNSEEN = _Unseen()
#: the name lowered region bodies know UNSEEN by
UNSEEN_NAME = "__ac_unseen"
#: the variable a region that ends with the function's ``return`` hands its value back in
RET = "__ac_ret"
#: the name region bodies and rewritten functions know UNBOUND by
UNBOUND_NAME = "__ac_unbound"

Spec = LoopSpec | BranchSpec | GuardSpec
_KINDS = {"carried": LoopSpec, "go": GuardSpec, "names": BranchSpec}


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
    """LoopSpec/BranchSpec/GuardSpec back from their JSON form (dicts) in the rewrite cache."""
    specs: list[Spec] = []
    for item in items:
        if isinstance(item, (LoopSpec, BranchSpec, GuardSpec)):
            specs.append(item)
            continue
        kind = next(k for key, k in _KINDS.items() if key in item)
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in item.items()}
        if isinstance(fields.get("orelse"), dict):  # a for-else's branch, nested in its loop
            fields["orelse"] = structured_specs([fields["orelse"]])[0]
        specs.append(kind(**fields))
    return tuple(specs)
