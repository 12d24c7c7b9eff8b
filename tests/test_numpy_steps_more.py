"""Linear algebra, convolution, covariance, Fourier transforms and np.pad's copying modes run
as NumPy steps inside compiled regions (trace/numpy_steps_more.py): results, dtypes, result
types (``EighResult``) and errors are NumPy's own, and the statements around them compile.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def factorised(S):
    L = np.linalg.cholesky(S)
    w, v = np.linalg.eigh(S)
    sign, logdet = np.linalg.slogdet(S)
    return L * 2, w + 1, v, sign * logdet, np.linalg.eigvalsh(S, UPLO="U")


def named_results(S):
    res = np.linalg.eigh(S)
    return res.eigenvalues * 2, np.linalg.matrix_power(S, 3) - 1


def decomposed(R):
    u, s, vh = np.linalg.svd(R)
    q, r = np.linalg.qr(R)
    uu, _, vv = np.linalg.svd(R, full_matrices=False)
    return u, s * 2, vh, q + 0, r, uu, vv, np.linalg.svd(R, compute_uv=False), np.linalg.pinv(R)


def complete_qr(R):
    q, r = np.linalg.qr(R, mode="complete")
    return q * 1, r


def convolved(v, w):
    return (
        np.convolve(v, w) + 1,
        np.convolve(v, w, mode="same"),
        np.convolve(w, v, "valid"),
        np.correlate(v, w) * 2,
        np.correlate(v, w, "full"),
    )


def covariances(R):
    return np.cov(R) + 1, np.cov(R, rowvar=False, ddof=0), np.corrcoef(R), np.cov(R[0], bias=True)


def spectra(v):
    f = np.fft.fft(v)
    return (
        f * 2,
        np.fft.rfft(v),
        np.fft.irfft(np.fft.rfft(v)),
        np.fft.ifft(v, n=4),
        np.fft.fft(v, axis=0),
    )


def padded(A):
    return (
        np.pad(A, 1, mode="edge") * 2,
        np.pad(A, (1, 2), mode="reflect"),
        np.pad(A, 2, "wrap"),
        np.pad(A, ((0, 1), (2, 0)), mode="linear_ramp", end_values=5),
        np.pad(A, 1, mode="mean"),
    )


def contracted(A, B, v):
    return (
        np.einsum("ij,jk->ik", A, B) * 2,
        np.einsum("ij,j", A, v),
        np.einsum("ii", B[:, : B.shape[0]]),
        np.einsum("ij->ji", A),
        np.einsum("i,i->", v, v),
        np.einsum("ij, ij -> i", A, A),
        np.einsum("i,j", v, v),
    )


def mismatched(A, v):
    return np.einsum("ij,j->i", A, v) + 1  # NumPy's ValueError when the sizes of j differ


def fitted(x, y):
    p = np.polyfit(x, y, 2)
    return p * 1, np.polyval(p, x) - y, np.polyfit(x, y, 1, w=x + 1)


def evaluated(p, x):
    return np.polyval(p, x) + 1, np.polyval(p, 2.0), np.polyval([1, 2], x)


def kronecker(a, b):
    return np.kron(a, b) + 1, np.kron(b, a), np.kron(a[0], 3), np.kron(a[0], b[0])


RNG = np.random.default_rng(8)
A = RNG.random((4, 4))
S = A @ A.T + 4 * np.eye(4)
R = RNG.random((5, 3))
CASES = [
    (factorised, [(S,), (S.astype(np.float32),), (np.eye(1),)]),
    (factorised, [(-S,)]),  # not positive definite: NumPy's LinAlgError
    (named_results, [(S,), (np.arange(9).reshape(3, 3),)]),
    (decomposed, [(R,), (R.T,), (R.astype(np.float32),)]),
    (complete_qr, [(R,), (R.T.copy(),)]),
    (convolved, [(RNG.random(7), RNG.random(3)), (np.arange(5), np.array([1, -1]))]),
    (convolved, [(np.zeros(0), np.ones(2))]),  # NumPy's ValueError for an empty input
    (covariances, [(R,), (np.arange(12).reshape(3, 4),)]),
    (spectra, [(RNG.random(8),), (RNG.random((6, 2)),), (RNG.random(5).astype(np.float32),)]),
    (padded, [(A,), (np.arange(6).reshape(2, 3),), (RNG.random((3, 2)).astype(np.float32),)]),
    (padded, [(np.zeros((0, 3)),)]),  # NumPy's ValueError: an empty axis cannot be extended
    (contracted, [(RNG.random((3, 4)), RNG.random((4, 5)), RNG.random(4))]),
    (contracted, [(np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4), np.arange(3))]),
    (contracted, [(np.ones((1, 2), np.float32), np.ones((2, 1), np.float32), np.ones(2))]),
    (mismatched, [(RNG.random((3, 4)), RNG.random(4)), (RNG.random((3, 4)), RNG.random(5))]),
    (fitted, [(RNG.random(9), RNG.random(9)), (RNG.random(6).astype(np.float32), np.arange(6.0))]),
    (fitted, [(RNG.random(5), RNG.random((5, 2)))]),  # a column per fit
    (fitted, [(RNG.random(5), RNG.random(4))]),  # NumPy's TypeError: lengths differ
    (evaluated, [(RNG.random(3), RNG.random(5)), (np.arange(4), np.arange(6).reshape(2, 3))]),
    (evaluated, [(np.array([1, -2], np.int8), RNG.random(3).astype(np.float32))]),
    (
        kronecker,
        [(RNG.random((2, 3)), RNG.random((3, 2))), (np.eye(2, dtype=int), np.ones((2, 2)))],
    ),
    (kronecker, [(np.arange(6).reshape(2, 3), np.arange(4, dtype=np.int8).reshape(2, 2))]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_more_numpy_steps_give_numpys_results_and_errors(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (factorised, (S,)),
        (named_results, (S,)),
        (decomposed, (R,)),
        (convolved, (RNG.random(7), RNG.random(3))),
        (covariances, (R,)),
        (spectra, (RNG.random(8),)),
        (padded, (A,)),
        (contracted, (RNG.random((3, 4)), RNG.random((4, 5)), RNG.random(4))),
        (fitted, (RNG.random(9), RNG.random(9))),
        (evaluated, (RNG.random(3), RNG.random(5))),
        (kronecker, (RNG.random((2, 3)), RNG.random((3, 2)))),
    ],
)
def test_more_numpy_steps_do_not_break_the_region(fn, args):
    report = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert report.graph_break_count == 0, str(report)


def scaled_views(A):
    return np.einsum("ij", A) * 3, np.einsum("ii->i", A) + 1, np.linalg.matrix_power(A, 1) * 2


def returned_views(A):
    return np.einsum("ij->ji", A), np.linalg.matrix_power(A, 1), np.linalg.matrix_power(A, 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [scaled_views, returned_views])
def test_steps_that_return_their_operand_are_not_written_over(fn, backend):
    """``np.einsum`` of one operand and ``matrix_power(A, 1)`` give a view of ``A`` (or ``A``):
    a kernel must not write its output over them (that would write into the caller's ``A``),
    and what leaves the region shares memory with ``A`` exactly as NumPy's result does."""
    assert_same(fn, np.arange(9.0).reshape(3, 3), backend=backend)


def test_polyfit_of_the_examples_warns_nothing(recwarn):
    """The trace asks NumPy for the result's dtype on small examples of ones, a rank-deficient
    fit: its RankWarning is not the user's."""
    x = np.linspace(0, 1, 8)
    astcompile.compile(fitted, backend="c")(x, x**2)
    assert not [w for w in recwarn if issubclass(w.category, np.exceptions.RankWarning)]


def data_decides(S):
    return np.linalg.eig(S)[0] * 2  # real or complex eigenvalues: the data decides


def test_a_result_the_data_shapes_still_breaks():
    report = astcompile.explain(astcompile.compile(data_decides, backend="c"), S)
    assert report.graph_break_count == 1
