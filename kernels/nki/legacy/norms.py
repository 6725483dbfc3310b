"""Normalizations: RMSNorm and LayerNorm with masks for a row count that is
not a multiple of 128 and partition broadcasts of the weights, LayerNorm
with nisa.bn_stats/bn_aggr, and softmax with nl functions and with ISA
instructions.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
In the masked kernels every API that touches a partial tile takes the
mask, so rows past the tensor are neither read nor computed.
"""
import math

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

PARTS = nl.tile_size.pmax


@nki.jit
def rmsnorm(a_tensor, g_tensor, eps=1e-6):
    """RMSNorm of each row: out[i, :] = a[i, :] / sqrt(mean(a[i, :]**2) + eps)
    * g for an [N, D] float32 a (N need not be a multiple of 128) and a [D]
    weight g. g is reshaped to [1, D] on HBM, loaded once and broadcast
    across the partitions with .broadcast_to."""
    n_rows, d = a_tensor.shape
    out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    g = nl.load(g_tensor.reshape((1, d)))
    g_rows = g.broadcast_to((PARTS, d))
    i_f = nl.arange(d)[None, :]
    for r in nl.affine_range(math.ceil(n_rows / PARTS)):
        i_p = r * PARTS + nl.arange(PARTS)[:, None]
        live = i_p < n_rows
        a = nl.load(a_tensor[i_p, i_f], mask=live)
        sq = nl.square(a, mask=live)
        ss = nl.sum(sq, axis=[1], keepdims=True, mask=live)
        ms = nl.multiply(ss, 1.0 / d, mask=live)
        inv = nl.rsqrt(nl.add(ms, eps, mask=live), mask=live)
        y = nl.multiply(nl.multiply(a, inv, mask=live), g_rows, mask=live)
        nl.store(out[i_p, i_f], value=y, mask=live)
    return out


@nki.jit
def layernorm_bn_stats(x, gamma, beta, eps=1e-5):
    """LayerNorm of each row: out = (x - mean) / sqrt(var + eps) * gamma + beta
    (population variance) for an [N, D] float32 x, N a multiple of 128 and D
    a multiple of nl.tile_size.bn_stats_fmax, with [1, D] gamma and beta.
    Mean and variance come from one nisa.bn_stats per bn_stats_fmax columns
    (written side by side into one statistics tile) and one nisa.bn_aggr;
    gamma and beta are broadcast across the partitions with
    nl.broadcast_to."""
    n_rows, d = x.shape
    fmax = nl.tile_size.bn_stats_fmax
    n_chunks = d // fmax
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    gamma_rows = nl.broadcast_to(nl.load(gamma), shape=(PARTS, d))
    beta_rows = nl.broadcast_to(nl.load(beta), shape=(PARTS, d))
    for r in nl.affine_range(n_rows // PARTS):
        xt = nl.load(x[nl.ds(r * PARTS, PARTS), :])
        stats = nl.ndarray((PARTS, 6 * n_chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(n_chunks):
            stats[:, nl.ds(c * 6, 6)] = nisa.bn_stats(xt[:, nl.ds(c * fmax, fmax)], dtype=nl.float32)
        mean_var = nisa.bn_aggr(stats)
        mean = mean_var[:, 0:1]
        var = mean_var[:, 1:2]
        rstd = nl.rsqrt(nl.add(var, eps))
        centered = nisa.tensor_scalar(xt, op0=np.subtract, operand0=mean,
                                      op1=np.multiply, operand1=rstd)
        y = nl.add(nl.multiply(centered, gamma_rows), beta_rows)
        nl.store(out[nl.ds(r * PARTS, PARTS), :], value=y)
    return out


@nki.jit
def layernorm_masked(x, gamma, beta, eps=1e-5):
    """LayerNorm of each row, out = (x - mean) / sqrt(var + eps) * gamma + beta
    (population variance), for an [N, D] float32 x with N not a multiple of
    128 and [D] gamma and beta: nl.mean with keepdims=True, the variance as
    the mean of the squared deviations, every step masked to the rows that
    exist; gamma and beta reshaped to [1, D] and broadcast with .broadcast_to."""
    n_rows, d = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    g_rows = nl.load(gamma.reshape((1, d))).broadcast_to((PARTS, d))
    b_rows = nl.load(beta.reshape((1, d))).broadcast_to((PARTS, d))
    i_f = nl.arange(d)[None, :]
    for r in nl.affine_range(math.ceil(n_rows / PARTS)):
        i_p = r * PARTS + nl.arange(PARTS)[:, None]
        live = i_p < n_rows
        xt = nl.load(x[i_p, i_f], mask=live)
        mean = nl.mean(xt, axis=[1], keepdims=True, mask=live)
        dev = nl.subtract(xt, mean, mask=live)
        var = nl.mean(nl.square(dev, mask=live), axis=[1], keepdims=True, mask=live)
        rstd = nl.rsqrt(nl.add(var, eps, mask=live), mask=live)
        y = nl.multiply(dev, rstd, mask=live)
        y = nl.add(nl.multiply(y, g_rows, mask=live), b_rows, mask=live)
        nl.store(out[i_p, i_f], value=y, mask=live)
    return out


def softmax_rows(x):
    """Row softmax, out[i, j] = exp(x[i, j] - max_j x[i, :]) / sum_j exp(...),
    for an [N, D] float32 x with N not a multiple of 128, with nl.max,
    nl.exp, nl.sum (keepdims=True) and nl.divide, masked to the rows that
    exist. Wrapped as nki.jit(softmax_rows) below."""
    n_rows, d = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(d)[None, :]
    for r in nl.affine_range(math.ceil(n_rows / PARTS)):
        i_p = r * PARTS + nl.arange(PARTS)[:, None]
        live = i_p < n_rows
        xt = nl.load(x[i_p, i_f], mask=live)
        row_max = nl.max(xt, axis=1, keepdims=True, mask=live)
        e = nl.exp(nl.subtract(xt, row_max, mask=live), mask=live)
        total = nl.sum(e, axis=1, keepdims=True, mask=live)
        nl.store(out[i_p, i_f], value=nl.divide(e, total, mask=live), mask=live)
    return out


softmax_rows = nki.jit(softmax_rows)


@nki.jit
def softmax_isa(x):
    """Row softmax of an [N, D] float32 x (N a multiple of 128) with ISA
    instructions: nisa.tensor_reduce of the maximum with negate=True gives
    -max, nisa.activation(exp) with that as its bias gives exp(x - max),
    nisa.tensor_reduce adds the row, nisa.reciprocal inverts it and
    nisa.tensor_scalar multiplies by it."""
    n_rows, d = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(n_rows // PARTS):
        xt = nl.load(x[r * PARTS:(r + 1) * PARTS, :])
        neg_max = nisa.tensor_reduce(np.maximum, xt, axis=[1], negate=True, keepdims=True)
        e = nisa.activation(op=nl.exp, data=xt, bias=neg_max)
        total = nisa.tensor_reduce(np.add, e, axis=[1], keepdims=True)
        inv = nisa.reciprocal(total)
        nl.store(out[r * PARTS:(r + 1) * PARTS, :], value=nisa.tensor_scalar(e, np.multiply, inv))
    return out
