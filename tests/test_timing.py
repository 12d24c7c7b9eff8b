"""Compile phases (runtime/timing.py): the heap alive before a compile is frozen while it runs."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
import threading

from astcompile.runtime import build, load_library, timing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_heap_is_frozen_in_a_phase_and_given_back_after():
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]  # alive before the phase: frozen with the rest
    with timing.phase("outer"):
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)
        # Nested: frozen once (no more objects frozen). Frozen objects still die when their
        # last reference goes (another test's background thread ending), so fewer may remain.
        with timing.phase("inner"):
            assert len(kept) <= gc.get_freeze_count() <= frozen
        assert len(kept) <= gc.get_freeze_count() <= frozen
    assert gc.get_freeze_count() == 0


def test_nothing_is_frozen_while_a_thread_waits_for_the_compiler():
    with timing.phase("load"):
        assert gc.get_freeze_count() > 0
        with timing.waiting():
            assert gc.get_freeze_count() == 0
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_the_c_compiler_runs_with_nothing_frozen(tmp_path, monkeypatch):
    """A build of seconds, in the background under the compile budget, keeps no object from
    ``gc.get_objects()`` or ``gc.collect()`` meanwhile."""
    seen = []
    compiling = build.compile_shared

    def watched(*args, **kwargs):
        seen.append(gc.get_freeze_count())
        return compiling(*args, **kwargs)

    monkeypatch.setattr(build, "compile_shared", watched)
    source = "#include <stdint.h>\nint64_t thawed_twice(int64_t x) { return 2 * x; }\n"
    with timing.phase("load"):
        _, lib = load_library(source, "int64_t thawed_twice(int64_t);", str(tmp_path))
    assert lib.thawed_twice(4) == 8 and seen == [0]


def test_a_phase_ending_in_an_error_gives_the_heap_back():
    try:
        with timing.phase("outer"):
            raise KeyError
    except KeyError:
        pass
    assert gc.get_freeze_count() == 0


def test_the_last_thread_to_leave_its_phase_unfreezes():
    entered, leave = threading.Event(), threading.Event()

    def compile_elsewhere() -> None:
        with timing.phase("elsewhere"):
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=compile_elsewhere)
    thread.start()
    entered.wait(10)
    with timing.phase("here"):
        pass
    assert gc.get_freeze_count() > 0  # the other thread still compiles
    leave.set()
    thread.join()
    assert gc.get_freeze_count() == 0


def test_a_program_s_own_freeze_and_disabled_collector_are_left_alone(monkeypatch):
    monkeypatch.setattr(timing, "_program_freezes", False)
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        with timing.phase("outer"):
            pass
        # Not unfrozen behind the program's back (that leaves 0); a few frozen objects may die
        # meanwhile, as their last reference goes (another test's background thread ending).
        assert count - 1000 <= gc.get_freeze_count() <= count
    finally:
        gc.unfreeze()
    with timing.phase("outer"):  # seen once: counting the frozen objects walks them all
        assert gc.get_freeze_count() == 0
    monkeypatch.setattr(timing, "_program_freezes", False)
    gc.disable()
    try:
        with timing.phase("outer"):
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_child_forked_in_a_phase_has_nothing_frozen():
    with timing.phase("outer"):
        pid = os.fork()
        if pid == 0:  # the child: its own phases still work, and nothing stays frozen
            with timing.phase("child"):
                pass
            os._exit(0 if gc.get_freeze_count() == 0 else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_cold_first_call_runs_no_full_collection(tmp_path):
    """The full collection the compile's imports triggered (40-60 ms, nothing freed) is gone."""
    code = textwrap.dedent(
        """
        import gc, json
        import numpy as np
        import astcompile

        @astcompile.compile(backend="c")
        def axpy(a, x, y):
            return a * x + y

        full = []
        gc.callbacks.append(lambda phase, info: full.append(info["generation"] == 2))
        axpy(2.0, np.ones(100), np.ones(100))
        print(json.dumps({"full": sum(full), "all": len(full), "frozen": gc.get_freeze_count()}))
        """
    )
    program = tmp_path / "first_call.py"
    program.write_text(code)
    env = dict(os.environ, ASTCOMPILE_CACHE_DIR=str(tmp_path / "cache"))
    env["ASTCOMPILE_COMPILE_BUDGET"] = "inf"
    out = subprocess.run(
        [sys.executable, str(program)], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["all"] > 10  # compiled (not run as it is), collecting its young objects
    assert seen["full"] == 0 and seen["frozen"] == 0
