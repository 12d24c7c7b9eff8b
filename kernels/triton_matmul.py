"""A tiled matrix product in Triton: ``a @ b`` of two 2-D arrays, on the GPU.

Each program computes one ``BLOCK_M x BLOCK_N`` tile of the product. It walks the shared axis
in ``BLOCK_K`` steps, loading a ``BLOCK_M x BLOCK_K`` tile of ``a`` and a ``BLOCK_K x BLOCK_N``
tile of ``b`` (masked at the ragged edges, zeros outside, so the padding adds nothing), and
accumulates their product:

* float32 and float64 through ``tl.dot`` with ``input_precision="ieee"``: float32 products
  accumulate in float32 on the CUDA cores (not TF32, whose 10-bit mantissa would lose NumPy's
  result), float64 ones in float64 (the DMMA instructions of sm_80 and later);
* integers as a broadcast product summed over the shared axis, in 64 bits (``tl.dot`` takes
  int8 only, into int32). Integer sums wrap modulo 2**64 in any order, so casting the sum to
  a narrower result gives NumPy's wrapped value exactly.

Strides are arguments, in elements: a transposed or sliced operand is read in place. Programs
walk the output in groups of ``GROUP_M`` tile rows, so the tiles of ``b`` one group reads stay
in L2 while it runs.

:func:`tile_product` is what astcompile's generated kernels call: the product's elementwise
epilogue (``np.maximum(a @ w + b, 0)``: the bias and the ReLU) follows it in the same kernel,
so the product itself never goes to memory. :func:`matmul` is the plain kernel (benchmarks and
tests); :func:`tiles` picks the block sizes of both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import triton
import triton.language as tl


@triton.jit
def tile_of(
    pid, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr
):
    """(rows, columns) of program ``pid``'s tile: down ``GROUP_M`` tile rows, then across."""
    tiles_m = tl.cdiv(n_rows, BLOCK_M)
    tiles_n = tl.cdiv(n_cols, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first = (pid // per_group) * GROUP_M
    height = tl.minimum(tiles_m - first, GROUP_M)
    tile_m = first + (pid % per_group) % height
    tile_n = (pid % per_group) // height
    rows = tile_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    return rows, cols


@triton.jit
def tile_product(
    a, a_s0, a_s1, b, b_s0, b_s1, rows, cols, n_rows, n_cols, n_k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    ACC: tl.constexpr, DOT: tl.constexpr,
):  # fmt: skip
    """The ``rows x cols`` tile of ``a @ b`` in dtype ``ACC``; ``DOT``: through ``tl.dot``
    (float32, float64), else a broadcast product summed over the shared axis (integers)."""
    acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
    row_in = rows[:, None] < n_rows
    col_in = cols[None, :] < n_cols
    for k0 in range(0, n_k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a_mask = row_in & (ks[None, :] < n_k)
        x = tl.load(a + rows[:, None] * a_s0 + ks[None, :] * a_s1, mask=a_mask, other=0)
        b_mask = (ks[:, None] < n_k) & col_in
        y = tl.load(b + ks[:, None] * b_s0 + cols[None, :] * b_s1, mask=b_mask, other=0)
        if DOT:
            acc = tl.dot(x, y, acc, input_precision="ieee")
        else:
            acc += tl.sum(x[:, :, None].to(ACC) * y[None, :, :].to(ACC), axis=1)
    return acc


@triton.jit
def matmul(
    n_rows, n_cols, n_k, a, a_s0, a_s1, b, b_s0, b_s1, c, c_s0, c_s1,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, ACC: tl.constexpr, DOT: tl.constexpr,
):  # fmt: skip
    """``c = a @ b``: one program per tile of ``c``."""
    rows, cols = tile_of(tl.program_id(0), n_rows, n_cols, BLOCK_M, BLOCK_N, GROUP_M)
    acc = tile_product(
        a, a_s0, a_s1, b, b_s0, b_s1, rows, cols, n_rows, n_cols, n_k,
        BLOCK_M, BLOCK_N, BLOCK_K, ACC, DOT,
    )  # fmt: skip
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None] * c_s0 + cols[None, :] * c_s1
    tl.store(c + offsets, acc.to(c.dtype.element_ty), mask=mask)


@dataclass(frozen=True)
class Tiles:
    """Block sizes and warps of one launch."""

    block_m: int
    block_n: int
    block_k: int
    group_m: int
    num_warps: int

    def grid(self, n_rows: int, n_cols: int) -> tuple[int]:
        return (-(-n_rows // self.block_m) * -(-n_cols // self.block_n),)

    def constexprs(self) -> dict[str, int]:
        return {
            "BLOCK_M": self.block_m,
            "BLOCK_N": self.block_n,
            "BLOCK_K": self.block_k,
            "GROUP_M": self.group_m,
        }


#: (mode, how the tile is accumulated) -> the largest tiles. On a GPU: 128 x 128 float32 tiles
#: (8 warps: 64 accumulators a thread), 64 x 64 float64 tiles, small integer tiles (the
#: broadcast product holds BLOCK_M * BLOCK_K * BLOCK_N values). The interpreter costs about
#: 1 ms per program and per loop step whatever the block, so it takes large blocks.
TILES: dict[tuple[str, str], Tiles] = {
    ("cuda", "float32"): Tiles(128, 128, 32, 8, 8),
    ("cuda", "float64"): Tiles(64, 64, 16, 8, 4),
    ("cuda", "int"): Tiles(32, 32, 8, 8, 4),
    ("interpret", "float32"): Tiles(128, 128, 128, 8, 4),
    ("interpret", "float64"): Tiles(128, 128, 128, 8, 4),
    ("interpret", "int"): Tiles(64, 64, 32, 8, 4),
}

#: The smallest block on any axis (``tl.dot`` needs K >= 8 for float32, 4 for float64).
MIN_BLOCK = 16


def accumulation(dtype: np.dtype) -> tuple[str, str, bool]:
    """(table key, Triton accumulator dtype, through ``tl.dot``) of a product of ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return "float32", "tl.float32", True
    if dtype == np.float64:
        return "float64", "tl.float64", True
    if dtype.kind in "iu":
        return "int", "tl.int64" if dtype.kind == "i" else "tl.uint64", False
    raise TypeError(f"no Triton matmul for {dtype}")


def _fit(limit: int, size: int) -> int:
    """``limit``, or the smallest power of two (at least MIN_BLOCK) that holds ``size``."""
    return min(limit, max(MIN_BLOCK, 1 << max(int(size) - 1, 0).bit_length()))


def tiles(mode: str, dtype: np.dtype, n_rows: int, n_cols: int, n_k: int) -> Tiles:
    """The table's tiles for ``dtype`` in ``mode`` ("cuda" or "interpret"), shrunk to the
    product's sizes (a 33 x 40 product is one 64 x 64 tile, not a 128 x 128 one)."""
    top = TILES[(mode, accumulation(dtype)[0])]
    block_m, block_n = _fit(top.block_m, n_rows), _fit(top.block_n, n_cols)
    full = block_m * block_n == top.block_m * top.block_n
    warps = top.num_warps if full else min(top.num_warps, 4)  # a smaller tile, fewer warps
    return Tiles(block_m, block_n, _fit(top.block_k, n_k), top.group_m, warps)
