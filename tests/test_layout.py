"""Rules of astcompile's folder layout (issue 25), checked on the source as
tests/test_jit_layer.py checks the call-time layer."""

from __future__ import annotations

import ast
from pathlib import Path

from test_jit_layer import ROOT, _cycles, _imported, _modules

#: How code reaches a target by name through the registry (astcompile/targets/__init__.py):
#: ``get_backend("c")`` makes the backend named "c", ``target("c")`` is the target named
#: "c target", and a backend's ``fallback = "c"`` is a backend the accept stage makes for it.
BY_NAME_CALLS = {"get_backend": "{}", "_named": "{}", "target": "{} target"}


def _registry() -> dict[str, str]:
    """The registry's table (``_NAMED``): name -> "module:attribute", read from the source."""
    tree = ast.parse(Path(ROOT, "astcompile", "targets", "__init__.py").read_text())
    (table,) = (
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_NAMED"
    )
    return ast.literal_eval(table)


def _named_in(tree: ast.AST) -> list[str]:
    """The registry names a module's code asks for: the literal argument of a by-name call,
    and a class's ``fallback`` backend."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in BY_NAME_CALLS and isinstance(node.args[0].value, str):
                found.append(BY_NAME_CALLS[name].format(node.args[0].value))
        elif isinstance(node, ast.ClassDef):
            found += [
                s.value.value
                for s in node.body
                if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "fallback"
                if isinstance(s.value, ast.Constant)
            ]
    return found


def _by_name() -> list[tuple[str, str]]:
    """(module, module it reaches by name through the registry): edges no import shows."""
    table = _registry()
    return sorted(
        (m, table[name].partition(":")[0])
        for m, p in _modules().items()
        for name in _named_in(ast.parse(Path(p).read_text()))
        if name in table
    )


def test_the_registry_names_modules_that_define_what_it_names():
    """Each "module:attribute" of the registry is a module of targets/ that defines the
    attribute at its top level: a renamed module or class fails here, not at a user's call."""
    known = _modules()
    missing = []
    for name, where in _registry().items():
        module, _, attribute = where.partition(":")
        defined = set()
        if module in known:
            for node in ast.parse(Path(known[module]).read_text()).body:
                if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    defined.add(node.name)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    defined.update(ast.unparse(target) for target in targets)
        if not module.startswith("astcompile.targets.") or attribute not in defined:
            missing.append(f"{name}: {where}")
    assert missing == []


#: Stages after the trace read the graph only; the tracer's helpers they need live in ir/.
AFTER_TRACE = ("astcompile.lower", "astcompile.passes", "astcompile.targets")


def test_later_stages_import_nothing_of_the_tracer():
    known = _modules()
    reaching = sorted(
        f"{m} -> {t}"
        for m, p in known.items()
        if m.startswith(AFTER_TRACE)
        for t in _imported(m, p, known)
        if t.startswith("astcompile.trace")
    )
    assert reaching == []


#: The packages of code generation, in the order they build on each other.
PACKAGES = ("ir", "passes", "lower", "targets")


def test_no_import_cycle_among_the_backends():
    """targets/triton/triton_backend.py routes a region to the store and host-loop writers, which share the
    flat writer (targets/triton/flat.py) instead of importing the backend back; a loop
    schedule's text tells its statements apart by class name, so ``Schedule.__str__`` imports
    its renderer at module level."""
    generation = ("astcompile.lower", "astcompile.targets")
    cycles = [c for c in _cycles() if any(m.startswith(generation) for m in c)]
    assert cycles == []


def test_no_target_imports_a_private_name_from_another_folder():
    """A private name is its folder's business (``_assured`` of the C launcher, taken by the
    Triton one, tied two targets together). The list of known ones may only shrink."""
    known = _modules()
    private = sorted(
        f"{m}: {node.module}.{alias.name}"
        for m, p in known.items()
        if m.startswith("astcompile.targets")
        for node in ast.walk(ast.parse(Path(p).read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if alias.name.startswith("_") and node.module != "__future__"
        if node.module.rpartition(".")[0] != m.rpartition(".")[0]
    )
    assert private == ["astcompile.targets.triton.store_kernels: astcompile.lower.pyexpr._item"]


def _package_imports(packages: tuple[str, ...]) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> the module imports behind that edge, for the
    packages of astcompile named (lazy imports count, ``TYPE_CHECKING`` ones do not; a target
    reached by name through the registry counts as imported, :func:`_by_name`)."""
    known = _modules()

    def package(module: str) -> str | None:
        parts = module.split(".")
        return (
            parts[1] if parts[0] == "astcompile" and parts[1:2] and parts[1] in packages else None
        )

    edges: dict[tuple[str, str], list[str]] = {}
    reached = [(m, t) for m, p in known.items() if package(m) for t in _imported(m, p, known)]
    for module, target in reached + _by_name():
        if package(target) not in (None, package(module)):
            edges.setdefault((package(module), package(target)), []).append(f"{module} -> {target}")
    return edges


def test_lower_imports_nothing_of_the_targets():
    """lower/ is what every target shares: it takes a target (``target.supports``), and the
    ``Target`` protocol it names only for annotations, never a target's module."""
    assert _package_imports(("lower", "targets")).get(("lower", "targets"), []) == []


#: The targets' own folders: what two share lives in lower/ or targets/ itself.
TARGET_FOLDERS = ("astcompile.targets.c", "astcompile.targets.triton")


#: The targets that reach another by name, which no import shows: Triton plans its host loops
#: with C's ``in_loops``, and hands C a region it refuses (``fallback``). The list may only
#: shrink: a new one ties two targets together where no import says so.
KNOWN_BY_NAME = [
    "astcompile.targets.triton.triton_backend -> astcompile.targets.c.c_backend",
    "astcompile.targets.triton.triton_target -> astcompile.targets.c.c_target",
]


def test_no_target_imports_another():
    """Triton imported C's rules, views, wrapper and backend (whose ``CBackend`` it made for a
    region it refused): a change to C's code reached Triton. A target reaches another only by
    name, through the backend registry (``targets.get_backend``, ``targets.target``), and only
    where :data:`KNOWN_BY_NAME` says so (which also fails when those edges go unseen)."""

    def folder(module: str) -> str | None:
        return next((f for f in TARGET_FOLDERS if module == f or module.startswith(f + ".")), None)

    known = _modules()
    crossing = sorted(
        f"{m} -> {t}"
        for m, p in known.items()
        if folder(m)
        for t in _imported(m, p, known)
        if folder(t) not in (None, folder(m))
    )
    assert crossing == []
    by_name = [
        f"{m} -> {t}" for m, t in _by_name() if folder(m) and folder(t) not in (None, folder(m))
    ]
    assert by_name == KNOWN_BY_NAME


def test_no_import_cycle_between_ir_passes_lower_and_targets():
    """Each of these packages builds on the ones before it (targets -> lower -> passes -> ir)."""
    edges = _package_imports(PACKAGES)
    reach = {p: {b for a, b in edges if a == p} for p in PACKAGES}
    for _ in PACKAGES:
        reach = {p: seen.union(*(reach[q] for q in seen)) for p, seen in reach.items()}
    cycles = sorted(
        f"{p}: {edges.get((p, q), [f'reaches {q}'])[0]}"
        for p in PACKAGES
        for q in reach[p]
        if q != p and p in reach[q]
    )
    assert cycles == []


def test_no_file_name_is_used_twice_under_astcompile():
    """A file name says one job: two ``triton_loops.py`` (one planning host programs, one
    writing their code) had to be told apart by folder in every conversation."""
    seen: dict[str, list[str]] = {}
    for path in Path(ROOT, "astcompile").rglob("*.py"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_no_backend_holds_another_backend():
    """A target hands a graph it cannot lower to another at the ``accept`` stage, where the
    stage list shows it: a backend inside a backend (``TritonBackend.c``) lowered, loaded and
    wrapped graphs in its place where no stage said so."""
    from astcompile.targets import BACKENDS, get_backend

    made = []
    for name in BACKENDS[1:]:  # after "auto"
        try:
            made.append(get_backend(name))
        except ValueError:  # triton not installed
            continue
    kinds = tuple({type(backend) for backend in made})
    held = [
        f"{type(backend).__name__}.{field}"
        for backend in made
        for field, value in vars(backend).items()
        if isinstance(value, kinds)
    ]
    assert len(made) >= 2 and held == []
