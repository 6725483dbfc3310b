"""The nki.isa instructions of the legacy set in their current forms, one
kernel per instruction: the destination first (dst=...), positional and
keyword calls, engine selectors, the destination's dtype choosing the
output type (the current API's instructions have no dtype= argument).
Signatures from the current nki.isa stub (aws-neuron-sdk
nki/api/nki/isa/__init__.py); arguments whose position changed between NKI
0.2 and 0.3 (iota's offset, affine_select's offset, dma_compute's scales)
are passed by keyword, so the calls mean the same in both.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
Every kernel here has a legacy twin of the same name in
kernels/nki/legacy/isa_ops.py computing the same values.
"""
import nki
import nki.isa as nisa
import nki.language as nl


def _sbuf_like(t, dtype=None):
    """An SBUF tensor of t's shape (and dtype unless given)."""
    return nl.ndarray(t.shape, dtype=t.dtype if dtype is None else dtype, buffer=nl.sbuf)


def _load(t):
    """t (an HBM tensor) copied into a new SBUF tensor."""
    sb = _sbuf_like(t)
    nisa.dma_copy(dst=sb, src=t)
    return sb


def _store(t):
    """A shared-HBM copy of the SBUF tensor t, to return."""
    out = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def isa_nc_matmul(stationary, moving):
    """nisa.nc_matmul: returns stationary.T @ moving (float32) for bfloat16
    stationary [K, M] and moving [K, N] (K, M <= 128, N <= 512). The PSUM
    result goes through nisa.tensor_copy to SBUF (DMA does not read PSUM
    since NKI 0.3, update guide)."""
    k, m = stationary.shape
    _, n = moving.shape
    s = _load(stationary)
    mv = _load(moving)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, s, mv)
    res = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    return _store(res)


@nki.jit
def isa_nc_transpose(big, small):
    """nisa.nc_transpose: returns (big.T, small.T) for big [128, 64] on the
    Tensor Engine (engine=nisa.engine.tensor; SBUF in, PSUM out, copied
    back with tensor_copy) and small [32, 16] on the Vector Engine
    (engine=nisa.vector_engine, the constant spelling; SBUF to SBUF)."""
    b = _load(big)
    s = _load(small)
    bt_ps = nl.ndarray((big.shape[1], big.shape[0]), dtype=big.dtype, buffer=nl.psum)
    nisa.nc_transpose(dst=bt_ps, data=b, engine=nisa.engine.tensor)
    bt = nl.ndarray((big.shape[1], big.shape[0]), dtype=big.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=bt, src=bt_ps)
    st = nl.ndarray((small.shape[1], small.shape[0]), dtype=small.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(st, s, engine=nisa.vector_engine)
    return _store(bt), _store(st)


@nki.jit
def isa_activation(x, bias_col, scale_col):
    """nisa.activation, dst = op(data * scale + bias), for [128, F] float32 x
    and [128, 1] bias and scale columns; returns
      0: tanh(0.5 * x + bias)          (scalar scale, vector bias, nl.tanh)
      1: (scale * x) ** 2              (vector scale, nl.square)
      2: scale * x + bias              (nl.copy, both vectors)"""
    xt = _load(x)
    b = _load(bias_col)
    s = _load(scale_col)
    r0 = _sbuf_like(xt)
    nisa.activation(dst=r0, op=nl.tanh, data=xt, bias=b, scale=0.5)
    r1 = _sbuf_like(xt)
    nisa.activation(r1, nl.square, xt, scale=s)
    r2 = _sbuf_like(xt)
    nisa.activation(dst=r2, op=nl.copy, data=xt, bias=b, scale=s)
    return _store(r0), _store(r1), _store(r2)


@nki.jit
def isa_tensor_tensor(x, y):
    """nisa.tensor_tensor: for [128, F] float32 x and y returns
    (x + y into a bfloat16 dst, x * y, maximum(x, y) on the Vector Engine,
    x - y on the GpSimd Engine)."""
    xt = _load(x)
    yt = _load(y)
    r0 = _sbuf_like(xt, nl.bfloat16)
    nisa.tensor_tensor(dst=r0, data1=xt, data2=yt, op=nl.add)
    r1 = _sbuf_like(xt)
    nisa.tensor_tensor(r1, xt, yt, nl.multiply)
    r2 = _sbuf_like(xt)
    nisa.tensor_tensor(dst=r2, data1=xt, data2=yt, op=nl.maximum, engine=nisa.engine.vector)
    r3 = _sbuf_like(xt)
    nisa.tensor_tensor(dst=r3, data1=xt, data2=yt, op=nl.subtract, engine=nisa.engine.gpsimd)
    return _store(r0), _store(r1), _store(r2), _store(r3)


@nki.jit
def isa_tensor_scalar(x, col):
    """nisa.tensor_scalar, dst = (data op0 operand0) op1 operand1: for
    [128, F] float32 x and a [128, 1] column returns
      0: x * 0.5 + 0.25                  (two scalar operands, Scalar Engine)
      1: col - x                         (vector operand0, reverse0=True)
      2: min(max(x, 0), 1)               (nl.maximum then nl.minimum)
      3: 4 - (x + 1)                     (reverse1=True)"""
    xt = _load(x)
    c = _load(col)
    r0 = _sbuf_like(xt)
    nisa.tensor_scalar(r0, xt, nl.multiply, 0.5, op1=nl.add, operand1=0.25, engine=nisa.engine.scalar)
    r1 = _sbuf_like(xt)
    nisa.tensor_scalar(dst=r1, data=xt, op0=nl.subtract, operand0=c, reverse0=True)
    r2 = _sbuf_like(xt)
    nisa.tensor_scalar(dst=r2, data=xt, op0=nl.maximum, operand0=0.0, op1=nl.minimum, operand1=1.0)
    r3 = _sbuf_like(xt)
    nisa.tensor_scalar(dst=r3, data=xt, op0=nl.add, operand0=1.0, op1=nl.subtract, operand1=4.0,
                       reverse1=True, engine=nisa.engine.vector)
    return _store(r0), _store(r1), _store(r2), _store(r3)


@nki.jit
def isa_tensor_reduce(x, x3):
    """nisa.tensor_reduce over the trailing free axes: for a [128, F] float32 x
    and a [128, A, B] float32 x3 returns
      0: the row sums of x, [128, 1]                  (nl.add, axis=1)
      1: -(the row maxima of x), [128, 1]             (nl.maximum, negate=True)
      2: the minimum over both free axes of x3, [128, 1, 1] (axis=(1, 2),
         keepdims=True: the dst keeps the reduced axes as size 1)"""
    xt = _load(x)
    x3t = _load(x3)
    r0 = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r0, op=nl.add, data=xt, axis=1, keepdims=True)
    r1 = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(r1, nl.maximum, xt, 1, negate=True, keepdims=True)
    r2 = nl.ndarray((x3.shape[0], 1, 1), dtype=x3.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r2, op=nl.minimum, data=x3t, axis=(1, 2), keepdims=True)
    return _store(r0), _store(r1), _store(r2)


@nki.jit
def isa_tensor_copy(x):
    """nisa.tensor_copy on each engine: for [128, F] float32 x returns
    (x on the Vector Engine, x cast to bfloat16 on the Scalar Engine,
    x on the GpSimd Engine); the dst's dtype is the output type."""
    xt = _load(x)
    r0 = _sbuf_like(xt)
    nisa.tensor_copy(dst=r0, src=xt, engine=nisa.engine.vector)
    r1 = _sbuf_like(xt, nl.bfloat16)
    nisa.tensor_copy(r1, xt, engine=nisa.scalar_engine)
    r2 = _sbuf_like(xt)
    nisa.tensor_copy(dst=r2, src=xt, engine=nisa.gpsimd_engine)
    return _store(r0), _store(r1), _store(r2)


@nki.jit
def isa_tensor_partition_reduce(x):
    """nisa.tensor_partition_reduce, a reduction across the partitions on the
    GpSimd Engine: for a [2, 128, F] float32 x returns (the column sums of
    x[0], nl.add; the column maxima of x[1], nl.maximum), each [1, F]. x[0]
    and x[1] index the HBM tensor with an int."""
    _, parts, free = x.shape
    outs = []
    for i, op in enumerate((nl.add, nl.maximum)):
        t = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        r = nl.ndarray((1, free), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_partition_reduce(dst=r, op=op, data=t)
        outs.append(_store(r))
    return outs[0], outs[1]


@nki.jit
def isa_tensor_tensor_scan(a, b):
    """nisa.tensor_tensor_scan with scalar initial values: for [128, T]
    float32 a and b returns
      0: h[:, t] = a[:, t] * h[:, t-1] + b[:, t] from 0.0 (nl.multiply, nl.add)
      1: g[:, t] = max(a[:, t] + g[:, t-1], b[:, t]) from 0.5 (nl.add, nl.maximum)"""
    at = _load(a)
    bt = _load(b)
    r0 = _sbuf_like(at)
    nisa.tensor_tensor_scan(dst=r0, data0=at, data1=bt, initial=0.0, op0=nl.multiply, op1=nl.add)
    r1 = _sbuf_like(at)
    nisa.tensor_tensor_scan(r1, at, bt, 0.5, nl.add, nl.maximum)
    return _store(r0), _store(r1)


@nki.jit
def isa_memset():
    """nisa.memset, no inputs: returns a [128, 256] float32 tile of 0.75, a
    [64, 128] bfloat16 tile of -1.5 and a [128, 32] int32 tile of 7 (on the
    GpSimd Engine; an int value, since NKI 0.3 requires the value's type to
    match the dst's)."""
    r0 = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=r0, value=0.75)
    r1 = nl.ndarray((64, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.memset(r1, -1.5)
    r2 = nl.ndarray((128, 32), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=r2, value=7, engine=nisa.engine.gpsimd)
    return _store(r0), _store(r1), _store(r2)


@nki.jit
def isa_iota():
    """nisa.iota, no inputs: value = offset + partition * channel_multiplier +
    sum of index * step over the pattern ([[step, num], ...]):
      0: [1, 512] int32    j                 (pattern [[1, 512]])
      1: [128, 1] float32  3 * i + 5         (channel_multiplier=3, offset=5)
      2: [128, 64] int32   64 * i + j
      3: [1, 64] int32     100 - j           (a negative step)"""
    r0 = nl.ndarray((1, 512), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=r0, pattern=[[1, 512]], offset=0)
    r1 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.iota(dst=r1, pattern=[[0, 1]], offset=5, channel_multiplier=3)
    r2 = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=r2, pattern=[[1, 64]], offset=0, channel_multiplier=64)
    r3 = nl.ndarray((1, 64), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=r3, pattern=[[-1, 64]], offset=100)
    return _store(r0), _store(r1), _store(r2), _store(r3)


@nki.jit
def isa_affine_select(x):
    """nisa.affine_select, dst = cmp_op(offset + partition * channel_multiplier
    + sum index * step, 0) ? on_true_tile : on_false_value: for a [128, 128]
    float32 x returns (x where column <= row else -9984.0: p - f >= 0;
    x where column - 2 * row + 16 > 0 else 0.0)."""
    xt = _load(x)
    r0 = _sbuf_like(xt)
    nisa.affine_select(dst=r0, pattern=[[-1, 128]], channel_multiplier=1, on_true_tile=xt,
                       on_false_value=-9984.0, cmp_op=nl.greater_equal, offset=0)
    r1 = _sbuf_like(xt)
    nisa.affine_select(dst=r1, pattern=[[1, 128]], channel_multiplier=-2, on_true_tile=xt,
                       on_false_value=0.0, cmp_op=nl.greater, offset=16)
    return _store(r0), _store(r1)


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
    fmax = 512   # nl.tile_size.bn_stats_fmax, as a Python int for slices
    assert fmax <= nl.tile_size.bn_stats_fmax
    xt = _load(x)
    stats = nl.ndarray((parts, 6 * (free // fmax)), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(free // fmax):
        nisa.bn_stats(dst=stats[:, nl.ds(6 * c, 6)], data=xt[:, nl.ds(c * fmax, fmax)])
    mean_var = nl.ndarray((parts, 2), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_aggr(dst=mean_var, data=stats)
    stats_out = nl.ndarray((parts, 6), dtype=nl.float32, buffer=nl.shared_hbm)
    mean_out = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    var_out = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=stats_out, src=stats[:, 0:6])
    nisa.dma_copy(dst=mean_out, src=mean_var[:, 0:1])
    nisa.dma_copy(dst=var_out, src=mean_var[:, 1:2])
    return stats_out, mean_out, var_out


@nki.jit
def isa_reciprocal(p):
    """For a [128, F] float32 p with no zeros returns (1 / p from
    nisa.reciprocal on the Vector Engine, 1 / p from nisa.activation with
    op=nl.reciprocal on the Scalar Engine): both the correctly rounded
    reciprocal."""
    pt = _load(p)
    r0 = _sbuf_like(pt)
    nisa.reciprocal(dst=r0, data=pt)
    r1 = _sbuf_like(pt)
    nisa.activation(dst=r1, op=nl.reciprocal, data=pt)
    return _store(r0), _store(r1)


@nki.jit
def isa_dma_copy(x):
    """nisa.dma_copy (dst first): for a [256, F] float32 x returns (x copied
    HBM to HBM without DGE, dge_mode=nisa.dge_mode.none; its first 128 rows
    copied HBM to SBUF by software DGE and back; x cast to bfloat16 by an
    HBM-to-HBM copy, through float32 as the docstring says)."""
    rows, cols = x.shape
    whole = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=whole, src=x, dge_mode=nisa.dge_mode.none)
    staged = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(staged, x[0:128, :], dge_mode=nisa.dge_mode.swdge, oob_mode=nisa.oob_mode.error)
    top = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=top, src=staged)
    as_bf16 = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=as_bf16, src=x)
    return whole, top, as_bf16


@nki.jit
def isa_dma_transpose(x, y):
    """nisa.dma_transpose (2-D, axes=(1, 0)): returns (x.T, y.T) for a
    [64, 128] float32 x transposed from HBM into SBUF and a [128, 32]
    float32 y copied to SBUF first and transposed SBUF to SBUF."""
    xt = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=xt, src=x, axes=(1, 0))
    ys = _load(y)
    yt = nl.ndarray((y.shape[1], y.shape[0]), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(yt, ys)
    return _store(xt), _store(yt)
