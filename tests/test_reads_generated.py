"""Generated programs (tests/generated_holders.py, tests/generated_loops.py): a value a compiled function reads through a
holder (an attribute, a container, a closure, a global, its own attributes, defaults and code, a
callee's, its file on disk, a module), a callee with side effects it reaches through ``self``,
or a container it iterates, changed between calls. After every change the compiled function
must do what the plain one does: the same values, dtypes and Python types, the same writes into
its arguments, the same exceptions, prints, random draws and counters.

Each program is written to a file and imported twice ("twins"): one copy runs plain, the other
compiled, so what their calls leave behind (a counter, an appended list) is compared too, and
every change is made to both. Every backend runs every kind, with measuring off
(tests/conftest.py), Triton in its interpreter where there is no GPU; ``--slow`` draws many
more examples (the "slow" profile). tests/test_reads.py has one test per kind of read.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same_call, assert_same_value, gpu_present
from generated_holders import (
    HOLDERS,
    REACHES,
    SPECIAL,
    Holder,
    callees,
    effects_source,
    holders,
)
from generated_loops import loops
from hypothesis import given, settings
from hypothesis import strategies as st
from module_helpers import edit_module, import_file, load_module

import astcompile
from astcompile.frontend import callee_rules
from astcompile.runtime import fastcall

#: Examples per kind and backend: 15 in a default run (the "ci" profile's 150 / 10), 500 under
#: ``--slow`` (the "slow" profile's 5000 / 10; tests/conftest.py); per holder, a few (each kind
#: of value it takes is a new program): 3 and 125.
EXAMPLES = settings(max_examples=max(15, settings.default.max_examples // 10))
HOLDER_EXAMPLES = settings(max_examples=max(3, settings.default.max_examples // 40))
#: Calls after each change (one, a few, or past the promotion to the C-level call path),
#: whether the first change comes before the first call (the first compile sees it), and
#: whether the last calls start from the disk cache (every entry in memory forgotten).
CALLS = st.tuples(
    st.sampled_from([1, 2, 1, 2, fastcall.PROMOTE_AFTER + 2]), st.booleans(), st.booleans()
)
_NAMES = itertools.count()


class Twins:
    """The program imported twice from its own file: ``plain`` runs it, ``other`` compiled."""

    def __init__(self, folder: Path, source: str, backend: str, compiling: str = "") -> None:
        """``compiling``: the source of the compiled copy where it compiles itself (a
        decorator in it), else the test compiles ``f``."""
        assert not astcompile.config.tiering, "measuring picks the path: a stale one may hide"
        tag = next(_NAMES)
        self.folder, self.tag, self.backend, self.decorated = folder, tag, backend, bool(compiling)
        self.plain = load_module(folder, f"gen_{tag}_p", source)
        self.other = load_module(folder, f"gen_{tag}_c", compiling or source)
        self.compiled = self._compiled()

    def _compiled(self):
        return (
            self.other.f
            if self.decorated
            else astcompile.compile(self.other.f, backend=self.backend)
        )

    def compare(self, calls: int) -> None:
        """``calls`` calls of each, from the same random state; then the twins' state."""
        for seed in range(calls):
            assert_same_call(
                _seeded(self.compiled, seed),
                self.other.args(),
                _seeded(self.plain.f, seed),
                self.plain.args(),
                self.backend,
            )
            if hasattr(self.plain, "state"):
                assert_same_value(self.other.state(), self.plain.state(), "state")

    def follow(self, changes: list, calls: tuple[int, bool, bool]) -> None:
        """Compared before each change (but the first, if ``calls`` says it comes before the
        first call) and after the last (warm from the disk cache, if it says so); the modules
        unloaded after."""
        count, early, warm = calls
        try:
            for n, change in enumerate(changes):
                if n or not early:
                    self.compare(count)
                change()
            if warm:
                astcompile.reset()
                self.compiled = self._compiled()
            self.compare(count)
        finally:
            for name in list(sys.modules):
                if name.startswith(f"gen_{self.tag}_"):
                    del sys.modules[name]

    def change(self, statement: str) -> None:
        for module in (self.plain, self.other):
            exec(statement, vars(module))  # noqa: S102 - the generated program's own change


def _seeded(fn, seed: int):
    def call(*args):
        np.random.seed(seed)
        return fn(*args)

    return call


@contextlib.contextmanager
def _installed(folder: Path, value: str):
    """``ac_generated_pkg`` in a site-packages folder on ``sys.path``, as ``pip install .``
    leaves a user's package; NumPy patches of the program end with it."""
    site = folder / "site-packages"
    site.mkdir(exist_ok=True)
    text = f"import numpy as np\ndef triple(v):\n    return v * 3.0\nV = {value}\n"
    (site / "ac_generated_pkg.py").write_text(text)
    sys.path.insert(0, str(site))
    dirs = (*callee_rules._LIBRARY_DIRS, f"{site}/")
    try:
        with mock.patch.object(callee_rules, "_LIBRARY_DIRS", dirs):
            yield
    finally:
        mock.patch.stopall()
        sys.path.remove(str(site))
        sys.modules.pop("ac_generated_pkg", None)
        if hasattr(np, "ac_generated_v"):
            del np.ac_generated_v


def _change_holder(twins: Twins, program: Holder, new: str) -> None:
    setter = HOLDERS[program.holder][4]
    if setter not in SPECIAL:
        for module in (twins.plain, twins.other):
            module.setter(eval(new, vars(module)))
    elif setter.startswith("code"):  # what %autoreload does: the module again, its code swapped
        alt = load_module(twins.folder, f"gen_{twins.tag}_{next(_NAMES)}", program.source(new))
        name = setter.split()[1]
        for module in (twins.plain, twins.other):
            getattr(module, name).__code__ = getattr(alt, name).__code__
    elif setter == "autoreload":  # %autoreload itself: the file edited, run again, code swapped
        for module in (twins.plain, twins.other):
            edit_module(module, program.source(new))
            again = import_file(module.__file__, f"gen_{twins.tag}_{next(_NAMES)}")
            module.f.__code__, module.helper.__code__ = again.f.__code__, again.helper.__code__
    else:  # edited on disk, not imported again: both still run the code they were imported with
        for module in (twins.plain, twins.other):
            edit_module(module, program.source(new))


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize("holder", sorted(HOLDERS))
@HOLDER_EXAMPLES
@given(data=st.data())
def test_holders_follow_changes(holder, backend, data, tmp_path_factory):
    program, calls = data.draw(holders(holder)), data.draw(CALLS)
    folder = tmp_path_factory.mktemp("holders")
    with _installed(folder, program.values[0]):
        twins = Twins(folder, program.source(program.values[0]), backend)
        changes = (*program.values[1:], program.values[0])
        twins.follow(
            [lambda new=new: _change_holder(twins, program, new) for new in changes], calls
        )


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@EXAMPLES
@given(program=callees(), calls=CALLS)
def test_callees_with_effects_run_at_every_call(backend, program, calls, tmp_path_factory):
    reach, forward, effects, decorated = program
    source = effects_source(reach, forward, effects[0])
    compiling = effects_source(reach, forward, effects[0], backend) if decorated else ""
    twins = Twins(tmp_path_factory.mktemp("callees"), source, backend, compiling)
    news = [REACHES[reach][1].format(new=e.replace(" ", "_")) for e in effects[1:]]
    twins.follow([lambda new=new: twins.change(new) for new in news], calls)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@EXAMPLES
@given(program=loops(), calls=CALLS)
def test_iteration_follows_python(backend, program, calls, tmp_path_factory):
    twins = Twins(tmp_path_factory.mktemp("loops"), program.source(), backend)
    twins.follow(
        [lambda new=new: twins.change(f"setter({new})") for new in program.dicts[1:]], calls
    )


_PROCESS = """
import sys
sys.path[:0] = [{folder!r}, {tests!r}]
import {name} as mod
from differential import assert_same_call
import astcompile
compiled = astcompile.compile(mod.f, backend={backend!r})
for _ in range(2):
    assert_same_call(compiled, mod.args(), mod.f, mod.args(), {backend!r})
"""


@pytest.mark.slow
@pytest.mark.parametrize("backend", EVERY_BACKEND)
@settings(max_examples=10)  # a few seconds each: only under --slow
@given(data=st.data())
def test_holders_in_a_new_process(backend, data, tmp_path_factory):
    """The module as another process imports it, with the next value (the user edited the file
    and ran again): nothing the first process saved in the disk cache may be served for it."""
    holder = data.draw(st.sampled_from(sorted(set(HOLDERS) - {"installed package"})))
    program = data.draw(holders(holder))
    folder = tmp_path_factory.mktemp("processes")
    name = f"gen_{next(_NAMES)}_process"
    env = {**os.environ, "ASTCOMPILE_CACHE_DIR": str(folder / "cache"), "ASTCOMPILE_TIERING": "0"}
    if not gpu_present():
        env["TRITON_INTERPRET"] = "1"
    for value in program.values:
        (folder / f"{name}.py").write_text(program.source(value))
        script = _PROCESS.format(
            folder=str(folder), tests=str(Path(__file__).parent), name=name, backend=backend
        )
        run = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, f"{program}, {value}:\n{run.stderr[-3000:]}"
