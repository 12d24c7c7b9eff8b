"""Every generated Triton kernel compiles ahead of time for sm_80 and sm_90 (no GPU needed),
and each fused kernel reads each input element once and writes each output element once."""

from __future__ import annotations

import re

import numpy as np
import pytest
from differential import TRITON
from test_backend_triton import CASES

from astcompile.backends.triton import generate
from astcompile.runtime.triton_math import FUNCTIONS
from astcompile.runtime.triton_runtime import load_module
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


AOT_CASES = _kinds(CASES)


def _cuda_compiler():
    """``(compile, ASTSource, GPUTarget)``, or a skip where the CUDA backend's tools are missing."""
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.backends.nvidia.compiler import CUDABackend  # noqa: F401
        from triton.compiler import ASTSource
    except ImportError as exc:
        pytest.skip(f"Triton's CUDA backend is not installed: {exc}")
    return triton.compile, ASTSource, GPUTarget


def _code(fn, args):
    _, code = generate(trace_callable(fn, list(args)))
    return code


def _functions(source: str) -> dict[str, str]:
    """Kernel function name -> its text."""
    parts = source.split("@triton.jit\n")[1:]
    return {re.match(r"def (\w+)\(", p).group(1): p for p in parts}


@pytest.mark.parametrize(
    ("fn", "args"), AOT_CASES, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(AOT_CASES)]
)
def test_kernels_compile_for_sm80_and_sm90(fn, args, monkeypatch, tmp_path):
    compile_, ASTSource, GPUTarget = _cuda_compiler()
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    code = _code(fn, args)
    module = load_module(code.source, str(tmp_path))
    compiled = 0
    for name, signature in code.signatures.items():
        for variant in (name, f"{name}_block", f"{name}_loop"):
            kernel = getattr(module, variant, None)
            if kernel is None:
                continue
            for arch in ARCHS:
                source = ASTSource(kernel, signature, constexprs={"BLOCK": 1024})
                done = compile_(
                    source, target=GPUTarget("cuda", arch, 32), options={"enable_fp_fusion": False}
                )
                assert ".entry" in done.asm["ptx"]
                compiled += 1
    assert compiled >= 2 * len(code.signatures)


@pytest.mark.parametrize(
    ("fn", "args"), CASES, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(CASES)]
)
def test_fused_kernels_read_and_write_each_element_once(fn, args):
    """In a flat kernel and a row held in one block, every access is one ``tl.load`` and every
    output one ``tl.store`` (the looped variant re-reads its row once per phase, by design)."""
    code = _code(fn, args)
    for name, text in _functions(code.source).items():
        if name.endswith("_loop") or name == "_mul":
            continue
        loads = re.findall(r"tl\.load\((.*)\)", text)
        assert len(loads) == len(set(loads)), f"{name} loads an element twice: {loads}"
        stores = re.findall(r"tl\.store\((\w+) \+", text)
        assert len(stores) == len(set(stores)), f"{name} writes an output twice: {stores}"
        outputs = [
            p
            for p in code.signatures.get(name.removesuffix("_block"), {})
            if p.startswith("out_") and "_s" not in p
        ]
        assert sorted(stores) == sorted(outputs)


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
