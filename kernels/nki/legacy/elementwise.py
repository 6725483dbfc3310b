"""Element-wise kernels: nl arithmetic, math and activation functions, tile
operators, comparisons and nl.where, the documented type promotion, numpy
ufuncs as ISA operators, .view, masks on every API of a chain, and the
tensor creation functions on every buffer.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import math

import numpy as np
from neuronxcc import nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

PARTS = 128


def _row_tiles(tensor):
    """The number of 128-row tiles covering tensor's first dimension."""
    return math.ceil(tensor.shape[0] / PARTS)


@nki.jit
def binary_arith(x, y, sum_out, diff_out, prod_out, quot_out, max_out, min_out):
    """For [R, C] float32 x and y (R a multiple of 128, y nonzero), writes
    sum_out = x + y, diff_out = x - y, prod_out = x * y, quot_out = x / y,
    max_out = maximum(x, y), min_out = minimum(x, y) with the nl functions.
    Outputs are parameters, named so a mismatch names the operation."""
    for r in nl.affine_range(x.shape[0] // PARTS):
        rows = nl.ds(r * PARTS, PARTS)
        xt = nl.load(x[rows, :])
        yt = nl.load(y[rows, :])
        nl.store(sum_out[rows, :], value=nl.add(xt, yt))
        nl.store(diff_out[rows, :], value=nl.subtract(xt, yt))
        nl.store(prod_out[rows, :], value=nl.multiply(xt, yt))
        nl.store(quot_out[rows, :], value=nl.divide(xt, yt))
        nl.store(max_out[rows, :], value=nl.maximum(xt, yt))
        nl.store(min_out[rows, :], value=nl.minimum(xt, yt))


@nki.jit
def tile_operators(x, y):
    """For [128, C] float32 x and y (y nonzero) returns, with Python operators
    on tiles: (x + y, x - y, x * y, x / y, -x, x * 0.5 + 1.0, 2.0 - x)."""
    xt = nl.load(x)
    yt = nl.load(y)
    results = (xt + yt, xt - yt, xt * yt, xt / yt, -xt, xt * 0.5 + 1.0, 2.0 - xt)
    outs = []
    for t in results:
        o = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        outs.append(o)
    return tuple(outs)


@nki.jit
def unary_math(x, p, exp_out, log_out, sqrt_out, rsqrt_out, square_out, abs_out,
               neg_out, recip_out):
    """For [128, C] float32 x and positive p writes exp_out = exp(x),
    log_out = log(p), sqrt_out = sqrt(p), rsqrt_out = 1 / sqrt(p),
    square_out = x ** 2, abs_out = |x|, neg_out = -x, recip_out = 1 / p."""
    xt = nl.load(x)
    pt = nl.load(p)
    nl.store(exp_out, value=nl.exp(xt))
    nl.store(log_out, value=nl.log(pt))
    nl.store(sqrt_out, value=nl.sqrt(pt))
    nl.store(rsqrt_out, value=nl.rsqrt(pt))
    nl.store(square_out, value=nl.square(xt))
    nl.store(abs_out, value=nl.abs(xt))
    nl.store(neg_out, value=nl.negative(xt))
    nl.store(recip_out, value=nl.reciprocal(pt))


@nki.jit
def activation_funcs(x, tanh_out, sigmoid_out, relu_out, gelu_out, silu_out):
    """For [R, C] float32 x (R a multiple of 128) writes tanh(x),
    sigmoid(x) = 1 / (1 + exp(-x)), relu(x) = max(x, 0),
    gelu(x) = x * Phi(x) (the erf form, as torch.nn.functional.gelu) and
    silu(x) = x * sigmoid(x)."""
    for r in nl.affine_range(x.shape[0] // PARTS):
        i_p = r * PARTS + nl.arange(PARTS)[:, None]
        i_f = nl.arange(x.shape[1])[None, :]
        xt = nl.load(x[i_p, i_f])
        nl.store(tanh_out[i_p, i_f], value=nl.tanh(xt))
        nl.store(sigmoid_out[i_p, i_f], value=nl.sigmoid(xt))
        nl.store(relu_out[i_p, i_f], value=nl.relu(xt))
        nl.store(gelu_out[i_p, i_f], value=nl.gelu(xt))
        nl.store(silu_out[i_p, i_f], value=nl.silu(xt))


@nki.jit
def compare_select(x, y, eq_out, gt_out, lt_out, sel_out):
    """For [128, C] float32 x and y writes eq_out = (x == y), gt_out = (x > y),
    lt_out = (x < y) as 1.0/0.0 (comparisons with dtype=nl.float32), and
    sel_out = where(x > y, x - y, 0.25) (a boolean tile as the condition,
    a scalar as the false value)."""
    xt = nl.load(x)
    yt = nl.load(y)
    nl.store(eq_out, value=nl.equal(xt, yt, dtype=nl.float32))
    nl.store(gt_out, value=nl.greater(xt, yt, dtype=nl.float32))
    nl.store(lt_out, value=nl.less(xt, yt, dtype=nl.float32))
    cond = nl.greater(xt, yt)
    nl.store(sel_out, value=nl.where(cond, nl.subtract(xt, yt), 0.25))


def _store_as_is(t):
    """A new shared HBM tensor with t's shape and dtype, holding t."""
    o = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nl.store(o, value=t)
    return o


@nki.jit
def type_promotion(a_bf16, b_f32, c_f16, d_i32):
    """Returns six tensors whose dtypes are the promoted dtypes of the NKI type
    promotion rules (general/nki/api nki.api.shared.rst, "NKI Type
    Promotion"); every output tensor takes its tile's dtype:
      0: a_bf16 + b_f32          -> float32  (float, float: the wider)
      1: a_bf16 * c_f16          -> float32  (bf16, fp16: new widened type)
      2: d_i32 + c_f16           -> float16  (float, integer: the float)
      3: a_bf16 + a_bf16         -> bfloat16 (same dtypes)
      4: a_bf16 * 2.0            -> float32  (a weak float scalar is float32)
      5: add(a_bf16, c_f16, dtype=bfloat16) -> bfloat16 (explicit dtype)
    All inputs are [128, C]; every value is exact in its output dtype."""
    a = nl.load(a_bf16)
    b = nl.load(b_f32)
    c = nl.load(c_f16)
    d = nl.load(d_i32)
    return (_store_as_is(nl.add(a, b)),
            _store_as_is(nl.multiply(a, c)),
            _store_as_is(nl.add(d, c)),
            _store_as_is(nl.add(a, a)),
            _store_as_is(nl.multiply(a, 2.0)),
            _store_as_is(nl.add(a, c, dtype=nl.bfloat16)))


@nki.jit
def numpy_ufunc_ops(x, y, op=np.add):
    """For [128, C] float32 x and y returns (op(x, y), x * 0.5 + 1.0): the
    first with nisa.tensor_tensor and the operator given as a parameter
    (numpy ufunc or nl function, --arg op=np.subtract), the second with
    nisa.tensor_scalar and numpy ufuncs as its two operators."""
    xt = nl.load(x)
    yt = nl.load(y)
    tt = nisa.tensor_tensor(xt, yt, op=op)
    ts = nisa.tensor_scalar(xt, np.multiply, 0.5, op1=np.add, operand1=1.0)
    out_tt = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    out_ts = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out_tt, value=tt)
    nl.store(out_ts, value=ts)
    return out_tt, out_ts


@nki.jit
def bitcast_abs(x):
    """For [128, C] float32 x returns the int32 bit patterns of |x|: x viewed
    as int32 (.view on the HBM tensor), the sign bit cleared with
    nl.bitwise_and."""
    bits = x.view(nl.int32)
    t = nl.load(bits)
    cleared = nl.bitwise_and(t, 0x7FFFFFFF)
    out = nl.ndarray(x.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    nl.store(out, value=cleared)
    return out


@nki.jit
def exp_masked(in_tensor):
    """Returns exp(in_tensor) for a [R, C] float32 tensor with R not a multiple
    of 128 and C < 512: each iteration covers a [128, 512] index tile and a
    mask of two comparisons joined with & keeps the load, the exp (one
    nisa.activation) and the store inside the tensor (general/nki/api
    nki.api.shared.rst, "NKI API Masking")."""
    n_rows, n_cols = in_tensor.shape
    out = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(512)[None, :]
    for r in nl.affine_range(_row_tiles(in_tensor)):
        i_p = r * PARTS + nl.arange(PARTS)[:, None]
        inside = (i_p < n_rows) & (i_f < n_cols)
        t = nl.load(in_tensor[i_p, i_f], mask=inside)
        e = nisa.activation(op=nl.exp, data=t, mask=inside)
        nl.store(out[i_p, i_f], value=e, mask=inside)
    return out


@nki.jit
def creation_buffers(x):
    """For [128, C] float32 x returns 0.5 * x + 2, computed through every
    tensor creation function and buffer: nl.ones with nl.par_dim on SBUF,
    nl.full (default buffer SBUF), nl.zeros_like, nl.empty_like filled with
    [...] = ..., a round trip through an nl.hbm and an nl.private_hbm
    scratch tensor, and a PSUM tile written by an nl function."""
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    scratch = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.hbm)
    private = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.private_hbm)
    t = nl.load(x)
    ones = nl.ones((nl.par_dim(rows), cols), dtype=nl.float32, buffer=nl.sbuf)
    halves = nl.full((rows, cols), 0.5, dtype=nl.float32)
    zero = nl.zeros_like(t)
    half_x = nl.empty_like(t)
    half_x[...] = nl.multiply(t, halves)
    nl.store(scratch, value=half_x)
    back = nl.load(scratch)
    nl.store(private, value=nl.add(back, ones))
    back2 = nl.load(private)
    acc = nl.ndarray((nl.par_dim(rows), cols), dtype=nl.float32, buffer=nl.psum)
    acc[...] = nl.add(nl.add(back2, zero), ones)
    nl.store(out, value=nl.copy(acc, dtype=x.dtype))
    return out
