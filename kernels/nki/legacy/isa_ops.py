"""Each nki.isa instruction on its own, one kernel per instruction, with the
argument forms its API page documents (general/nki/api nki.isa).

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.typing import tensor


def _out_like(t, dtype=None):
    """A shared HBM tensor of t's shape (and dtype unless given)."""
    return nl.ndarray(t.shape, dtype=t.dtype if dtype is None else dtype, buffer=nl.shared_hbm)


@nki.jit
def isa_nc_matmul(stationary, moving):
    """nisa.nc_matmul: returns stationary.T @ moving (float32) for bfloat16
    stationary [K, M] and moving [K, N] (K, M <= 128, N <= 512). The PSUM
    result is stored directly: nl.store copies a PSUM tile through SBUF."""
    k, m = stationary.shape
    _, n = moving.shape
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.load(stationary)
    mv = nl.load(moving)
    nl.store(out, value=nisa.nc_matmul(s, mv))
    return out


@nki.jit
def isa_nc_transpose(big, small):
    """nisa.nc_transpose: returns (big.T, small.T) for big [128, 64] on the
    Tensor Engine (PSUM result, copied with nl.copy) and small [32, 16] on
    the Vector Engine."""
    b = nl.load(big)
    s = nl.load(small)
    bt = nl.copy(nisa.nc_transpose(b, engine=nisa.tensor_engine))
    st = nisa.nc_transpose(s, engine=nisa.vector_engine)
    big_out = nl.ndarray((big.shape[1], big.shape[0]), dtype=big.dtype, buffer=nl.shared_hbm)
    small_out = nl.ndarray((small.shape[1], small.shape[0]), dtype=small.dtype, buffer=nl.shared_hbm)
    nl.store(big_out, value=bt)
    nl.store(small_out, value=st)
    return big_out, small_out


@nki.jit
def isa_activation(x, bias_col, scale_col):
    """nisa.activation, out = f(data * scale + bias), for [128, F] float32 x
    and [128, 1] bias and scale columns; returns
      0: tanh(0.5 * x + bias)          (scalar scale, vector bias, np.tanh)
      1: (scale * x) ** 2              (vector scale, nl.square)
      2: scale * x + bias              (identity, np.copy, dtype=float32)"""
    xt = nl.load(x)
    b = nl.load(bias_col)
    s = nl.load(scale_col)
    r0 = nisa.activation(op=np.tanh, data=xt, bias=b, scale=0.5)
    r1 = nisa.activation(op=nl.square, data=xt, scale=s)
    r2 = nisa.activation(op=np.copy, data=xt, bias=b, scale=s, dtype=nl.float32)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2))
    for o, r in zip(outs, (r0, r1, r2)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_tensor(x, y):
    """nisa.tensor_tensor: for [128, F] float32 x and y returns
    (x + y with np.add and dtype=bfloat16, x * y with nl.multiply,
    maximum(x, y) with nl.maximum, x - y with np.subtract)."""
    xt = nl.load(x)
    yt = nl.load(y)
    r0 = nisa.tensor_tensor(xt, yt, op=np.add, dtype=nl.bfloat16)
    r1 = nisa.tensor_tensor(xt, yt, op=nl.multiply)
    r2 = nisa.tensor_tensor(data1=xt, data2=yt, op=nl.maximum)
    r3 = nisa.tensor_tensor(xt, yt, np.subtract)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2), _out_like(r3))
    for o, r in zip(outs, (r0, r1, r2, r3)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_scalar(x, col):
    """nisa.tensor_scalar, (data op0 operand0) op1 operand1: for [128, F]
    float32 x and a [128, 1] column returns
      0: x * 0.5 + 0.25                  (two scalar operands)
      1: col - x                         (vector operand0, reverse0=True)
      2: min(max(x, 0), 1)               (nl.maximum then nl.minimum)
      3: 4 - (x + 1)                     (reverse1=True)"""
    xt = nl.load(x)
    c = nl.load(col)
    r0 = nisa.tensor_scalar(xt, np.multiply, 0.5, op1=np.add, operand1=0.25)
    r1 = nisa.tensor_scalar(xt, op0=np.subtract, operand0=c, reverse0=True)
    r2 = nisa.tensor_scalar(xt, nl.maximum, 0.0, op1=nl.minimum, operand1=1.0)
    r3 = nisa.tensor_scalar(data=xt, op0=np.add, operand0=1.0, op1=np.subtract, operand1=4.0,
                            reverse1=True)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2), _out_like(r3))
    for o, r in zip(outs, (r0, r1, r2, r3)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_reduce(x, x3):
    """nisa.tensor_reduce over free axes: for a [128, F] float32 x and a
    [128, A, B] float32 x3 returns
      0: the row sums of x, [128, 1]            (np.add, axis=[1])
      1: -(the row maxima of x), [128, 1]       (nl.maximum, negate=True)
      2: the minimum over both free axes of x3, [128, 1, 1] (axis=[1, 2])"""
    xt = nl.load(x)
    x3t = nl.load(x3)
    r0 = nisa.tensor_reduce(np.add, xt, axis=[1], keepdims=True)
    r1 = nisa.tensor_reduce(nl.maximum, xt, axis=[1], negate=True, keepdims=True)
    r2 = nisa.tensor_reduce(np.minimum, x3t, axis=[1, 2], keepdims=True)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2))
    for o, r in zip(outs, (r0, r1, r2)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_copy(x):
    """nisa.tensor_copy on each engine: for [128, F] float32 x returns
    (x on the Vector Engine, x cast to bfloat16 on the Scalar Engine,
    x on the GpSimd Engine)."""
    xt = nl.load(x)
    r0 = nisa.tensor_copy(xt, engine=nisa.vector_engine)
    r1 = nisa.tensor_copy(xt, dtype=nl.bfloat16, engine=nisa.scalar_engine)
    r2 = nisa.tensor_copy(xt, engine=nisa.gpsimd_engine)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2))
    for o, r in zip(outs, (r0, r1, r2)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_partition_reduce(x):
    """nisa.tensor_partition_reduce, a reduction across the partitions: for
    a [2, 128, F] float32 x returns (the column sums of x[0], np.add; the
    column maxima of x[1], nl.maximum), each [1, F]. x[0] and x[1] index the
    HBM tensor with an int."""
    r0 = nisa.tensor_partition_reduce(np.add, nl.load(x[0]))
    r1 = nisa.tensor_partition_reduce(nl.maximum, nl.load(x[1]))
    outs = (_out_like(r0), _out_like(r1))
    for o, r in zip(outs, (r0, r1)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_tensor_tensor_scan(a, b):
    """nisa.tensor_tensor_scan with scalar initial values: for [128, T]
    float32 a and b returns
      0: h[:, t] = a[:, t] * h[:, t-1] + b[:, t] from 0.0 (np.multiply, np.add)
      1: g[:, t] = max(a[:, t] + g[:, t-1], b[:, t]) from 0.5 (np.add, np.maximum)"""
    at = nl.load(a)
    bt = nl.load(b)
    r0 = nisa.tensor_tensor_scan(at, bt, initial=0.0, op0=np.multiply, op1=np.add)
    r1 = nisa.tensor_tensor_scan(at, bt, 0.5, np.add, np.maximum)
    outs = (_out_like(r0), _out_like(r1))
    for o, r in zip(outs, (r0, r1)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_memset():
    """nisa.memset, no inputs: returns a [128, 256] float32 tile of 0.75, a
    [64, 128] bfloat16 tile of -1.5 and a [128, 32] int32 tile of 7 (the
    last on the GpSimd Engine)."""
    r0 = nisa.memset(shape=(128, 256), value=0.75, dtype=nl.float32)
    r1 = nisa.memset((64, 128), -1.5, nl.bfloat16)
    r2 = nisa.memset(shape=(128, 32), value=7, dtype=nl.int32, engine=nisa.gpsimd_engine)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2))
    for o, r in zip(outs, (r0, r1, r2)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_iota():
    """nisa.iota, no inputs: constants from affine expressions of nl.arange,
      0: [1, 512] int32    j                 (arange(512)[None, :])
      1: [128, 1] float32  3 * i + 5         (arange(128)[:, None])
      2: [128, 64] int32   64 * i + j        (a partition and a free index)
      3: [1, 64] int32     100 - j           (a negative coefficient)"""
    i_row = nl.arange(512)[None, :]
    i_col = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    r0 = nisa.iota(i_row, dtype=nl.int32)
    r1 = nisa.iota(i_col * 3 + 5, dtype=nl.float32)
    r2 = nisa.iota(i_col * 64 + i_f, dtype=nl.int32)
    r3 = nisa.iota(100 + i_f * -1, dtype=nl.int32)
    outs = (_out_like(r0), _out_like(r1), _out_like(r2), _out_like(r3))
    for o, r in zip(outs, (r0, r1, r2, r3)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_affine_select(x):
    """nisa.affine_select, output = pred ? on_true_tile : on_false_value, the
    predicate an affine comparison of nl.mgrid indices: for a [128, 128]
    float32 x returns (x where column <= row else -9984.0; x where
    column - 2 * row + 16 > 0 else 0.0)."""
    i_p, i_f = nl.mgrid[0:128, 0:128]
    xt = nl.load(x)
    r0 = nisa.affine_select(pred=(i_p >= i_f), on_true_tile=xt[i_p, i_f], on_false_value=-9984.0)
    r1 = nisa.affine_select((i_f - 2 * i_p + 16 > 0), xt[i_p, i_f], 0.0)
    outs = (_out_like(r0), _out_like(r1))
    for o, r in zip(outs, (r0, r1)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_bn_stats_aggr(x):
    """nisa.bn_stats and nisa.bn_aggr: for a [128, 1024] float32 x returns
      0: the [128, 6] statistics of columns 0..511: count, mean and
         variance * count of the even-indexed elements, then of the odd ones;
      1: the [128, 1] row means of x;
      2: the [128, 1] row (population) variances of x,
    aggregating two bn_stats (bn_stats_fmax = 512 columns each) written side
    by side into one [128, 12] tile."""
    parts, free = x.shape
    fmax = nl.tile_size.bn_stats_fmax
    xt: tensor[128, 1024] = nl.load(x)
    stats = nl.ndarray((parts, 6 * (free // fmax)), dtype=nl.float32)
    for c in nl.affine_range(free // fmax):
        stats[:, nl.ds(6 * c, 6)] = nisa.bn_stats(xt[:, nl.ds(c * fmax, fmax)], dtype=nl.float32)
    mean_var: tensor[128, 2] = nisa.bn_aggr(stats)
    stats_out = nl.ndarray((parts, 6), dtype=nl.float32, buffer=nl.shared_hbm)
    mean_out = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    var_out = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(stats_out, value=stats[:, 0:6])
    nl.store(mean_out, value=mean_var[:, 0:1])
    nl.store(var_out, value=mean_var[:, 1:2])
    return stats_out, mean_out, var_out


@nki.jit
def isa_reciprocal(p):
    """nisa.reciprocal: for a [128, F] float32 p with no zeros returns
    (1 / p with the default engine, 1 / p on the Vector Engine)."""
    pt = nl.load(p)
    r0 = nisa.reciprocal(pt)
    r1 = nisa.reciprocal(pt, engine=nisa.vector_engine)
    outs = (_out_like(r0), _out_like(r1))
    for o, r in zip(outs, (r0, r1)):
        nl.store(o, value=r)
    return outs


@nki.jit
def isa_dma_copy(x):
    """nisa.dma_copy (keyword arguments dst, src): for a [256, F] float32 x
    returns (x copied HBM to HBM; its first 128 rows copied HBM to SBUF with
    dma_copy and stored; x cast to bfloat16 by an HBM-to-HBM dma_copy)."""
    rows, cols = x.shape
    whole = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=whole, src=x)
    top = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    staged = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=staged, src=x[0:128, :])
    nl.store(top, value=staged)
    as_bf16 = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=as_bf16, src=x)
    return whole, top, as_bf16


@nki.jit
def isa_dma_transpose(x, y):
    """nisa.dma_transpose (2-D: permutation [1, 0]): returns (x.T, y.T) for a
    [64, 128] float32 x transposed from HBM into SBUF and a [128, 32] float32
    y loaded first and transposed SBUF to SBUF."""
    xt = nisa.dma_transpose(x)
    yt = nisa.dma_transpose(nl.load(y))
    x_out = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
    y_out = nl.ndarray((y.shape[1], y.shape[0]), dtype=y.dtype, buffer=nl.shared_hbm)
    nl.store(x_out, value=xt)
    nl.store(y_out, value=yt)
    return x_out, y_out
