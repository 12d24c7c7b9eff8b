"""Parallel user loops (lower/independence.py): only provably independent iterations run on a
team, with the same results for any thread count; dependent loops stay serial."""

from __future__ import annotations

import itertools
import os
import re

import numpy as np
import pytest

import astcompile
from astcompile.runtime import nthreads, parallel, set_num_threads
from tests.c_helpers import forked_results
from tests.test_loop_plan import piecewise
from tests.test_loops import pairwise_distance


def rows(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i, :] = np.sin(x[i, :]) * 2.0 + x[i, ::-1]
    return out


def in_place(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0 + 1.0
    return x


def prefix(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] + 1.0
    return x


def carried_sum(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total


def shifted_write(x):
    for i in range(x.shape[0] - 1):
        x[i + 1] = x[i] * 0.5
    return x


def same_element(x):
    out = np.zeros(3)
    for i in range(x.shape[0]):
        out[0] = x[i]
    return out


def reads_whole_written(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = out.max() + x[i]
    return out


def past_the_end(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i + 1]
    return out


def with_break(x):
    for i in range(x.shape[0]):
        if i > 5:
            break
        x[i] = 0.0
    return x


@pytest.fixture(autouse=True)
def _fresh_cache(tmp_path, monkeypatch):
    """A cache of this test's own: a warm entry from another test carries no C source."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))


@pytest.fixture
def threads(monkeypatch):
    """set_num_threads, the count restored as it was: set_num_threads(nthreads()) made the
    default (negative: idle CPUs only) a count of all CPUs for every later test."""
    monkeypatch.setattr(parallel, "_nthreads", parallel._nthreads)
    return set_num_threads


def _c_source(fn) -> str:
    return "\n".join(
        getattr(e.run, "c_source", "")
        for r in fn.regions
        for entries in r.entries.values()
        for e in entries
    )


#: A user's ``for`` loop in generated C: named after its variable (``j_7``), unlike the element
#: loops (``i0``, ``i1``) of array expressions.
_USER_LOOP = re.compile(r"for \(int64_t \w+_\d+ =")  # user loops: the name and a number


def _parallel_user_loops(fn) -> list[bool]:
    """For each user ``for`` loop of the compiled C: whether a team may run it (its copy for
    one thread, after the team's ``} else {``, is the same loop; so are a line head's first
    iterations, up to ``from<id>``)."""
    lines = _without_single_thread_copies(_c_source(fn).splitlines())
    assert lines != [""], "fell back to the eager interpreter"
    return [
        prev.startswith("#pragma omp for")  # inside an omp parallel team
        for prev, line in itertools.pairwise(lines)
        if _USER_LOOP.match(line) and not re.search(r"< from\d+;", line)
    ]


def _without_single_thread_copies(source: list[str]) -> list[str]:
    lines, depth = [], 0
    for line in (line.strip() for line in source):
        if depth:
            depth += line.count("{") - line.count("}")
        elif line == "} else {" and lines[-1].startswith("astc_fp_join("):
            depth = 1
        else:
            lines.append(line)
    return lines


def _same_for_any_thread_count(fn, make, threads):
    compiled = astcompile.compile(fn, backend="c")
    results = []
    for n in (1, 2, 4):
        threads(n)
        results.append(compiled(*make()))
    expected = fn(*make())
    for got in results:
        np.testing.assert_array_equal(got, results[0])  # bit for bit
        assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(results[0], expected, rtol=1e-14)  # sums: NumPy's own order
    return compiled


def test_pairwise_distance_runs_its_outer_loop_on_a_team(threads):
    rng = np.random.default_rng(0)
    A, B = rng.random((3, 300)), rng.random((3, 280))
    compiled = _same_for_any_thread_count(pairwise_distance, lambda: (A, B), threads)
    assert _parallel_user_loops(compiled) == [True, False]  # the outermost loop only


@pytest.mark.parametrize("fn", [rows, in_place], ids=["rows", "in place"])
def test_loops_writing_their_own_slab_are_parallel(fn, threads):
    x = np.random.default_rng(1).random((600, 500))
    compiled = _same_for_any_thread_count(fn, lambda: (x.copy(),), threads)
    assert _parallel_user_loops(compiled) == [True]


DEPENDENT = [prefix, carried_sum, shifted_write, same_element, reads_whole_written, with_break]


@pytest.mark.parametrize("fn", DEPENDENT, ids=[f.__name__ for f in DEPENDENT])
def test_dependent_iterations_stay_serial(fn, threads):
    x = np.random.default_rng(2).random(1 << 16)
    compiled = astcompile.compile(fn, backend="c")
    threads(4)
    got = compiled(x.copy())
    np.testing.assert_array_equal(got, fn(x.copy()))
    assert _parallel_user_loops(compiled) and not any(_parallel_user_loops(compiled))


def test_a_loop_that_may_fail_stays_serial_and_raises_numpys_error(threads):
    compiled = astcompile.compile(past_the_end, backend="c")
    threads(4)
    with pytest.raises(IndexError, match="index 65536 is out of bounds for axis 0"):
        compiled(np.ones(1 << 16))
    assert _parallel_user_loops(compiled) == [False]


_COMPILED = None


def _child(queue) -> None:
    A = np.random.default_rng(0).random((3, 300))
    queue.put((nthreads(), _COMPILED(A, A)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_children_run_parallel_loops_single_threaded():
    global _COMPILED
    _COMPILED = astcompile.compile(pairwise_distance, backend="c")
    A = np.random.default_rng(0).random((3, 300))
    expected = _COMPILED(A, A)  # the parent's OpenMP pool is now alive
    assert _parallel_user_loops(_COMPILED)[0]
    for n, got in forked_results(_child):
        assert n == 1
        np.testing.assert_array_equal(got, expected)


def row_sums(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i, :].sum() + x[i, -1]
    return out, x[1:]


def test_strided_arguments_read_through_a_unit_stride_copy_write_in_place():
    """A read-only argument with a strided last axis is passed as a contiguous copy; a written
    one keeps its strides (stores reach the caller), and an escaping view stays a view."""
    base = np.random.default_rng(3).random((40, 60))
    x = base[:, ::3]
    out_base = np.zeros((40, 2))
    out = out_base[:, 1]
    compiled = astcompile.compile(row_sums, backend="c")
    got, view = compiled(x, out)
    want, want_view = row_sums(x, np.zeros(40))
    np.testing.assert_allclose(out_base[:, 1], want, rtol=1e-14)
    assert got.base is out_base or np.shares_memory(got, out_base)
    assert np.shares_memory(view, base) and view.strides == want_view.strides
    source = _c_source(compiled)
    assert re.search(r"x_\d+\[", source) and not re.search(r"x_\d+_s1\]", source)
    assert re.search(r"out_\d+_s0\]", source)  # the written argument keeps its stride


def _team_size_library(tmp_path):
    """The emitted team clauses, compiled: the size of the team ``work`` opens."""
    from astcompile.runtime import load_library
    from astcompile.targets.c.structured_parallel import team, team_size

    source = (
        '#include <stdint.h>\n#include <omp.h>\n#include "astc_math.h"\n'
        "int64_t team_size(int64_t nthreads, int64_t work) {\n"
        f"    const int64_t threads = {team_size('work')};\n"
        "    int64_t size = 0;\n"
        f"    #pragma omp parallel{team('threads')}\n"
        "    {\n        if (omp_get_thread_num() == 0) size = omp_get_num_threads();\n    }\n"
        "    return size;\n}\n"
    )
    return load_library(source, "int64_t team_size(int64_t, int64_t);", str(tmp_path))[1]


def test_a_team_opens_where_the_work_it_takes_off_the_caller_pays_for_it(tmp_path):
    """Two threads save half the work, so they wait for twice what a team costs (a clip of
    65k floats ran 1.5x slower on two); more threads save more, and open at nearly the cost
    itself. A count the user set is taken as it is."""
    from astcompile.targets.c.structured_parallel import PARALLEL_WORK

    lib = _team_size_library(tmp_path)
    cost = PARALLEL_WORK
    assert lib.team_size(2, 2 * cost - 1) == 1
    assert lib.team_size(2, 2 * cost) == 2
    assert lib.team_size(8, cost * 8 // 7 + 1) == 8
    assert lib.team_size(8, cost) == 1
    assert lib.team_size(1, 100 * cost) == 1
    assert lib.team_size(-1, 100 * cost) == 1


def test_the_default_thread_count_wakes_no_thread_for_a_busy_cpu(tmp_path):
    """The default count (negative: runtime/parallel.py) takes only CPUs idle now: with every
    CPU spinning in another process, no team opens however large the work (a team thread that
    finds no CPU made a clip of 4M floats 2.2x slower); a count the user set still opens one."""
    import subprocess
    import sys
    import time

    lib = _team_size_library(tmp_path)
    cpus = len(os.sched_getaffinity(0))
    # the default unless the user set one (a library imported later may set the variable:
    # the count was read at import), never a count a fixture left behind
    explicit = os.environ.get("OMP_NUM_THREADS")
    expected = (parallel.nthreads(), -cpus) if explicit else (-cpus,)
    assert parallel.kernel_threads() in expected
    spin = [sys.executable, "-c", "import time\nt = time.time() + 5\nwhile time.time() < t: pass"]
    busy = [subprocess.Popen(spin) for _ in range(cpus + 1)]
    try:
        time.sleep(0.3)
        assert lib.team_size(-cpus, 1 << 40) == 1
        assert lib.team_size(max(2, cpus), 1 << 40) == max(2, cpus)
    finally:
        for p in busy:
            p.kill()
            p.wait()


def test_a_loop_on_simd_lanes_picks_with_a_blend_a_carried_one_with_bits():
    """In an ``omp simd`` loop a float pick is ``?:`` (astc_pick: a vector blend; the bit-mask
    astc_select made GCC load the element twice more); a loop carrying a float sum stays
    scalar, where ``?:`` would be a jump mispredicted on data, and keeps astc_select."""
    from bench.loop_kernels import clip_into
    from bench.programs.branchy_sum import branchy_sum

    x = np.random.default_rng(3).standard_normal(5000)
    clip = astcompile.compile(clip_into, backend="c")
    clip(x, np.empty_like(x), -0.5, 0.5)
    simd = _c_source(clip)
    assert "omp simd" in simd or "omp for simd" in simd  # a team or not, on lanes
    assert "astc_select_double(" not in simd  # two picks, in the line head and vector loop
    assert simd.count("astc_pick_double(") == 4
    summed = astcompile.compile(branchy_sum, backend="c")
    assert summed(x) == branchy_sum(x)
    carried = _c_source(summed)
    assert "astc_select_double(" in carried and "astc_pick_double(" not in carried


def test_a_vector_loop_stores_from_a_64_byte_line_on(threads):
    """The iterations before ``out[i]`` starts a 64-byte line run one by one, then the vector
    loop's stores fill whole lines (a piecewise of 262k floats on a Zen 4: 45 us, against
    51-73 us with NumPy's buffers 16 or 48 bytes into a line), each thread of a team from a
    line's start. Bit for bit what the plain loop stores, wherever the output starts (each of
    8 offsets into a line), for trip counts shorter than the head too, on any team."""
    from bench.loop_kernels import clip_into

    compiled = astcompile.compile(clip_into, backend="c")
    x = np.random.default_rng(5).standard_normal(70_000)
    x[::7] = np.nan
    for n in (70_000, 0, 1, 3, 7, 8, 9):  # traced at a size worth a team first
        for offset in range(8):
            for count in (1, 2, 3):
                threads(count)
                buf = np.full(n + 8, -7.0)
                got = compiled(x[:n], buf[offset : offset + n], -0.5, 0.5)
                want = np.full(n + 8, -7.0)
                clip_into(x[:n], want[offset : offset + n], -0.5, 0.5)
                assert got.base is buf and buf.tobytes() == want.tobytes()
    source = _c_source(compiled)
    head = re.search(r"const int64_t (from\d+) = .*astc_line_head\((out_\d+), ", source)
    assert head, source
    assert f"< {head[1]}; " in source and f"= {head[1]}; " in source  # the head, the rest
    assert re.search(r"#pragma omp for simd schedule\(static, chunk\d+\)", source)


def test_one_thread_runs_a_team_loop_without_opening_a_team(threads):
    """A team is opened only when more than one thread pays (a team of one still cost 1.2 us
    a call in libgomp); one thread runs the same loop, on SIMD lanes too."""
    compiled = astcompile.compile(piecewise, backend="c")
    x = np.random.default_rng(6).standard_normal(70_000)
    for count in (1, 2):
        threads(count)
        assert compiled(x).tobytes() == piecewise(x).tobytes()
    source = re.sub(r"\n\s*", "\n", _c_source(compiled))
    team = re.search(r"const int64_t (team\d+) = astc_team\(.*\nif \(\1 > 1\) \{\n", source)
    assert team, source
    assert f"#pragma omp parallel num_threads({team[1]})\n" in source
    assert re.search(r"astc_fp_join\(fp\d+\);\n\} else \{\n#pragma omp simd\nfor ", source)


def test_an_output_the_loop_allocates_is_stored_from_a_line_on_too():
    """``np.empty_like`` inside the function: the region's own buffer, same shape of C, from
    its first call on (4099 floats: small for a team)."""
    compiled = astcompile.compile(piecewise, backend="c")
    for n in (4099, 5):
        x = np.random.default_rng(n).standard_normal(n)
        assert compiled(x).tobytes() == piecewise(x).tobytes()
    assert re.search(r"astc_line_head\(t\d+, ", _c_source(compiled))


def test_line_heads_and_chunks(tmp_path):
    """astc_line_head: iterations up to the first element on a line's start (none where
    elements never start one, never more than the trip); astc_line_chunk: a thread's share in
    whole lines, at least one line."""
    from astcompile.runtime import load_library

    source = '#include <stdint.h>\n#include "astc_math.h"\n'
    decls = (
        "int64_t astc_line_head(const void*, int64_t, int64_t, int64_t);\n"
        "int64_t astc_line_chunk(int64_t, int64_t, int64_t);"
    )
    wrappers = (
        "int64_t line_head(int64_t at, int64_t first, int64_t size, int64_t trip)"
        " { return astc_line_head((const void*)(uintptr_t)at, first, size, trip); }\n"
        "int64_t line_chunk(int64_t trip, int64_t team, int64_t size)"
        " { return astc_line_chunk(trip, team, size); }\n"
    )
    names = decls.replace("astc_", "").replace("const void*", "int64_t")
    lib = load_library(source + wrappers, names, str(tmp_path))[1]
    assert [lib.line_head(4096 + at, 0, 8, 100) for at in (0, 8, 16, 56)] == [0, 7, 6, 1]
    assert lib.line_head(4096 + 16, 2, 8, 100) == 4  # from base[2], 32 bytes into the line
    assert lib.line_head(4096 + 4, 0, 8, 100) == 0  # never on a line's start
    assert lib.line_head(4096 + 8, 0, 8, 3) == 3 and lib.line_head(4096 + 8, 0, 8, 0) == 0
    assert lib.line_head(4096 + 48, 0, 16, 100) == 1  # complex128
    assert lib.line_chunk(1000, 2, 8) == 504 and lib.line_chunk(1000, 1, 8) == 1000
    assert lib.line_chunk(0, 2, 8) == 8 and lib.line_chunk(3, 2, 1) == 64
