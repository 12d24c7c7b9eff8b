"""The sign of a NaN that a math function returns, as NumPy's own loop gives it.

C's answer depends on which implementation runs: glibc's scalar ``asin(2.0)`` is ``-nan``
(x86's default NaN), libmvec's vector variant ``+nan``, and NumPy's AVX-512 ``arccos`` flips
the sign of a NaN argument. NumPy's results, compared bit for bit (``np.signbit``,
``.view(int)``), are what a compiled function must return, so the sign is asked of NumPy once
per function and dtype, on this machine, and C fixes it up (``astc_nansign`` in
``runtime/include/astc_math.h``): a select that vectorises. Where NumPy's own answer is not one
rule (a sign that depends on the value), nothing is fixed.
"""

from __future__ import annotations

import functools

import numpy as np

from astcompile.ir.ops import Op, info

#: A NaN argument's result: its sign, the other sign, always +, always - (``in`` of the helper).
_IN_RULES = {(False, True): 0, (True, False): 1, (False, False): 2, (True, True): 3}
#: Numbers some math function is undefined at (a domain error gives a NaN).
_NUMBERS = [2.0, -2.0, np.inf, -np.inf, -1.0, -0.5, -3.0, 0.0, -0.0, 0.5]


@functools.cache
def numpy_nan_signs(op: Op, dtype: np.dtype) -> tuple[int, int] | None:
    """``(in, neg)`` of ``astc_nansign`` for NumPy's ``op`` on ``dtype``, or None where
    there is nothing to fix (a NaN argument keeps its sign, as in glibc and libmvec, and no
    number gives a NaN: ``exp``) or its NaN signs follow no such rule. Arrays of several
    lengths, as NumPy's SIMD loops and their scalar tails may differ."""
    ins, domain = set(), set()
    for repeat in (1, 3, 40):
        nans = np.tile(np.array([np.nan, -np.nan], dtype), repeat)
        with np.errstate(all="ignore"):
            from_nan = info(op).numpy(nans).reshape(repeat, 2)
            from_number = info(op).numpy(np.tile(np.array(_NUMBERS, dtype), repeat))
        if not np.isnan(from_nan).all():
            return None
        ins |= {_IN_RULES[tuple(row)] for row in np.signbit(from_nan)}
        domain |= set(np.signbit(from_number[np.isnan(from_number)]).tolist())
    if len(ins) != 1 or len(domain) > 1 or (ins == {0} and not domain):
        return None
    return ins.pop(), int(domain.pop() if domain else True)


def with_numpy_nan(op: Op, rule):
    """``rule`` (a libm call of one float argument) with its NaN result's sign fixed to
    NumPy's."""

    def fixed(node, a: list[str]) -> str:
        signs = numpy_nan_signs(op, node.dtype)
        if signs is None:
            return rule(node, a)
        t = "float" if node.dtype == np.float32 else "double"
        return f"astc_nansign_{t}({rule(node, a)}, {a[0]}, {signs[0]}, {signs[1]})"

    return fixed
