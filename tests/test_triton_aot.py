"""Every generated Triton kernel compiles ahead of time for sm_80 and sm_90 (no GPU needed):
fused kernels, matmul kernels, a reduction's part and finish functions, scan kernels; and each
fused kernel (and scan held in one block) reads each input element once and writes each
output element once."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from differential import TRITON
from graphs import lowered
from test_backend_triton import CASES as KERNEL_CASES
from test_backend_triton_scans import SCAN_CASES
from test_triton_matmul import MATMUL_CASES, dense_relu, kept, mixed, mlp, product

from astcompile.runtime.triton_math import FUNCTIONS
from astcompile.runtime.triton_runtime import load_module
from astcompile.targets.triton.matmul import MatmulKernel
from astcompile.trace.tracer import trace_callable

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

ARCHS = (80, 90)


def _kinds(cases: list) -> list:
    """One case per function and argument dtypes: views of the same dtypes (transposed,
    sliced, empty) generate the same kernels."""
    seen: dict[tuple, tuple] = {}
    for fn, args in cases:
        seen.setdefault((fn, tuple(np.asarray(a).dtype for a in args)), (fn, args))
    return list(seen.values())


#: Matmul kernels of every accumulation (float32, float64, integers) and epilogue shape.
MATMUL_AOT = _kinds([c for c in MATMUL_CASES if c[0] in (product, dense_relu, mlp, kept, mixed)])
CASES = KERNEL_CASES + SCAN_CASES
AOT_CASES = _kinds(CASES) + MATMUL_AOT


def _launch_options(sched) -> dict[str, dict]:
    """kernel -> its constexprs and warps on a GPU (elementwise and row kernels: ``BLOCK``;
    matmul kernels: the largest tiles of the table for their dtype)."""
    from astcompile.kernels.triton_matmul import tiles

    options = {}
    for step in sched.steps:
        if isinstance(step, MatmulKernel):
            t = tiles("cuda", step.product.dtype, 1 << 20, 1 << 20, 1 << 20)
            options[step.name] = {"constexprs": t.constexprs(), "num_warps": t.num_warps}
    return options


def compile_all(jobs_path: str) -> None:
    """In a child process (Triton's interpreter, which the other tests run, patches
    ``triton.language`` in ways that can outlive a run): compile every kernel variant of each
    job for each arch and print ``{case: [[variant, arch, ptx has an entry, ptx uses TF32]]}``
    as JSON."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    with open(jobs_path) as f:
        jobs = json.load(f)
    results = {}
    for case, job in jobs.items():
        module = load_module(job["source"], job["cache"])
        done = []
        for name, signature in job["signatures"].items():
            launch = job.get("options", {}).get(
                name, {"constexprs": {"BLOCK": 1024}, "num_warps": 4}
            )
            options = {"enable_fp_fusion": False, "num_warps": launch["num_warps"]}
            constexprs = {**launch["constexprs"], **({"FP": True} if "FP" in signature else {})}
            for variant in (name, f"{name}_block", f"{name}_loop"):
                kernel = getattr(module, variant, None)
                for arch in ARCHS if kernel is not None else ():
                    source = ASTSource(kernel, signature, constexprs=constexprs)  # flags on
                    target = GPUTarget("cuda", arch, 32)
                    out = triton.compile(source, target=target, options=options)
                    ptx = out.asm["ptx"]
                    done.append([variant, arch, ".entry" in ptx, "tf32" in ptx])
        results[case] = done
    print(json.dumps(results))


def compiled_in_a_child(sources: dict, folder) -> None:
    """Compile each ``{name: TritonCode}`` for sm_80 and sm_90 in a child process (see
    :func:`compile_all`) and check every kernel variant made PTX with an entry."""
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        pytest.skip("Triton's CUDA backend is not installed")
    jobs = {
        name: {"source": code.source, "signatures": code.signatures, "cache": str(folder)}
        for name, code in sources.items()
    }
    (folder / "jobs.json").write_text(json.dumps(jobs))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(folder / "cache")
    here = os.path.dirname(os.path.abspath(__file__))
    child = (
        f"import sys; sys.path.insert(0, {here!r}); import test_triton_aot as t; "
        f"t.compile_all({str(folder / 'jobs.json')!r})"
    )
    run = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    done = json.loads(run.stdout.strip().splitlines()[-1])
    for name, job in jobs.items():
        assert len(done[name]) >= 2 * len(job["signatures"]), done[name]
        assert all(entry for _, _, entry, _ in done[name]), done[name]


def _case_id(fn, k: int) -> str:
    return f"{fn.__name__}{k}"


@pytest.fixture(scope="module")
def compiled_aot(tmp_path_factory) -> dict:
    """What :func:`compile_all` made of every AOT case's kernels (one child process)."""
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        pytest.skip("Triton's CUDA backend is not installed")
    folder = tmp_path_factory.mktemp("aot")
    jobs = {}
    for k, (fn, args) in enumerate(AOT_CASES):
        work = lowered(trace_callable(fn, list(args)), "triton")
        sched, code = work.schedule, work.code
        jobs[_case_id(fn, k)] = {
            "source": code.source,
            "signatures": code.signatures,
            "options": _launch_options(sched),
            "cache": str(folder),
        }
    path = folder / "jobs.json"
    path.write_text(json.dumps(jobs))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(folder / "cache")
    here = os.path.dirname(os.path.abspath(__file__))
    child = f"import sys; sys.path.insert(0, {here!r}); import test_triton_aot as t; t.compile_all({str(path)!r})"
    run = subprocess.run(
        [sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _code(fn, args):
    return lowered(trace_callable(fn, list(args)), "triton").code


def _functions(source: str) -> dict[str, str]:
    """Kernel function name -> its text."""
    parts = source.split("@triton.jit\n")[1:]
    return {re.match(r"def (\w+)\(", p).group(1): p for p in parts}


@pytest.mark.parametrize(
    ("case", "fn", "args"),
    [(_case_id(f, k), f, a) for k, (f, a) in enumerate(AOT_CASES)],
    ids=[_case_id(f, k) for k, (f, _) in enumerate(AOT_CASES)],
)
def test_kernels_compile_for_sm80_and_sm90(case, fn, args, compiled_aot):
    done = compiled_aot[case]
    code = _code(fn, args)
    assert len(done) >= 2 * len(code.signatures)
    compiled = {variant for variant, *_ in done}
    assert all(k in compiled or f"{k}_block" in compiled for k in code.signatures), compiled
    assert {arch for _, arch, _, _ in done} == set(ARCHS)
    assert all(entry for _, _, entry, _ in done), done
    assert not any(tf32 for *_, tf32 in done), "a float32 product must not round to TF32"


FUSED = CASES + MATMUL_AOT


#: A full reduction's part or finish function: ``k0_part1`` -> ``k0``.
GRID_FUNCTION = re.compile(r"^(\w+)_(?:part|finish)\d+$")


def _outputs(signature: dict[str, str]) -> list[str]:
    return [p for p in signature if p.startswith("out_") and "_s" not in p]


@pytest.mark.parametrize(
    ("fn", "args"), FUSED, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(FUSED)]
)
def test_fused_kernels_read_and_write_each_element_once(fn, args):
    """In a flat kernel and a row held in one block, every access is one ``tl.load`` and every
    output one ``tl.store`` (the looped variant re-reads its row once per phase, by design).
    A full reduction's part and finish functions each load an access once and store a buffer
    once, and together store each output once."""
    code = _code(fn, args)
    grid_stores: dict[str, list[str]] = {}
    for name, text in _functions(code.source).items():
        if name.endswith("_loop") or name == "_mul":
            continue
        loads = re.findall(r"tl\.load\((.*)\)", text)
        assert len(loads) == len(set(loads)), f"{name} loads an element twice: {loads}"
        grid = GRID_FUNCTION.match(name)
        # a finish function also stores its reductions' values: tl.store(r12, v12)
        stores = re.findall(r"tl\.store\((\w+)" + (r"[ ,]" if grid else r" \+"), text)
        assert len(stores) == len(set(stores)), f"{name} writes a buffer twice: {stores}"
        if grid:
            outs = [s for s in stores if s.startswith("out_")]
            grid_stores.setdefault(grid.group(1), []).extend(outs)
            continue
        signature = code.signatures.get(name.removesuffix("_block"), {})
        assert sorted(stores) == sorted(_outputs(signature))
    for kernel, stored in grid_stores.items():
        assert sorted(stored) == sorted(_outputs(code.signatures[kernel])), kernel


def test_math_names_exist_in_libdevice():
    """Each name the rules call through ``lm`` is a libdevice function (the GPU's ``lm``)."""
    from triton.language.extra import libdevice

    missing = [name for name in FUNCTIONS if not hasattr(libdevice, name)]
    assert not missing


def test_interpreted_math_keeps_dtype(monkeypatch):
    """The interpreter's stand-in gives the dtype libdevice would (float32 stays float32)."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from differential import assert_same

    def f(x):
        return np.tanh(x) + np.log1p(np.abs(x))

    got = assert_same(f, np.linspace(-2, 2, 50, dtype=np.float32), backend="triton")
    assert got.dtype == np.float32
