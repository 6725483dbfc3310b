"""Legacy-API (neuronxcc.nki) kernels of nkisim's end-to-end tests.

Written here for these tests. narwhal traces this file (its imports are
the ones narwhal's front end provides); the test files beside it import it
with nkisim's shadow neuronxcc package on PYTHONPATH and call the kernels
as NKI users do.
"""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

BLOCK = 128  # rows and columns of one SPMD program's block


@nki.jit
def add_into(a, b, out):
    """out = a + b for [R, C] float32 tensors, R = 128 * grid[0] and
    C = 128 * grid[1]: program (i, j) of a 2-D grid adds the block at rows
    128*i, columns 128*j. The output is a parameter (older kernels' style)."""
    i = nl.program_id(0)
    j = nl.program_id(1)
    rows = i * BLOCK + nl.arange(BLOCK)[:, None]
    cols = j * BLOCK + nl.arange(BLOCK)[None, :]
    a_tile = nl.load(a[rows, cols])
    b_tile = nl.load(b[rows, cols])
    nl.store(out[rows, cols], value=nl.add(a_tile, b_tile))


@nki.jit
def add_rows(a, b):
    """Returns a + b for [R, C] tensors (R a multiple of 128, C <= 512), one
    128-row tile per loop iteration; asserts that the shapes agree."""
    assert a.shape == b.shape, "a and b differ in shape"
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // nl.tile_size.pmax):
        rows = nl.ds(r * nl.tile_size.pmax, nl.tile_size.pmax)
        nl.store(out[rows, :], nl.add(nl.load(a[rows, :]), nl.load(b[rows, :])))
    return out


@nki.jit
def matmul(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M], rhs [K, N] with
    K a multiple of 128, M <= 128 and N <= 512: the products of the K tiles
    accumulate in one PSUM tile."""
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // nl.tile_size.pmax):
        kk = nl.ds(k * nl.tile_size.pmax, nl.tile_size.pmax)
        acc += nisa.nc_matmul(nl.load(lhsT[kk, :]), nl.load(rhs[kk, :]))
    nl.store(out, value=nl.copy(acc, dtype=nl.float32))
    return out


@nki.jit
def row_max_min(x):
    """Returns (max over each row, min over each row) of x [P <= 128, F],
    each [P, 1]: a tuple of two tensors."""
    tile = nl.load(x)
    hi = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.shared_hbm)
    lo = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(hi, nl.max(tile, axis=1, keepdims=True))
    nl.store(lo, nl.min(tile, axis=1, keepdims=True))
    return hi, lo


@nki.jit
def scaled_op(x, y, alpha=1.0, op=nl.add):
    """Returns op(alpha * x, y) for [P <= 128, F] tensors: alpha a Python
    float and op an nl binary operation, both given by the caller (--arg)."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, op(nl.multiply(nl.load(x), alpha), nl.load(y)))
    return out


_ = np  # numpy is imported as kernel files do (np.add is a valid op= value)
