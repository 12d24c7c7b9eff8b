"""More NumPy steps (see trace/numpy_steps.py): linear algebra, convolution, covariance,
Fourier transforms, polynomials, Kronecker products and ``np.pad``'s copying modes, run by
NumPy itself inside a region.

Each has a result whose shape follows from its inputs' shapes and its static arguments, so
the statements around it still compile. Results whose shape or dtype the data decides stay
graph breaks: ``np.linalg.eig`` (real or complex eigenvalues), ``np.linalg.lstsq`` (its
residuals), ``np.unique``, ``np.bincount`` of wide integers (trace/numpy_steps_search.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_steps import results, static, step
from astcompile.trace.symbolic import SymArray, operand


def dim_min(a: S.Dim, b: S.Dim) -> S.Dim:
    """The smaller of two sizes (symbolic: ``a + b - max(a, b)``)."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return S.dim_sub(S.dim_add(a, b), S.dim_max(a, b))


def _statics(**values: Any) -> dict:
    return {k: static(v, k) for k, v in values.items()}


# -- linear algebra ----------------------------------------------------------------------------


def _cholesky(a: Any, *, upper: Any = False) -> Any:
    return step("linalg.cholesky", [a], _statics(upper=upper), lambda n: n[0].shape)


def _matrix_power(a: Any, n: Any) -> Any:
    """``np.linalg.matrix_power``; ``n=1`` returns ``a`` itself, so that result is no new
    array (NUMPY_VIEW: no kernel may write over it)."""
    kwargs = _statics(n=n)
    view_of = 0 if kwargs["n"] == 1 else None
    return step("linalg.matrix_power", [a], kwargs, lambda nodes: nodes[0].shape, view_of=view_of)


def _pinv(a: Any, rcond: Any = None, hermitian: Any = False) -> Any:
    kwargs = _statics(hermitian=hermitian, **({"rcond": rcond} if rcond is not None else {}))
    return step("linalg.pinv", [a], kwargs, lambda n: (*n[0].shape[:-2], *n[0].shape[:-3:-1]))


def _eigvalsh(a: Any, UPLO: Any = "L") -> Any:
    return step("linalg.eigvalsh", [a], _statics(UPLO=UPLO), lambda n: n[0].shape[:-1])


def _eigh(a: Any, UPLO: Any = "L") -> Any:
    shapes = lambda n: [n[0].shape[:-1], n[0].shape]
    return results("linalg.eigh", [a], _statics(UPLO=UPLO), shapes)


def _slogdet(a: Any) -> Any:
    return results("linalg.slogdet", [a], {}, lambda n: [n[0].shape[:-2]] * 2)


def _qr(a: Any, mode: Any = "reduced") -> Any:
    mode = static(mode, "mode")
    if mode not in ("reduced", "complete"):
        raise unsupported(f"np.linalg.qr with mode={mode!r}")

    def shapes(n: list) -> list[tuple]:
        *batch, m, k = n[0].shape
        inner = m if mode == "complete" else dim_min(m, k)
        return [(*batch, m, inner), (*batch, inner, k)]

    return results("linalg.qr", [a], {"mode": mode}, shapes)


def _svd(a: Any, full_matrices: Any = True, compute_uv: Any = True, hermitian: Any = False):
    kwargs = _statics(full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian)

    def shapes(n: list) -> list[tuple]:
        *batch, m, k = n[0].shape
        inner = dim_min(m, k)
        if not kwargs["compute_uv"]:
            return [(*batch, inner)]
        full = kwargs["full_matrices"]
        return [
            (*batch, m, m if full else inner),
            (*batch, inner),
            (*batch, k if full else inner, k),
        ]

    if not kwargs["compute_uv"]:
        return step("linalg.svd", [a], kwargs, lambda n: shapes(n)[0])
    return results("linalg.svd", [a], kwargs, shapes)


# -- convolution, covariance ---------------------------------------------------------------------


def _convolving(name: str, default: str) -> Callable:
    def handler(a: Any, v: Any, mode: Any = default) -> Any:
        mode = static(mode, "mode")

        def shape(n: list) -> tuple:
            la, lv = n[0].shape[0], n[1].shape[0]
            if mode == "full":
                return (S.dim_sub(S.dim_add(la, lv), 1),)
            if mode == "same":
                return (S.dim_max(la, lv),)
            return (S.dim_add(S.dim_sub(S.dim_max(la, lv), dim_min(la, lv)), 1),)

        if any(isinstance(x, SymArray) and x.ndim != 1 for x in (a, v)):
            raise unsupported(f"np.{name} of arrays that are not 1-D")  # NumPy's ValueError
        return step(name, [a, v], {"mode": mode}, shape)

    return handler


def _covariance_shape(rowvar: bool) -> Callable[[list], tuple]:
    """Variables by rows (or columns): ``(count, count)``, squeezed for one variable."""

    def shape(n: list) -> tuple:
        dims = n[0].shape
        if len(dims) < 2:
            return ()
        count = dims[0] if rowvar else dims[1]
        return () if count == 1 else (count, count)

    return shape


def _cov(m: Any, y: Any = None, rowvar: Any = True, bias: Any = False, ddof: Any = None) -> Any:
    if y is not None:
        raise unsupported("np.cov with y=")
    kwargs = _statics(rowvar=rowvar, bias=bias, ddof=ddof)
    return step("cov", [m], kwargs, _covariance_shape(kwargs["rowvar"]))


def _corrcoef(x: Any, y: Any = None, rowvar: Any = True) -> Any:
    if y is not None:
        raise unsupported("np.corrcoef with y=")
    rowvar = static(rowvar, "rowvar")
    return step("corrcoef", [x], {"rowvar": rowvar}, _covariance_shape(rowvar))


# -- Fourier transforms --------------------------------------------------------------------------


def _fourier(name: str, length: Callable[[Any, Any], Any]) -> Callable:
    """``np.fft.<name>(a, n, axis, norm)``: ``length(n, size)`` is the transformed axis's length."""

    def handler(a: Any, n: Any = None, axis: Any = -1, norm: Any = None) -> Any:
        kwargs = _statics(n=n, axis=axis, norm=norm)

        def shape(nodes: list) -> tuple:
            dims = list(nodes[0].shape)
            at = kwargs["axis"] % max(len(dims), 1)
            dims[at] = length(kwargs["n"], dims[at])
            return tuple(dims)

        return step(f"fft.{name}", [a], kwargs, shape)

    return handler


def _same(n: Any, size: S.Dim) -> S.Dim:
    return size if n is None else n


def _half(n: Any, size: S.Dim) -> S.Dim:
    return S.dim_add(S.dim_floordiv(size if n is None else n, 2), 1)


def _doubled(n: Any, size: S.Dim) -> S.Dim:
    return S.dim_mul(S.dim_sub(size, 1), 2) if n is None else n


# -- padding -------------------------------------------------------------------------------------

#: np.pad modes whose values NumPy copies from the array (``"empty"`` leaves them undefined).
PAD_MODES = frozenset(
    {"edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum", "minimum", "mean", "median"}
)


def pad_step(array: Any, widths: tuple, mode: Any, options: dict) -> Any:
    """``np.pad(a, widths, mode)`` for a copying ``mode``; ``widths`` as ``((before, after),
    ...)`` per axis."""
    if not isinstance(mode, str) or mode not in PAD_MODES:
        raise unsupported(f"np.pad with mode={mode!r}")
    kwargs = {"pad_width": widths, "mode": mode, **_statics(**options)}

    def shape(n: list) -> tuple:
        return tuple(S.dim_add(d, b + a) for d, (b, a) in zip(n[0].shape, widths))

    return step("pad", [array], kwargs, shape)


# -- einsum --------------------------------------------------------------------------------------


def _einsum(*operands: Any, optimize: Any = False, dtype: Any = None) -> Any:
    """``np.einsum("ij,jk->ik", a, b)``: the result's dims are the labels' sizes, each from
    the first operand where it is not a broadcast 1 (NumPy raises where sizes disagree)."""
    if not operands or not isinstance(operands[0], str):
        raise unsupported("np.einsum with operand lists instead of a subscript string")
    spec, arrays = operands[0].replace(" ", ""), operands[1:]
    inputs, _, output = spec.partition("->")
    labels = inputs.split(",")
    if "." in spec or len(labels) != len(arrays) or not all(map(str.isalpha, labels)):
        raise unsupported(f"np.einsum({spec!r}) with an ellipsis or unmatched operands")
    if "->" not in spec:
        output = "".join(sorted(c for c in set(inputs) - {","} if inputs.count(c) == 1))
    kwargs = _statics(optimize=optimize, **({"dtype": dtype} if dtype is not None else {}))

    def shape(n: list) -> tuple:
        sizes: dict[str, S.Dim] = {}
        for names, node in zip(labels, n):
            for c, d in zip(names, node.shape):
                if sizes.get(c, 1) == 1:
                    sizes[c] = d
        return tuple(sizes[c] for c in output)

    if any(np.ndim(a) != len(names) for a, names in zip(arrays, labels)):
        raise unsupported(f"np.einsum({spec!r}) with operands of other ranks")  # NumPy raises
    # one operand: NumPy may return a view of it ("ij->ji", "ii->i")
    view_of = 0 if len(arrays) == 1 else None
    return step("einsum", arrays, kwargs, shape, lead=(spec,), view_of=view_of)


# -- polynomials, Kronecker products ---------------------------------------------------------


def _polyfit(
    x: Any, y: Any, deg: Any, rcond: Any = None, full: Any = False, w: Any = None, cov: Any = False
) -> Any:
    """``np.polyfit``'s coefficients, ``deg + 1`` of them (per column of a 2-D ``y``);
    ``full=``/``cov=`` (residuals whose length the rank decides) run in NumPy."""
    kwargs = _statics(deg=deg, rcond=rcond, full=full, cov=cov)
    if kwargs.pop("full") or kwargs.pop("cov") or not isinstance(kwargs["deg"], int):
        raise unsupported("np.polyfit with full=, cov= or a degree that is not an int")
    count = kwargs["deg"] + 1
    keywords = ("w",) if w is not None else ()
    arrays = [x, y] + ([w] if w is not None else [])
    return step("polyfit", arrays, kwargs, lambda n: (count, *n[1].shape[1:]), keywords)


def _polyval(p: Any, x: Any) -> Any:
    """``np.polyval(p, x)`` of a 1-D ``p``: ``x``'s shape, NumPy's dtype for ``p``'s length (an
    empty ``p`` gives zeros of ``x``'s dtype, so a length that may be 0 must be known)."""
    shape = operand(p).node.shape
    if len(shape) != 1:
        raise unsupported("np.polyval of coefficients that are not 1-D")
    if not isinstance(shape[0], int) and shape[0].op is not S.DimOp.SYM:
        raise unsupported("np.polyval of a computed number of coefficients")
    return step("polyval", [p, x], {}, lambda n: n[1].shape)


def _kron(a: Any, b: Any) -> Any:
    """``np.kron(a, b)``: each axis (the shorter shape padded with ones in front) of length
    ``a``'s times ``b``'s."""

    def shape(n: list) -> tuple:
        sa, sb = n[0].shape, n[1].shape
        if not sa or not sb:
            return sa or sb
        rank = max(len(sa), len(sb))
        sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
        return tuple(S.dim_mul(da, db) for da, db in zip(sa, sb))

    return step("kron", [a, b], {}, shape)


FUNCTIONS: dict[Callable, Callable] = {
    np.polyfit: _polyfit,
    np.polyval: _polyval,
    np.kron: _kron,
    np.linalg.cholesky: _cholesky,
    np.linalg.matrix_power: _matrix_power,
    np.linalg.pinv: _pinv,
    np.linalg.eigvalsh: _eigvalsh,
    np.linalg.eigh: _eigh,
    np.linalg.slogdet: _slogdet,
    np.linalg.qr: _qr,
    np.linalg.svd: _svd,
    np.convolve: _convolving("convolve", "full"),
    np.correlate: _convolving("correlate", "valid"),
    np.cov: _cov,
    np.corrcoef: _corrcoef,
    np.fft.fft: _fourier("fft", _same),
    np.fft.ifft: _fourier("ifft", _same),
    np.fft.rfft: _fourier("rfft", _half),
    np.fft.irfft: _fourier("irfft", _doubled),
    np.einsum: _einsum,
}
