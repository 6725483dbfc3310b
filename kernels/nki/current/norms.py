"""Normalizations in the current `nki` API: RMSNorm with
nisa.activation_reduce (squares and their row sums in one instruction) and
an rsqrt activation, LayerNorm with nisa.bn_stats / nisa.bn_aggr, and a
row softmax whose exponentials and row sums come from one nisa.activation
(bias = -max, reduce registers read out into reduce_res). Row counts need
not be multiples of 128: the last row tile is partial, bounded with min()
(the migration guide's replacement of masks).

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py
(the same references as the legacy rmsnorm, layernorm and softmax).
"""
import nki
import nki.isa as nisa
import nki.language as nl

P = 128


def _row_broadcast(vec, parts):
    """A [parts, n] SBUF tile each partition of which holds the [n] or
    [1, n] HBM tensor vec: a DMA whose pattern steps 0 along the
    partitions."""
    n = vec.shape[-1]
    t = nl.ndarray((parts, n), dtype=vec.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=vec.ap(pattern=[[0, parts], [1, n]], offset=0))
    return t


@nki.jit
def rmsnorm(a_tensor, g_tensor, eps=1e-6):
    """For [R, H] float32 a and [H] float32 g returns a / sqrt(mean(a**2 over
    the row) + eps) * g. Per row tile: the row sums of squares from one
    activation_reduce (op=nl.square), rstd = rsqrt(sum * (1 / H) + eps) from
    one activation (scale and an eps bias column), a * rstd by
    tensor_scalar, * g by tensor_tensor with g copied to every partition."""
    rows, h = a_tensor.shape
    out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    g = _row_broadcast(g_tensor, P)
    eps_col = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=eps_col, value=float(eps))
    for i in range((rows + P - 1) // P):
        r0 = i * P
        n = min(rows, r0 + P) - r0
        x = nl.ndarray((P, h), dtype=a_tensor.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x[0:n, :], src=a_tensor[r0:r0 + n, :])
        sq = nl.ndarray((P, h), dtype=nl.float32, buffer=nl.sbuf)
        ss = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation_reduce(dst=sq[0:n, :], op=nl.square, data=x[0:n, :], reduce_op=nl.add, reduce_res=ss[0:n, :])
        rstd = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd[0:n, :], op=nl.rsqrt, data=ss[0:n, :], bias=eps_col[0:n, :], scale=1.0 / h)
        y = nl.ndarray((P, h), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y[0:n, :], data=x[0:n, :], op0=nl.multiply, operand0=rstd[0:n, :])
        nisa.tensor_tensor(dst=y[0:n, :], data1=y[0:n, :], data2=g[0:n, :], op=nl.multiply)
        nisa.dma_copy(dst=out[r0:r0 + n, :], src=y[0:n, :])
    return out


@nki.jit
def layernorm_bn_stats(x, gamma, beta, eps=1e-5):
    """For [R, H] float32 x (R a multiple of 128) and [1, H] gamma, beta
    returns (x - mean) / sqrt(var + eps) * gamma + beta per row: bn_stats on
    each bn_stats_fmax-column chunk into one stats tile, bn_aggr into
    [mean, var], rstd = rsqrt(var + eps) by activation, (x - mean) * rstd
    by one two-operator tensor_scalar, then * gamma and + beta by
    tensor_tensor (gamma, beta copied to every partition)."""
    rows, h = x.shape
    fmax = 512   # nl.tile_size.bn_stats_fmax, as a Python int for slices
    assert fmax <= nl.tile_size.bn_stats_fmax
    chunks = (h + fmax - 1) // fmax
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    g = _row_broadcast(gamma, P)
    b = _row_broadcast(beta, P)
    eps_col = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=eps_col, value=float(eps))
    for i in nl.affine_range(rows // P):
        xt = nl.ndarray((P, h), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[i * P:(i + 1) * P, :])
        stats = nl.ndarray((P, 6 * chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(chunks):
            width = min(h, (c + 1) * fmax) - c * fmax
            nisa.bn_stats(dst=stats[:, 6 * c:6 * c + 6], data=xt[:, c * fmax:c * fmax + width])
        mv = nl.ndarray((P, 2), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mv, data=stats)
        rstd = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=mv[:, 1:2], bias=eps_col)
        y = nl.ndarray((P, h), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=xt, op0=nl.subtract, operand0=mv[:, 0:1], op1=nl.multiply, operand1=rstd)
        nisa.tensor_tensor(dst=y, data1=y, data2=g, op=nl.multiply)
        nisa.tensor_tensor(dst=y, data1=y, data2=b, op=nl.add)
        nisa.dma_copy(dst=out[i * P:(i + 1) * P, :], src=y)
    return out


@nki.jit
def softmax_rows(x):
    """For [R, C] float32 x returns the row softmax exp(x - max) / sum. Per
    row tile (the last one partial): -max by tensor_reduce (negate=True),
    exp(x - max) and its row sums by one activation (bias = -max,
    reduce_cmd=reset_reduce, reduce_res), 1 / sum by nisa.reciprocal, the
    product by tensor_scalar."""
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range((rows + P - 1) // P):
        r0 = i * P
        n = min(rows, r0 + P) - r0
        t = nl.ndarray((P, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:n, :], src=x[r0:r0 + n, :])
        neg_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max[0:n, :], op=nl.maximum, data=t[0:n, :], axis=1, negate=True, keepdims=True)
        e = nl.ndarray((P, cols), dtype=nl.float32, buffer=nl.sbuf)
        total = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e[0:n, :], op=nl.exp, data=t[0:n, :], bias=neg_max[0:n, :], reduce_op=nl.add,
                        reduce_res=total[0:n, :], reduce_cmd=nisa.reduce_cmd.reset_reduce)
        inv = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv[0:n, :], data=total[0:n, :])
        nisa.tensor_scalar(dst=e[0:n, :], data=e[0:n, :], op0=nl.multiply, operand0=inv[0:n, :])
        nisa.dma_copy(dst=out[r0:r0 + n, :], src=e[0:n, :])
    return out
