"""Which local names a piece of code reads and writes, and how statements nest into blocks.

Regions pass live-in variables as parameters and return live-out ones, so these sets must
respect Python's scoping: comprehension and lambda variables are not function locals,
``x.attr`` and keyword argument names are not reads, ``x[i] = v`` reads ``x``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import libcst as cst

from astcompile.frontend.walk import Visitor, children


class NameSets(Visitor):
    """Reads and writes of function-scope names in source order (dicts as ordered sets)."""

    def __init__(self) -> None:
        self.reads: dict[str, None] = {}
        self.writes: dict[str, None] = {}
        self.deletes: set[str] = set()  # names unbound by ``del`` (also counted as writes)
        self.scoped: set[str] = set()  # comprehension targets seen by this collector
        self.declared: set[str] = set()  # names declared ``global``/``nonlocal`` in this scope

    def read(self, name: str) -> None:
        self.reads.setdefault(name)

    def store(self, target: cst.BaseExpression, scoped: bool = False) -> None:
        """Record the names bound by an assignment target; subscripts and attributes only read."""
        if isinstance(target, cst.Name):
            self.writes.setdefault(target.value)
            if scoped:
                self.scoped.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.store(element.value, scoped)
        elif isinstance(target, cst.StarredElement):
            self.store(target.value, scoped)
        else:
            self.walk(target)

    def visit_Name(self, node: cst.Name) -> None:
        self.read(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.walk(node.value)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        self.walk(node.value)
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        self.walk(node.value)
        for target in node.targets:
            self.store(target.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            self.walk(node.value)
            self.store(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self.walk(node.value)
        self.walk(node.target)
        self.store(node.target)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self.walk(node.value)
        self.store(node.target)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self.walk(node.iter)
        self.store(node.target)
        self.walk(node.body)
        if node.orelse:
            self.walk(node.orelse)
        return False

    def visit_WithItem(self, node: cst.WithItem) -> bool:
        self.walk(node.item)
        if node.asname:
            self.store(node.asname.name)
        return False

    def visit_ExceptHandler(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
        if node.type:
            self.walk(node.type)
        if node.name:
            self.store(node.name.name)
        self.walk(node.body)
        return False

    visit_ExceptStarHandler = visit_ExceptHandler  # ``except* E as group``

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            while isinstance(bound, cst.Attribute):
                bound = bound.value
            self.store(bound)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.store(alias.asname.name if alias.asname else alias.name)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        self.walk(node.target)
        self.store(node.target)
        self.deletes.update(target_sets(node.target).writes)
        return False

    def visit_MatchAs(self, node: cst.MatchAs) -> bool:
        """``case ("scale", k):`` binds ``k``: a capture is a write, not a read."""
        if node.pattern is not None:
            self.walk(node.pattern)
        if node.name is not None:
            self.store(node.name)
        return False

    def visit_MatchStar(self, node: cst.MatchStar) -> bool:
        if node.name is not None:
            self.store(node.name)
        return False

    def visit_MatchMapping(self, node: cst.MatchMapping) -> bool:
        for element in node.elements:
            self.walk(element)
        if node.rest is not None:
            self.store(node.rest)
        return False

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> bool:
        self.walk(node.pattern)  # ``Point(x=px)``: ``x`` names an attribute, not a variable
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        self.declared.update(n.name.value for n in node.names)
        return False

    visit_Nonlocal = visit_Global

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        self.walk(node.iter)
        self.store(node.target, scoped=True)
        for clause in node.ifs:
            self.walk(clause)
        if node.inner_for_in:
            self.walk(node.inner_for_in)
        return False

    def _inner_scope(
        self, parts: Sequence[cst.CSTNode], bound: set[str], comprehension: bool = False
    ) -> None:
        """Free names of an inner scope are reads of ours; a comprehension's walrus writes ours."""
        inner = NameSets()
        for part in parts:
            inner.walk(part)
        local = bound | inner.scoped
        for name in inner.reads:
            if name not in local and name not in inner.writes:
                self.read(name)
        for name in inner.writes:
            if comprehension and name not in local:
                self.writes.setdefault(name)

    def _comprehension(self, node: cst.CSTNode) -> bool:
        self._inner_scope(children(node), set(), comprehension=True)
        return False

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        for param in _all_params(node.params):
            if param.default:
                self.walk(param.default)
        self._inner_scope([node.body], {p.name.value for p in _all_params(node.params)})
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        for part in [*node.decorators, *(p.default for p in _all_params(node.params))]:
            if part is not None:
                self.walk(part)
        self._inner_scope([node.body], {p.name.value for p in _all_params(node.params)})
        self.store(node.name)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for part in [*node.decorators, *node.bases, *node.keywords]:
            self.walk(part)
        self._inner_scope([node.body], set())
        self.store(node.name)
        return False


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kw = [params.star_kwarg] if params.star_kwarg else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kw]


def name_sets(*nodes: cst.CSTNode | None) -> NameSets:
    """Reads and writes of the given nodes together (shared and cached: do not mutate)."""
    present = [node for node in nodes if node is not None]
    if len(present) == 1:
        return _node_sets(present[0])
    merged = NameSets()
    for node in present:
        sets = _node_sets(node)
        merged.reads.update(sets.reads)
        merged.writes.update(sets.writes)
        merged.deletes |= sets.deletes
        merged.scoped |= sets.scoped
        merged.declared |= sets.declared
    return merged


@functools.lru_cache(maxsize=8192)
def _node_sets(node: cst.CSTNode) -> NameSets:
    """Nodes are immutable and hash by identity, so liveness fixpoints reuse these."""
    sets = NameSets()
    sets.walk(node)
    return sets


def target_sets(target: cst.BaseExpression) -> NameSets:
    """Names bound (and read, for ``x[i]`` targets) by an assignment target."""
    sets = NameSets()
    sets.store(target)
    return sets


def parameter_names(fdef: cst.FunctionDef) -> tuple[str, ...]:
    return tuple(p.name.value for p in _all_params(fdef.params))


def declared_names(fdef: cst.FunctionDef) -> frozenset[str]:
    """Names declared ``global`` or ``nonlocal`` in the function itself (not in nested defs)."""
    return frozenset(name_sets(fdef.body).declared)


def function_locals(fdef: cst.FunctionDef) -> frozenset[str]:
    """Parameters and every name the body binds, minus ``global``/``nonlocal`` declarations."""
    bound = set(parameter_names(fdef)) | set(name_sets(fdef.body).writes)
    return frozenset(bound - declared_names(fdef))


def block_units(block: cst.BaseSuite) -> list[cst.CSTNode]:
    """The units a block is split into: its statements, or a one-line suite as a whole."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [block]


def child_blocks(stmt: cst.CSTNode) -> list[cst.BaseSuite]:
    """The blocks nested directly in a compound statement (``elif`` chains flattened)."""
    if isinstance(stmt, cst.If):
        rest = stmt.orelse
        tail = child_blocks(rest) if isinstance(rest, cst.If) else [rest.body] if rest else []
        return [stmt.body, *tail]
    if isinstance(stmt, (cst.For, cst.While)):
        return [stmt.body] + ([stmt.orelse.body] if stmt.orelse else [])
    if isinstance(stmt, cst.With):
        return [stmt.body]
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        extra = [h.body for h in stmt.handlers]
        extra += [stmt.orelse.body] if stmt.orelse else []
        extra += [stmt.finalbody.body] if stmt.finalbody else []
        return [stmt.body, *extra]
    if isinstance(stmt, cst.Match):
        return [case.body for case in stmt.cases]
    return []


def small_statements(unit: cst.CSTNode) -> Sequence[cst.BaseSmallStatement]:
    """The small statements of a simple unit (a statement line or a one-line suite), else ()."""
    if isinstance(unit, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return unit.body
    return ()
