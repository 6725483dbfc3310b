#!/usr/bin/env python3
"""The independent reference of narwhal's NKI kernel suites: the legacy
neuronxcc.nki suite (legacy/*.py) and the current nki suite (current/*.py
and the package pkg/narwhal_kernels).

For every test case (a kernel with its inputs, --arg values, SPMD grid and
tolerance) this script draws deterministic inputs, computes the expected
outputs with plain numpy written from the kernel's docstring (never by
following the kernel's tiling), and writes

  golden/<case>.npz    np.savez_compressed; "in.<param>" for every tensor
                       parameter (written parameters too, as zeros: the
                       caller's buffer), "out.<key>" for every output, key =
                       "return", "return0", ... or the written parameter's
                       name (the contract of ../shared/docs/nki-frontend.md);
  golden/manifest.json every case: file, kernel, inputs (name, dtype,
                       shape), args (Python expression strings), grid,
                       outputs (key, dtype, shape), tolerance (abs, rel,
                       reason), golden, api ("legacy" or "current"), path
                       (a package case's import roots, or null) and twin
                       (the legacy case a current case must equal, or
                       null).

A twin (twin()) is the current-API form of a legacy kernel: it draws the
legacy case's inputs (the same seed), expects the same outputs and points
at the same archive, which is written once.

Value format ("float16-or-float32-values"): a floating-point array of any
dtype (float32, bfloat16, float16) is stored as float16 when float16 holds
every value exactly, else as float32; it holds values, not bit patterns.
Inputs are exact in their recorded dtype (the harness converts them);
expected outputs are the exact (float64) results, rounded once to float32
where float16 does not hold them. Integer arrays are stored in their own
dtype. The manifest gives each input's and output's dtype as the kernel
sees and must produce it. A check passes
when every element satisfies |got - want| <= abs + rel * |want|.

Inputs are low-entropy on purpose: multiples of 1/8 (or of 1/2 for the
matmuls) in small ranges, so the archives stay small, bfloat16 holds them
exactly, and sums and products of them are exact in float32, which lets
most cases demand bit-exact results.

numpy only (the stdlib aside). Run with a python3 that has numpy:

  /usr/bin/python3 kernels/nki/refgen.py            # rewrite golden/
  /usr/bin/python3 kernels/nki/refgen.py --out DIR  # write elsewhere

Random streams come from np.random.RandomState (whose streams numpy keeps
stable across versions), seeded from the case name with zlib.crc32.
"""
import argparse
import json
import math
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT_DTYPES = ("float32", "bfloat16", "float16")
INT_DTYPES = ("int32", "int16", "int8", "uint8", "uint16", "uint32")

# Tolerances used by many cases (abs, rel, reason).
EXACT = (0.0, 0.0, "exact: every value is a short binary fraction the dtypes hold, so any order of the arithmetic gives the same bits")
ONE_ROUNDING = (0.0, 2.5e-7, "one float32 rounding of an exact quotient or function value (narwhal's interpreter rounds the exact value once; 2 ulp)")
TRANSCENDENTAL = (1e-7, 2.5e-7, "float32 evaluation of exp/log/sqrt/tanh/...: within 2 ulp of the exact value, 1e-7 absolute near zero")
REDUCTION = (1e-6, 1e-5, "float32 reductions over a few hundred terms feeding exp/rsqrt: the order of the additions changes the last bits")
SCAN = (1e-5, 1e-5, "a float32 recurrence over up to 512 steps with decaying factors: rounding errors accumulate but stay bounded")


# --- inputs -----------------------------------------------------------------

def eighths(lo, hi, nonzero=False):
    """A generator of multiples of 1/8 in [lo, hi] (nonzero: skipping 0)."""
    def gen(rng, shape):
        v = rng.randint(int(lo * 8), int(hi * 8) + 1, size=shape).astype(np.float64) / 8
        if nonzero:
            v[v == 0] = 0.125
        return v
    return gen


def choices(values):
    """A generator drawing from a fixed list of values."""
    vals = np.array(values, dtype=np.float64)

    def gen(rng, shape):
        return vals[rng.randint(0, len(vals), size=shape)]
    return gen


def integers(lo, hi):
    """A generator of integers in [lo, hi]."""
    def gen(rng, shape):
        return rng.randint(lo, hi + 1, size=shape).astype(np.float64)
    return gen


def zeros(rng, shape):
    """The caller's output buffer: zeros."""
    return np.zeros(shape, dtype=np.float64)


QUARTERS = choices([v / 4 for v in range(-4, 5)])  # nine values: low entropy, exact everywhere
QUARTERS_NZ = choices([v / 4 for v in range(-4, 5) if v])  # the same without 0 (divisors)
# Matmul operands: +-1/2 with probability 1/8, else 0. Products are multiples
# of 1/4, so every partial sum is exact in float32 whatever the order of
# the additions, and a sum of 256 of them (at most 256 quarters) is exact in
# bfloat16 too.
HALVES = choices([-0.5] + [0.0] * 14 + [0.5])


# --- cases ------------------------------------------------------------------

CASES = []


def case(name, file, kernel, inputs, expect, outputs, args=None, grid=None, tol=EXACT, api="legacy", path=None):
    """Registers a case. inputs: [(param, dtype, shape, generator)];
    expect(x) -> {key: array} from the inputs x (float64 arrays by param);
    outputs: [(key, dtype)] in order; args: {param: Python expression};
    api: "legacy" (neuronxcc.nki) or "current" (nki); path: the --path
    directories (relative to this script) a package kernel imports from."""
    CASES.append(dict(name=name, file=file, kernel=kernel, inputs=inputs, expect=expect,
                      outputs=outputs, args=args or {}, grid=grid, tol=tol, api=api, path=path, twin=None))


def twin(name, legacy_case, file, kernel=None, args=None):
    """Registers the current-API twin of a legacy case: the same inputs,
    --arg values, grid, outputs and tolerance, and the same golden archive
    (the twin must give identical outputs on the same inputs, so the legacy
    case's expected values are the twin's too). kernel defaults to the
    legacy kernel's name; args to the legacy case's."""
    base = next(c for c in CASES if c["name"] == legacy_case)
    assert base["api"] == "legacy", legacy_case
    CASES.append(dict(base, name=name, file=file, kernel=kernel or base["kernel"],
                      args=base["args"] if args is None else args, api="current", path=None, twin=legacy_case))


def f32(*keys_shapes):
    return [(k, "float32") for k in keys_shapes]


def returns(n, dtype="float32"):
    """Output keys of a returned tuple of n tensors of one dtype."""
    return [("return%d" % i, dtype) for i in range(n)]


RET = [("return", "float32")]


def erf(x):
    return np.vectorize(math.erf)(x)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# tensor_add.py
case("add_spmd_grid", "legacy/tensor_add.py", "add_spmd_grid",
     [("a_input", "float32", (256, 256), QUARTERS),
      ("b_input", "float32", (256, 256), QUARTERS),
      ("c_output", "float32", (256, 256), zeros)],
     lambda x: {"c_output": x["a_input"] + x["b_input"]},
     f32("c_output"), grid=[2, 2])
case("add_rows_loop", "legacy/tensor_add.py", "add_rows_loop",
     [("a", "float32", (256, 256), QUARTERS), ("b", "float32", (256, 256), QUARTERS)],
     lambda x: {"return": x["a"] + x["b"]}, RET)


def _first_tile_doubled(x):
    s = x["a"] + x["b"]
    s[:128] *= 2
    return {"return": s}


case("add_first_tile_doubled", "legacy/tensor_add.py", "add_first_tile_doubled",
     [("a", "float32", (384, 256), QUARTERS), ("b", "float32", (384, 256), QUARTERS)],
     _first_tile_doubled, RET)

# elementwise.py
_BIN = [("x", "float32", (256, 128), QUARTERS), ("y", "float32", (256, 128), QUARTERS_NZ)]
_BIN_OUTS = ["sum_out", "diff_out", "prod_out", "quot_out", "max_out", "min_out"]
case("binary_arith", "legacy/elementwise.py", "binary_arith",
     _BIN + [(k, "float32", (256, 128), zeros) for k in _BIN_OUTS],
     lambda x: {"sum_out": x["x"] + x["y"], "diff_out": x["x"] - x["y"], "prod_out": x["x"] * x["y"],
                "quot_out": x["x"] / x["y"], "max_out": np.maximum(x["x"], x["y"]),
                "min_out": np.minimum(x["x"], x["y"])},
     f32(*_BIN_OUTS), tol=ONE_ROUNDING)
case("tile_operators", "legacy/elementwise.py", "tile_operators",
     [("x", "float32", (128, 128), QUARTERS), ("y", "float32", (128, 128), QUARTERS_NZ)],
     lambda x: {"return0": x["x"] + x["y"], "return1": x["x"] - x["y"], "return2": x["x"] * x["y"],
                "return3": x["x"] / x["y"], "return4": -x["x"], "return5": x["x"] * 0.5 + 1.0,
                "return6": 2.0 - x["x"]},
     returns(7), tol=ONE_ROUNDING)
_UNARY_OUTS = ["exp_out", "log_out", "sqrt_out", "rsqrt_out", "square_out", "abs_out", "neg_out", "recip_out"]
case("unary_math", "legacy/elementwise.py", "unary_math",
     [("x", "float32", (128, 128), eighths(-2, 2)), ("p", "float32", (128, 128), eighths(0.125, 4))]
     + [(k, "float32", (128, 128), zeros) for k in _UNARY_OUTS],
     lambda x: {"exp_out": np.exp(x["x"]), "log_out": np.log(x["p"]), "sqrt_out": np.sqrt(x["p"]),
                "rsqrt_out": 1 / np.sqrt(x["p"]), "square_out": x["x"] ** 2, "abs_out": np.abs(x["x"]),
                "neg_out": -x["x"], "recip_out": 1 / x["p"]},
     f32(*_UNARY_OUTS), tol=TRANSCENDENTAL)
_ACT_OUTS = ["tanh_out", "sigmoid_out", "relu_out", "gelu_out", "silu_out"]
case("activation_funcs", "legacy/elementwise.py", "activation_funcs",
     [("x", "float32", (256, 128), eighths(-3, 3))] + [(k, "float32", (256, 128), zeros) for k in _ACT_OUTS],
     lambda x: {"tanh_out": np.tanh(x["x"]), "sigmoid_out": sigmoid(x["x"]), "relu_out": np.maximum(x["x"], 0),
                "gelu_out": 0.5 * x["x"] * (1 + erf(x["x"] / math.sqrt(2))),
                "silu_out": x["x"] * sigmoid(x["x"])},
     f32(*_ACT_OUTS), tol=TRANSCENDENTAL)
_CMP_OUTS = ["eq_out", "gt_out", "lt_out", "sel_out"]
_FIVE = choices([-1.0, -0.5, 0.0, 0.5, 1.0])
case("compare_select", "legacy/elementwise.py", "compare_select",
     [("x", "float32", (128, 256), _FIVE), ("y", "float32", (128, 256), _FIVE)]
     + [(k, "float32", (128, 256), zeros) for k in _CMP_OUTS],
     lambda x: {"eq_out": (x["x"] == x["y"]) * 1.0, "gt_out": (x["x"] > x["y"]) * 1.0,
                "lt_out": (x["x"] < x["y"]) * 1.0,
                "sel_out": np.where(x["x"] > x["y"], x["x"] - x["y"], 0.25)},
     f32(*_CMP_OUTS))
case("type_promotion", "legacy/elementwise.py", "type_promotion",
     [("a_bf16", "bfloat16", (128, 128), QUARTERS), ("b_f32", "float32", (128, 128), QUARTERS),
      ("c_f16", "float16", (128, 128), QUARTERS), ("d_i32", "int32", (128, 128), integers(-8, 8))],
     lambda x: {"return0": x["a_bf16"] + x["b_f32"], "return1": x["a_bf16"] * x["c_f16"],
                "return2": x["d_i32"] + x["c_f16"], "return3": x["a_bf16"] * 2,
                "return4": x["a_bf16"] * 2.0, "return5": x["a_bf16"] + x["c_f16"]},
     [("return0", "float32"), ("return1", "float32"), ("return2", "float16"), ("return3", "bfloat16"),
      ("return4", "float32"), ("return5", "bfloat16")])
_UFUNC_IN = [("x", "float32", (128, 256), QUARTERS), ("y", "float32", (128, 256), QUARTERS)]
for _name, _arg, _fn in (("numpy_ufunc_ops_add", None, np.add),
                         ("numpy_ufunc_ops_subtract", "np.subtract", np.subtract),
                         ("numpy_ufunc_ops_nl_maximum", "nl.maximum", np.maximum)):
    case(_name, "legacy/elementwise.py", "numpy_ufunc_ops", _UFUNC_IN,
         (lambda fn: lambda x: {"return0": fn(x["x"], x["y"]), "return1": x["x"] * 0.5 + 1.0})(_fn),
         returns(2), args={"op": _arg} if _arg else None)
case("bitcast_abs", "legacy/elementwise.py", "bitcast_abs",
     [("x", "float32", (128, 256), eighths(-2, 2))],
     lambda x: {"return": np.abs(x["x"]).astype(np.float32).view(np.int32)},
     [("return", "int32")])
case("exp_masked", "legacy/elementwise.py", "exp_masked",
     [("in_tensor", "float32", (200, 448), eighths(-2, 2))],
     lambda x: {"return": np.exp(x["in_tensor"])}, RET, tol=TRANSCENDENTAL)
case("creation_buffers", "legacy/elementwise.py", "creation_buffers",
     [("x", "float32", (128, 256), eighths(-2, 2))],
     lambda x: {"return": 0.5 * x["x"] + 2.0}, RET)

# loops.py


def _running_blocks(x):
    blocks = x["x"].reshape(128, -1, 128)
    return {"return": np.cumsum(blocks, axis=1).reshape(128, -1)}


case("running_sum_sequential", "legacy/loops.py", "running_sum_sequential",
     [("x", "float32", (128, 512), QUARTERS)], _running_blocks, RET)
case("scaled_blocks_static", "legacy/loops.py", "scaled_blocks_static",
     [("x", "float32", (384, 128), eighths(-2, 2))],
     lambda x: {"return": x["x"] * np.repeat([(k + 1) / 2 for k in range(3)], 128)[:, None]}, RET)


def _alternating(x):
    k = np.arange(x["x"].shape[1]) // 128
    return {"return": np.where(k % 2 == 0, x["x"] + x["y"], x["x"] - x["y"])}


case("alternating_blocks_range", "legacy/loops.py", "alternating_blocks_range",
     [("x", "float32", (128, 256), QUARTERS), ("y", "float32", (128, 256), QUARTERS)],
     _alternating, RET)

# transpose.py


def _free_transpose(f1, f2):
    def expect(x):
        t = x["in_tensor"]
        return {"return": t.reshape(t.shape[0], f1, f2).transpose(0, 2, 1).reshape(t.shape[0], f1 * f2)}
    return expect


case("transpose_free_axes", "legacy/transpose.py", "transpose_free_axes",
     [("in_tensor", "float32", (128, 128), eighths(-2, 2))], _free_transpose(8, 16), RET)
case("transpose_free_axes_4x32_bf16", "legacy/transpose.py", "transpose_free_axes",
     [("in_tensor", "bfloat16", (128, 128), eighths(-2, 2))], _free_transpose(4, 32),
     [("return", "bfloat16")], args={"shape2D": "(4, 32)"})
case("even_odd_columns", "legacy/transpose.py", "even_odd_columns",
     [("x", "float32", (128, 512), QUARTERS)],
     lambda x: {"return0": x["x"][:, 0::2], "return1": x["x"][:, 1::2]}, returns(2))
_T = lambda name: (lambda x: {"return": x[name].T})  # noqa: E731
case("transpose_via_load", "legacy/transpose.py", "transpose_via_load",
     [("x", "float32", (512, 128), QUARTERS)], _T("x"), RET)
case("transpose_dma_blocks", "legacy/transpose.py", "transpose_dma_blocks",
     [("x", "float32", (256, 128), eighths(-2, 2))], _T("x"), RET)
case("transpose_tensor_engine", "legacy/transpose.py", "transpose_tensor_engine",
     [("x", "float32", (256, 64), eighths(-2, 2))], _T("x"), RET)
case("transpose_vector_engine", "legacy/transpose.py", "transpose_vector_engine",
     [("x", "float32", (32, 96), eighths(-2, 2))], _T("x"), RET)
case("transpose_nl", "legacy/transpose.py", "transpose_nl",
     [("x", "float32", (128, 96), eighths(-2, 2))], _T("x"), RET)

# pooling.py


def _pool(reduce, k):
    def expect(x):
        t = x["in_tensor"]
        c, h, w = t.shape
        win = t.reshape(c, h // k, k, w // k, k)
        return {"return": reduce(win, axis=(2, 4))}
    return expect


case("avg_pool2d", "legacy/pooling.py", "avg_pool2d",
     [("in_tensor", "float32", (128, 16, 32), eighths(-2, 2))], _pool(np.mean, 2), RET, tol=ONE_ROUNDING)
case("max_pool2d", "legacy/pooling.py", "max_pool2d",
     [("in_tensor", "float32", (128, 12, 24), eighths(-2, 2))], _pool(np.max, 3), RET)
case("max_pool2d_k2", "legacy/pooling.py", "max_pool2d",
     [("in_tensor", "float32", (128, 12, 24), eighths(-2, 2))], _pool(np.max, 2), RET, args={"pool_size": "2"})


def _pool1d(x):
    win = x["x"].reshape(128, -1, 4)
    return {"return0": win.min(axis=2), "return1": win.prod(axis=2, keepdims=True)}


case("pool1d_min_prod", "legacy/pooling.py", "pool1d_min_prod",
     [("x", "float32", (128, 256), eighths(-2, 2))], _pool1d, returns(2))

# norms.py


def _rmsnorm(eps):
    def expect(x):
        a, g = x["a_tensor"], x["g_tensor"]
        return {"return": a / np.sqrt(np.mean(a * a, axis=1, keepdims=True) + eps) * g[None, :]}
    return expect


case("rmsnorm", "legacy/norms.py", "rmsnorm",
     [("a_tensor", "float32", (200, 256), eighths(-2, 2)), ("g_tensor", "float32", (256,), eighths(-1, 1))],
     _rmsnorm(1e-6), RET, tol=REDUCTION)
case("rmsnorm_eps", "legacy/norms.py", "rmsnorm",
     [("a_tensor", "float32", (200, 256), eighths(-2, 2)), ("g_tensor", "float32", (256,), eighths(-1, 1))],
     _rmsnorm(0.25), RET, args={"eps": "0.25"}, tol=REDUCTION)


def _layernorm(eps):
    def expect(x):
        v, gamma, beta = x["x"], x["gamma"].reshape(1, -1), x["beta"].reshape(1, -1)
        mean = v.mean(axis=1, keepdims=True)
        var = v.var(axis=1, keepdims=True)
        return {"return": (v - mean) / np.sqrt(var + eps) * gamma + beta}
    return expect


case("layernorm_bn_stats", "legacy/norms.py", "layernorm_bn_stats",
     [("x", "float32", (128, 1024), QUARTERS), ("gamma", "float32", (1, 1024), choices([0.5, 1.0])),
      ("beta", "float32", (1, 1024), choices([-0.25, 0.25]))],
     _layernorm(1e-5), RET, tol=REDUCTION)
case("layernorm_masked", "legacy/norms.py", "layernorm_masked",
     [("x", "float32", (300, 128), eighths(-2, 2)), ("gamma", "float32", (128,), eighths(-1, 1)),
      ("beta", "float32", (128,), eighths(-1, 1))],
     _layernorm(1e-5), RET, tol=REDUCTION)


def _softmax(x):
    v = x["x"]
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return {"return": e / e.sum(axis=1, keepdims=True)}


case("softmax_rows", "legacy/norms.py", "softmax_rows",
     [("x", "float32", (192, 256), eighths(-3, 3))], _softmax, RET, tol=REDUCTION)
case("softmax_isa", "legacy/norms.py", "softmax_isa",
     [("x", "float32", (256, 128), eighths(-3, 3))], _softmax, RET, tol=REDUCTION)

# matmul.py
_MM = lambda: (lambda x: {"return": x["lhsT"].T @ x["rhs"]})  # noqa: E731
case("matmul_basic", "legacy/matmul.py", "matmul_basic",
     [("lhsT", "bfloat16", (128, 64), HALVES), ("rhs", "bfloat16", (128, 512), HALVES)], _MM(), RET)
case("matmul_untransposed", "legacy/matmul.py", "matmul_untransposed",
     [("x", "float32", (64, 128), HALVES), ("y", "float32", (128, 256), HALVES)],
     lambda x: {"return": x["x"] @ x["y"]}, RET)
case("matmul_tiled", "legacy/matmul.py", "matmul_tiled",
     [("lhsT", "bfloat16", (256, 256), HALVES), ("rhs", "bfloat16", (256, 1024), HALVES),
      ("result", "float32", (256, 1024), zeros)],
     lambda x: {"result": x["lhsT"].T @ x["rhs"]}, f32("result"))
case("matmul_hoisted", "legacy/matmul.py", "matmul_hoisted",
     [("lhsT", "float32", (256, 256), HALVES), ("rhs", "float32", (256, 1024), HALVES)], _MM(), RET)
_MM_BF16 = [("lhsT", "bfloat16", (256, 256), HALVES), ("rhs", "bfloat16", (256, 1024), HALVES)]
case("matmul_block_free", "legacy/matmul.py", "matmul_block_free", _MM_BF16, _MM(), RET)
case("matmul_block_free_1x1", "legacy/matmul.py", "matmul_block_free", _MM_BF16, _MM(), RET,
     args={"tiles_m": "1", "tiles_n": "1"})
case("matmul_fully_blocked_small", "legacy/matmul.py", "matmul_fully_blocked", _MM_BF16, _MM(),
     [("return", "bfloat16")],
     args={"tiles_in_block_m": "1", "tiles_in_block_n": "1", "tiles_in_block_k": "1"})
case("matmul_fully_blocked_2x2x2", "legacy/matmul.py", "matmul_fully_blocked", _MM_BF16, _MM(),
     [("return", "bfloat16")],
     args={"tiles_in_block_m": "2", "tiles_in_block_n": "2", "tiles_in_block_k": "2"})
case("matmul_spmd", "legacy/matmul.py", "matmul_spmd",
     [("a", "float32", (256, 128), HALVES), ("b", "float32", (128, 1024), HALVES)],
     lambda x: {"return": x["a"] @ x["b"]}, RET, grid=[2, 2])

# direct_alloc.py
case("exp_double_buffered", "legacy/direct_alloc.py", "exp_double_buffered",
     [("x", "float32", (3, 128, 128), eighths(-2, 2))],
     lambda x: {"return": np.exp(0.5 * x["x"])}, RET, tol=TRANSCENDENTAL)
case("matmul_mod_alloc", "legacy/direct_alloc.py", "matmul_mod_alloc",
     [("lhsT", "bfloat16", (256, 128), HALVES), ("rhs", "bfloat16", (256, 1024), HALVES)], _MM(), RET)

# scan.py


def _linear_scan(a, b, h0=0.0):
    h = np.zeros_like(a)
    prev = np.full(a.shape[0], h0)
    for t in range(a.shape[1]):
        prev = a[:, t] * prev + b[:, t]
        h[:, t] = prev
    return h


case("scan_chunked", "legacy/scan.py", "scan_chunked",
     [("a", "float32", (128, 256), eighths(0, 1)), ("b", "float32", (128, 256), eighths(-1, 1))],
     lambda x: {"return": _linear_scan(x["a"], x["b"])}, RET, tol=SCAN)
case("scan_chunked_64", "legacy/scan.py", "scan_chunked",
     [("a", "float32", (128, 256), eighths(0, 1)), ("b", "float32", (128, 256), eighths(-1, 1))],
     lambda x: {"return": _linear_scan(x["a"], x["b"])}, RET, args={"chunk": "64"}, tol=SCAN)


def _mamba(x):
    delta, u, A, B, C = x["delta"], x["u"], x["A"], x["B"], x["C"]
    batch, channels, t_len = delta.shape
    out = np.zeros_like(delta)
    for b in range(batch):
        for s in range(A.shape[1]):
            decay = np.exp(delta[b] * A[:, s][:, None])          # [channels, T]
            drive = delta[b] * B[b, s][None, :] * u[b]            # [channels, T]
            out[b] += C[b, s][None, :] * _linear_scan(decay, drive)
    return {"return": out}


case("mamba_selective_scan", "legacy/scan.py", "mamba_selective_scan",
     [("delta", "float32", (1, 256, 128), eighths(0, 0.5)), ("u", "float32", (1, 256, 128), eighths(-1, 1)),
      ("A", "float32", (256, 4), eighths(-1, -0.125)), ("B", "float32", (1, 4, 128), eighths(-1, 1)),
      ("C", "float32", (1, 4, 128), eighths(-1, 1))],
     _mamba, RET, tol=SCAN)


def _max_alt(x):
    v = x["x"]
    alt = np.zeros_like(v)
    prev = np.zeros(v.shape[0])
    for t in range(v.shape[1]):
        prev = v[:, t] - prev
        alt[:, t] = prev
    return {"return0": np.maximum(np.maximum.accumulate(v, axis=1), -1000.0), "return1": alt}


case("scan_max_and_alternating", "legacy/scan.py", "scan_max_and_alternating",
     [("x", "float32", (128, 256), eighths(-2, 2))], _max_alt, returns(2))

# attention.py


def _attention(causal):
    def expect(x):
        q, k, v = x["q"], x["k"], x["v"]
        s = 0.125 * (q.T @ k)
        if causal:
            s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return {"return": (e / e.sum(axis=1, keepdims=True)) @ v}
    return expect


case("attention_fwd", "legacy/attention.py", "attention_fwd",
     [("q", "float32", (64, 128), eighths(-1, 1)), ("k", "float32", (64, 256), eighths(-1, 1)),
      ("v", "float32", (256, 64), eighths(-1, 1))],
     _attention(False), RET, tol=REDUCTION)
case("causal_attention", "legacy/attention.py", "causal_attention",
     [("q", "float32", (64, 128), eighths(-1, 1)), ("k", "float32", (64, 128), eighths(-1, 1)),
      ("v", "float32", (128, 64), eighths(-1, 1))],
     _attention(True), RET, tol=REDUCTION)

# isa_ops.py
case("isa_nc_matmul", "legacy/isa_ops.py", "isa_nc_matmul",
     [("stationary", "bfloat16", (128, 96), HALVES), ("moving", "bfloat16", (128, 384), HALVES)],
     lambda x: {"return": x["stationary"].T @ x["moving"]}, RET)
case("isa_nc_transpose", "legacy/isa_ops.py", "isa_nc_transpose",
     [("big", "float32", (128, 64), eighths(-2, 2)), ("small", "float32", (32, 16), eighths(-2, 2))],
     lambda x: {"return0": x["big"].T, "return1": x["small"].T}, returns(2))
case("isa_activation", "legacy/isa_ops.py", "isa_activation",
     [("x", "float32", (128, 256), eighths(-2, 2)), ("bias_col", "float32", (128, 1), eighths(-1, 1)),
      ("scale_col", "float32", (128, 1), eighths(-2, 2))],
     lambda x: {"return0": np.tanh(0.5 * x["x"] + x["bias_col"]), "return1": (x["scale_col"] * x["x"]) ** 2,
                "return2": x["scale_col"] * x["x"] + x["bias_col"]},
     returns(3), tol=TRANSCENDENTAL)
case("isa_tensor_tensor", "legacy/isa_ops.py", "isa_tensor_tensor",
     [("x", "float32", (128, 256), QUARTERS), ("y", "float32", (128, 256), QUARTERS)],
     lambda x: {"return0": x["x"] + x["y"], "return1": x["x"] * x["y"], "return2": np.maximum(x["x"], x["y"]),
                "return3": x["x"] - x["y"]},
     [("return0", "bfloat16")] + returns(4)[1:])
case("isa_tensor_scalar", "legacy/isa_ops.py", "isa_tensor_scalar",
     [("x", "float32", (128, 256), eighths(-2, 2)), ("col", "float32", (128, 1), eighths(-2, 2))],
     lambda x: {"return0": x["x"] * 0.5 + 0.25, "return1": x["col"] - x["x"],
                "return2": np.minimum(np.maximum(x["x"], 0), 1), "return3": 4 - (x["x"] + 1)},
     returns(4))
case("isa_tensor_reduce", "legacy/isa_ops.py", "isa_tensor_reduce",
     [("x", "float32", (128, 256), eighths(-2, 2)), ("x3", "float32", (128, 4, 32), eighths(-2, 2))],
     lambda x: {"return0": x["x"].sum(axis=1, keepdims=True), "return1": -x["x"].max(axis=1, keepdims=True),
                "return2": x["x3"].min(axis=(1, 2), keepdims=True)},
     returns(3))
case("isa_tensor_copy", "legacy/isa_ops.py", "isa_tensor_copy",
     [("x", "float32", (128, 256), eighths(-2, 2))],
     lambda x: {"return0": x["x"], "return1": x["x"], "return2": x["x"]},
     [("return0", "float32"), ("return1", "bfloat16"), ("return2", "float32")])
case("isa_tensor_partition_reduce", "legacy/isa_ops.py", "isa_tensor_partition_reduce",
     [("x", "float32", (2, 128, 64), eighths(-2, 2))],
     lambda x: {"return0": x["x"][0].sum(axis=0, keepdims=True), "return1": x["x"][1].max(axis=0, keepdims=True)},
     returns(2))


def _scans(x):
    a, b = x["a"], x["b"]
    g = np.zeros_like(a)
    prev = np.full(a.shape[0], 0.5)
    for t in range(a.shape[1]):
        prev = np.maximum(a[:, t] + prev, b[:, t])
        g[:, t] = prev
    return {"return0": _linear_scan(a, b), "return1": g}


case("isa_tensor_tensor_scan", "legacy/isa_ops.py", "isa_tensor_tensor_scan",
     [("a", "float32", (128, 256), eighths(0, 1)), ("b", "float32", (128, 256), eighths(-1, 1))],
     _scans, returns(2), tol=SCAN)
case("isa_memset", "legacy/isa_ops.py", "isa_memset", [],
     lambda x: {"return0": np.full((128, 256), 0.75), "return1": np.full((64, 128), -1.5),
                "return2": np.full((128, 32), 7)},
     [("return0", "float32"), ("return1", "bfloat16"), ("return2", "int32")])
case("isa_iota", "legacy/isa_ops.py", "isa_iota", [],
     lambda x: {"return0": np.arange(512)[None, :], "return1": 3 * np.arange(128)[:, None] + 5,
                "return2": 64 * np.arange(128)[:, None] + np.arange(64)[None, :],
                "return3": 100 - np.arange(64)[None, :]},
     [("return0", "int32"), ("return1", "float32"), ("return2", "int32"), ("return3", "int32")])


def _affine_select(x):
    v = x["x"]
    i_p, i_f = np.mgrid[0:128, 0:128]
    return {"return0": np.where(i_p >= i_f, v, -9984.0), "return1": np.where(i_f - 2 * i_p + 16 > 0, v, 0.0)}


case("isa_affine_select", "legacy/isa_ops.py", "isa_affine_select",
     [("x", "float32", (128, 128), eighths(-2, 2))], _affine_select, returns(2))


def _bn(x):
    v = x["x"]
    first = v[:, :512]
    even, odd = first[:, 0::2], first[:, 1::2]
    stats = np.stack([np.full(128, even.shape[1]), even.mean(axis=1), even.var(axis=1) * even.shape[1],
                      np.full(128, odd.shape[1]), odd.mean(axis=1), odd.var(axis=1) * odd.shape[1]], axis=1)
    return {"return0": stats, "return1": v.mean(axis=1, keepdims=True), "return2": v.var(axis=1, keepdims=True)}


case("isa_bn_stats_aggr", "legacy/isa_ops.py", "isa_bn_stats_aggr",
     [("x", "float32", (128, 1024), eighths(-2, 2))], _bn, returns(3),
     tol=(1e-6, 1e-5, "float32 running mean/variance statistics over 256 to 1024 elements: the order of the updates changes the last bits"))
case("isa_reciprocal", "legacy/isa_ops.py", "isa_reciprocal",
     [("p", "float32", (128, 256), eighths(0.125, 4))],
     lambda x: {"return0": 1 / x["p"], "return1": 1 / x["p"]}, returns(2), tol=ONE_ROUNDING)
case("isa_dma_copy", "legacy/isa_ops.py", "isa_dma_copy",
     [("x", "float32", (256, 128), eighths(-2, 2))],
     lambda x: {"return0": x["x"], "return1": x["x"][:128], "return2": x["x"]},
     [("return0", "float32"), ("return1", "float32"), ("return2", "bfloat16")])
case("isa_dma_transpose", "legacy/isa_ops.py", "isa_dma_transpose",
     [("x", "float32", (64, 128), eighths(-2, 2)), ("y", "float32", (128, 32), eighths(-2, 2))],
     lambda x: {"return0": x["x"].T, "return1": x["y"].T}, returns(2))


# === the current-API suite (current/*.py, the `nki` package) =================
#
# Cases of the current API. A twin (twin()) is the current form of a legacy
# kernel: it reuses the legacy case's inputs, outputs, tolerance and golden
# archive, and the harness requires its outputs bit-identical to the legacy
# kernel's on those inputs. The other cases draw their own inputs.


def fixed(values):
    """A generator of a fixed array (broadcast to the shape)."""
    vals = np.array(values, dtype=np.float64)

    def gen(rng, shape):
        return np.broadcast_to(vals, shape).copy()
    return gen


def cur(name, file, kernel, inputs, expect, outputs, **kw):
    case(name, "current/" + file, kernel, inputs, expect, outputs, api="current", **kw)


# current/tensor_add.py
cur("current_tensor_add_tile", "tensor_add.py", "tensor_add_tile",
    [("a_input", "float32", (128, 512), QUARTERS), ("b_input", "float32", (128, 512), QUARTERS)],
    lambda x: {"return": x["a_input"] + x["b_input"]}, RET)
twin("current_add_spmd_grid", "add_spmd_grid", "current/tensor_add.py")
twin("current_add_rows_loop", "add_rows_loop", "current/tensor_add.py")
twin("current_add_first_tile_doubled", "add_first_tile_doubled", "current/tensor_add.py")
cur("current_add_partial_tiles", "tensor_add.py", "add_partial_tiles",
    [("a", "float32", (200, 300), QUARTERS), ("b", "float32", (200, 300), QUARTERS)],
    lambda x: {"return": x["a"] + x["b"]}, RET)

# current/loops.py
twin("current_running_sum_sequential", "running_sum_sequential", "current/loops.py")
twin("current_scaled_blocks_static", "scaled_blocks_static", "current/loops.py")
twin("current_alternating_blocks_range", "alternating_blocks_range", "current/loops.py")


def _python_loops(x):
    v = x["x"].copy()
    for i in range(v.shape[0] // 128):
        v[i * 128:(i + 1) * 128] = v[i * 128:(i + 1) * 128] * (i + 4) + 2
    return {"return": v}


cur("current_python_loop_semantics", "loops.py", "python_loop_semantics",
    [("x", "float32", (256, 128), eighths(-2, 2))], _python_loops, RET)

# current/dynamic.py
cur("current_dynamic_repeat_add", "dynamic.py", "dynamic_repeat_add",
    [("x", "float32", (128, 256), QUARTERS), ("count", "int32", (1, 1), fixed([[3]]))],
    lambda x: {"return": 3 * x["x"]}, RET)


def _row_copy(x):
    lo, hi = (int(v) for v in x["bounds"][0])
    y = np.zeros_like(x["x"])
    y[lo:hi:2] = x["x"][lo:hi:2]
    return {"return": y}


cur("current_dynamic_row_copy", "dynamic.py", "dynamic_row_copy",
    [("x", "float32", (64, 128), eighths(-2, 2)), ("bounds", "int32", (1, 2), fixed([[5, 40]]))],
    _row_copy, RET)
for _n in (3, 0):
    cur("current_while_register_doubling%s" % ("" if _n else "_zero"), "dynamic.py", "while_register_doubling",
        [("x", "float32", (128, 256), QUARTERS), ("n", "int32", (1, 1), fixed([[_n]]))],
        (lambda n: lambda x: {"return": x["x"] * 2.0 ** n})(_n), RET)
cur("current_nc_version_dispatch", "dynamic.py", "nc_version_dispatch",
    [("x", "float32", (128, 256), QUARTERS)], lambda x: {"return": 3 * x["x"]}, RET)

# current/isa_ops.py: every kernel the twin of the legacy kernel of its name
for _k in ("isa_nc_matmul", "isa_nc_transpose", "isa_activation", "isa_tensor_tensor", "isa_tensor_scalar",
           "isa_tensor_reduce", "isa_tensor_copy", "isa_tensor_partition_reduce", "isa_tensor_tensor_scan",
           "isa_memset", "isa_iota", "isa_affine_select", "isa_bn_stats_aggr", "isa_reciprocal", "isa_dma_copy",
           "isa_dma_transpose"):
    twin("current_" + _k, _k, "current/isa_ops.py")

# current/transpose.py
for _k in ("transpose_free_axes", "transpose_free_axes_4x32_bf16", "even_odd_columns", "transpose_dma_blocks",
           "transpose_tensor_engine", "transpose_vector_engine"):
    twin("current_" + _k, _k, "current/transpose.py",
         kernel="transpose_free_axes" if _k.startswith("transpose_free_axes") else None)
cur("current_transpose_identity_matmul", "transpose.py", "transpose_identity_matmul",
    [("x", "float32", (128, 96), eighths(-2, 2))], lambda x: {"return": x["x"].T}, RET)

# current/pooling.py
for _k in ("avg_pool2d", "max_pool2d", "max_pool2d_k2"):
    twin("current_" + _k, _k, "current/pooling.py", kernel="max_pool2d" if _k.startswith("max") else None)

# current/matmul.py
for _k in ("matmul_basic", "matmul_tiled", "matmul_hoisted", "matmul_block_free", "matmul_block_free_1x1",
           "matmul_fully_blocked_small", "matmul_fully_blocked_2x2x2", "matmul_spmd"):
    twin("current_" + _k, _k, "current/matmul.py")

# current/direct_alloc.py
twin("current_exp_double_buffered", "exp_double_buffered", "current/direct_alloc.py")
twin("current_matmul_mod_alloc", "matmul_mod_alloc", "current/direct_alloc.py")

# current/scan.py
for _k in ("scan_chunked", "scan_chunked_64", "mamba_selective_scan", "scan_max_and_alternating"):
    twin("current_" + _k, _k, "current/scan.py")


# current/isa_new.py


def perm_rows(values):
    """A generator of rows each a random permutation of values (distinct per row)."""
    vals = np.array(values, dtype=np.float64)

    def gen(rng, shape):
        return np.stack([rng.permutation(vals) for _ in range(shape[0])]).reshape(shape)
    return gen


def distinct(lo, hi):
    """A generator of distinct integers from [lo, hi], one per element."""
    def gen(rng, shape):
        return rng.permutation(np.arange(lo, hi + 1))[:int(np.prod(shape))].reshape(shape).astype(np.float64)
    return gen


def segments(rng, shape):
    """Segment ids for sequence_bounds: runs of 1 to 40 equal ids, numbered
    upwards from 1, with runs of padding (id 0) between some of them."""
    n = int(np.prod(shape))
    ids, nxt = [], 1
    while len(ids) < n:
        run = rng.randint(1, 41)
        if rng.randint(0, 4) == 0:
            ids += [0] * run
        else:
            ids += [nxt] * run
            nxt += 1
    return np.array(ids[:n], dtype=np.float64).reshape(shape)


def _even_offsets(limit):
    def gen(rng, shape):
        return 2.0 * rng.randint(0, limit // 2, size=shape)
    return gen


cur("current_stt_ops", "isa_new.py", "stt_ops",
    [("x", "float32", (128, 256), QUARTERS), ("y", "float32", (128, 256), QUARTERS),
     ("col", "float32", (128, 1), QUARTERS)],
    lambda x: {"return0": x["x"] * x["col"] + x["y"], "return1": x["y"] - (x["x"] + 0.5),
               "return2": (0.25 - x["x"]) * x["y"]}, returns(3))


def _ts_reduce(x):
    r0 = x["x"] * x["col"]
    r1 = x["x"] + 1.0
    return {"return0": r0, "return1": r0.sum(axis=1, keepdims=True), "return2": r1,
            "return3": r1.max(axis=1, keepdims=True)}


cur("current_tensor_scalar_reduce_rows", "isa_new.py", "tensor_scalar_reduce_rows",
    [("x", "float32", (128, 256), QUARTERS), ("col", "float32", (128, 1), QUARTERS)], _ts_reduce, returns(4))


def _act_acc(x):
    e = np.exp(0.5 * x["x"] + x["bias"])
    q = x["x"] ** 2
    return {"return0": e, "return1": e.sum(axis=1, keepdims=True), "return2": q,
            "return3": q.sum(axis=1, keepdims=True)}


cur("current_activation_accumulate", "isa_new.py", "activation_accumulate",
    [("x", "float32", (128, 256), eighths(-1, 1)), ("bias", "float32", (128, 1), eighths(-1, 1))],
    _act_acc, returns(4), tol=REDUCTION)

FP32_MIN = -3.4028235e+38


def _range_select(x):
    v = x["x"]
    out = {}
    for i in range(2):
        idx = i * 128 + np.arange(128)[None, :]
        mask = (idx >= x["lo"]) & (idx < x["hi"])
        sel = np.where(mask, v[:, i * 128:(i + 1) * 128], FP32_MIN)
        out["return%d" % (2 * i)] = sel
        out["return%d" % (2 * i + 1)] = sel.max(axis=1, keepdims=True)
    return out


cur("current_range_select_window", "isa_new.py", "range_select_window",
    [("x", "float32", (128, 256), eighths(-2, 2)), ("lo", "float32", (128, 1), integers(0, 200)),
     ("hi", "float32", (128, 1), integers(0, 256))], _range_select, returns(4))


def _select_reduce(x):
    p = x["pred"] != 0
    r0 = np.where(p, x["x"], x["fill"])
    return {"return0": r0, "return1": r0.max(axis=1, keepdims=True), "return2": np.where(p, -1.0, x["x"])}


cur("current_select_reduce_masked", "isa_new.py", "select_reduce_masked",
    [("x", "float32", (128, 256), eighths(-2, 2)), ("pred", "uint8", (128, 256), integers(0, 1)),
     ("fill", "float32", (128, 1), eighths(-2, 2))], _select_reduce, returns(3))
cur("current_copy_predicated", "isa_new.py", "copy_predicated",
    [("x", "float32", (128, 256), eighths(-2, 2)), ("y", "float32", (128, 256), eighths(-2, 2)),
     ("pred", "uint8", (128, 256), integers(0, 1))],
    lambda x: {"return0": np.where(x["pred"] != 0, x["x"], x["y"]),
               "return1": np.where(x["pred"] != 0, x["y"], 0.5)}, returns(2))


def _top8(x):
    v = x["x"]
    order = np.argsort(-v, axis=1, kind="stable")
    i1 = order[:, :8]
    m1 = np.take_along_axis(v, i1, axis=1)
    x2 = v.copy()
    np.put_along_axis(x2, i1, -100.0, axis=1)
    m2 = np.take_along_axis(v, order[:, 8:16], axis=1)
    return {"return0": m1, "return1": i1, "return2": x2, "return3": i1, "return4": m2}


cur("current_top8_find_replace", "isa_new.py", "top8_find_replace",
    [("x", "float32", (128, 128), perm_rows((np.arange(128) - 64) / 4))], _top8,
    [("return0", "float32"), ("return1", "uint32"), ("return2", "float32"), ("return3", "uint32"),
     ("return4", "float32")])


def _shuffle(x):
    v = x["x"]
    rev = np.concatenate([v[q * 32:(q + 1) * 32][::-1] for q in range(4)])
    pairs = v.copy()
    pairs[0::2] = v[1::2]
    return {"return0": rev, "return1": pairs}


cur("current_stream_shuffle_quadrants", "isa_new.py", "stream_shuffle_quadrants",
    [("x", "float32", (128, 64), eighths(-2, 2))], _shuffle, returns(2))


def _local_gather(x):
    src, ix = x["src"], x["index"].astype(np.int64)
    outs = {}
    for key, nvi in (("return0", 64), ("return1", 40)):
        out = np.zeros((128, nvi * 2))
        for g in range(8):
            rows = slice(16 * g, 16 * g + 16)
            ids = ix[rows].flatten(order="F")[:nvi]
            out[rows] = np.concatenate([src[rows, e:e + 2] for e in ids], axis=1)
        outs[key] = out
    return outs


cur("current_local_gather_cores", "isa_new.py", "local_gather_cores",
    [("src", "float32", (128, 64), eighths(-2, 2)), ("index", "uint16", (128, 4), _even_offsets(64))],
    _local_gather, returns(2))
cur("current_dma_compute_sum", "isa_new.py", "dma_compute_sum",
    [("a", "float32", (128, 256), QUARTERS), ("b", "float32", (128, 256), QUARTERS),
     ("c", "float32", (128, 256), QUARTERS)],
    lambda x: {"return0": x["a"] + x["b"] + x["c"], "return1": x["a"] + x["b"]}, returns(2))


def _bounds(x):
    s = x["seg"][0]
    n = s.size
    start, end = np.full(n, float(n)), np.full(n, -1.0)
    for sid in np.unique(s[s != 0]):
        where = np.nonzero(s == sid)[0]
        start[where], end[where] = where[0], where[-1] + 1
    return {"return": np.stack([start, end])[None]}


cur("current_segment_bounds", "isa_new.py", "segment_bounds",
    [("seg", "float32", (1, 512), segments)], _bounds, RET)


def _cumulative(x):
    v = x["x"]
    return {"return0": np.cumsum(0.5 * v, axis=1), "return1": np.maximum.accumulate(v + 1.0, axis=1),
            "return2": 2.0 + np.cumsum(v, axis=1)}


cur("current_cumulative_ops", "isa_new.py", "cumulative_ops",
    [("x", "float32", (128, 256), QUARTERS)], _cumulative, returns(3))

# current/access.py


def _ap_views(x):
    v = x["x"]
    a, b = np.mgrid[0:32, 0:4]
    inter = np.empty_like(v)
    inter[:, 0::2], inter[:, 1::2] = v[:, :128], v[:, 128:]
    return {"return0": v[:, 64:192], "return1": v[:, 2 + 8 * a + b], "return2": inter}


cur("current_ap_views", "access.py", "ap_views", [("x", "float32", (128, 256), eighths(-2, 2))], _ap_views, returns(3))
cur("current_ap_scalar_offset", "access.py", "ap_scalar_offset",
    [("x", "float32", (256, 128), eighths(-2, 2)), ("start", "int32", (1, 1), fixed([[96]])),
     ("y", "float32", (2, 64, 32), eighths(-2, 2)), ("row", "int32", (1, 1), fixed([[10]]))],
    lambda x: {"return0": x["x"][96:224, 0:64], "return1": x["y"][1, 10:26, :]}, returns(2))


def _gather_scatter(x):
    v = x["x"]
    g = x["gather_idx"][:, 0].astype(int)
    s = x["scatter_idx"][:, 0].astype(int)
    k = x["skip_idx"][:, 0].astype(int)
    scattered = np.zeros_like(v)
    scattered[s] = v[:128]
    skipped = np.zeros((128, v.shape[1]))
    ok = k < v.shape[0]
    skipped[ok] = v[k[ok]]
    return {"return0": v[g], "return1": scattered, "return2": skipped}


cur("current_ap_gather_scatter", "access.py", "ap_gather_scatter",
    [("x", "float32", (256, 64), eighths(-2, 2)), ("gather_idx", "int32", (128, 1), integers(0, 255)),
     ("scatter_idx", "int32", (128, 1), distinct(0, 255)), ("skip_idx", "int32", (128, 1), integers(0, 320))],
    _gather_scatter, returns(3))

# current/misc.py
cur("current_shared_constant_scale", "misc.py", "shared_constant_scale",
    [("x", "float32", (128, 256), eighths(-2, 2))],
    lambda x: {"return": x["x"] * (np.arange(128)[:, None] / 8)}, RET)
cur("current_collectives_single_rank", "misc.py", "collectives_single_rank",
    [("x", "float32", (128, 256), QUARTERS)],
    lambda x: {"return0": x["x"], "return1": x["x"], "return2": x["x"]}, returns(3))
for _suffix, _args, _factor in (("", None, 1.0), ("_scalar", {"copy_engine": "nisa.engine.scalar"}, 2.0),
                                ("_gpsimd_swdge", {"copy_engine": "nisa.engine.gpsimd", "dge": "nisa.dge_mode.swdge"}, 3.0)):
    cur("current_engine_selectors" + _suffix, "misc.py", "engine_selectors",
        [("x", "float32", (128, 256), QUARTERS)],
        (lambda f: lambda x: {"return": f * x["x"]})(_factor), RET, args=_args)
cur("current_typed_scale", "misc.py", "typed_scale",
    [("x", "float32", (128, 256), QUARTERS), ("w", "float32", (128, 1), QUARTERS)],
    lambda x: {"return": x["x"] * x["w"]}, RET)

# current/norms.py
cur("current_rmsnorm", "norms.py", "rmsnorm",
    [("a_tensor", "float32", (200, 256), eighths(-2, 2)), ("g_tensor", "float32", (256,), eighths(-1, 1))],
    _rmsnorm(1e-6), RET, tol=REDUCTION)
cur("current_layernorm_bn_stats", "norms.py", "layernorm_bn_stats",
    [("x", "float32", (128, 768), QUARTERS), ("gamma", "float32", (1, 768), choices([0.5, 1.0])),
     ("beta", "float32", (1, 768), choices([-0.25, 0.25]))],
    _layernorm(1e-5), RET, tol=REDUCTION)
cur("current_softmax_rows", "norms.py", "softmax_rows",
    [("x", "float32", (192, 256), eighths(-3, 3))], _softmax, RET, tol=REDUCTION)

# current/attention.py
cur("current_attention_fwd", "attention.py", "attention_fwd",
    [("q", "float32", (64, 128), eighths(-1, 1)), ("k", "float32", (64, 256), eighths(-1, 1)),
     ("v", "float32", (256, 64), eighths(-1, 1))], _attention(False), RET, tol=REDUCTION)
cur("current_causal_attention", "attention.py", "causal_attention",
    [("q", "float32", (64, 128), eighths(-1, 1)), ("k", "float32", (64, 128), eighths(-1, 1)),
     ("v", "float32", (128, 64), eighths(-1, 1))], _attention(True), RET, tol=REDUCTION)


# pkg/narwhal_kernels: the multi-file package (the harness passes pkg as
# frontend.Options.Path, the CLI's --path)

_ACTS = {"gelu": lambda y: 0.5 * y * (1 + erf(y / math.sqrt(2))), "silu": lambda y: y * sigmoid(y),
         "relu": lambda y: np.maximum(y, 0.0), "tanh": np.tanh, "none": lambda y: y}


def _fused(norm, act, eps=1e-6, residual=False):
    def expect(x):
        v = x["x"]
        if norm == "rms":
            n = v / np.sqrt((v * v).mean(axis=1, keepdims=True) + eps)
        elif norm == "layer":
            n = (v - v.mean(axis=1, keepdims=True)) / np.sqrt(v.var(axis=1, keepdims=True) + eps)
        else:
            n = v
        y = _ACTS[act]((n * x["gamma"].reshape(1, -1)) @ x["w"] + x["bias"].reshape(1, -1))
        if residual:
            y = y + x["residual"]
        return {"return": y}
    return expect


def _flash(causal, scale):
    def expect(x):
        q, k, v = x["q"], x["k"], x["v"]
        s = scale * (q @ k.T)
        if causal:
            s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return {"return": (e / e.sum(axis=1, keepdims=True)) @ v}
    return expect


FUSED = (1e-5, 1e-5, "a float32 normalization (a row reduction feeding rsqrt) then a 256-term float32 matmul and an "
         "activation: the order of the additions changes the last bits of the sums, outputs of order 1 to 10")


def pkg(name, module, kernel, inputs, expect, outputs, **kw):
    case(name, "pkg/narwhal_kernels/" + module, kernel, inputs, expect, outputs, api="current", path=["pkg"], **kw)


pkg("pkg_fused_rms_gelu", "fused/norm_matmul.py", "fused_norm_matmul",
    [("x", "float32", (128, 256), eighths(-2, 2)), ("gamma", "float32", (256,), eighths(-1, 1)),
     ("w", "float32", (256, 512), eighths(-0.5, 0.5)), ("bias", "float32", (512,), eighths(-1, 1))],
    _fused("rms", "gelu"), RET, tol=FUSED)
pkg("pkg_fused_layer_silu_residual", "fused/norm_matmul.py", "fused_norm_matmul",
    [("x", "float32", (192, 256), eighths(-2, 2)), ("gamma", "float32", (256,), eighths(-1, 1)),
     ("w", "float32", (256, 256), eighths(-0.5, 0.5)), ("bias", "float32", (256,), eighths(-1, 1)),
     ("residual", "float32", (192, 256), QUARTERS)],
    _fused("layer", "silu", residual=True), RET, tol=FUSED,
    args={"norm": "NormKind.LAYER", "activation": "ActivationKind.SILU", "n_tile": "128"})
pkg("pkg_fused_exact_relu", "fused/norm_matmul.py", "fused_norm_matmul",
    [("x", "float32", (128, 384), eighths(-2, 2)), ("gamma", "float32", (384,), eighths(-1, 1)),
     ("w", "float32", (384, 256), HALVES), ("bias", "float32", (256,), eighths(-1, 1))],
    _fused("none", "relu"), RET,
    args={"norm": "NormKind.NONE", "activation": "ActivationKind.RELU", "n_tile": "256"})
pkg("pkg_flash_causal", "attention/flash.py", "flash_attention",
    [("q", "float32", (256, 64), eighths(-1, 1)), ("k", "float32", (256, 64), eighths(-1, 1)),
     ("v", "float32", (256, 64), eighths(-1, 1))], _flash(True, 0.125), RET, tol=REDUCTION)
pkg("pkg_flash_full_kv384", "attention/flash.py", "flash_attention",
    [("q", "float32", (128, 64), eighths(-1, 1)), ("k", "float32", (384, 64), eighths(-1, 1)),
     ("v", "float32", (384, 64), eighths(-1, 1))], _flash(False, 0.125), RET, tol=REDUCTION,
    args={"mask": "MaskKind.NONE"})
pkg("pkg_flash_causal_tile64", "attention/flash.py", "flash_attention",
    [("q", "float32", (128, 32), eighths(-1, 1)), ("k", "float32", (128, 32), eighths(-1, 1)),
     ("v", "float32", (128, 32), eighths(-1, 1))], _flash(True, 0.25), RET, tol=REDUCTION,
    args={"kv_tile": "64", "softmax_scale": "0.25"})


def _mlp(gate):
    def expect(x):
        v = x["x"]
        return {"return": (_ACTS[gate](v @ x["wg"]) * (v @ x["wu"])) @ x["wd"]}
    return expect


pkg("pkg_mlp_swiglu", "mlp/swiglu.py", "gated_mlp",
    [("x", "float32", (192, 256), eighths(-1, 1)), ("wg", "float32", (256, 256), eighths(-0.25, 0.25)),
     ("wu", "float32", (256, 256), eighths(-0.25, 0.25)), ("wd", "float32", (256, 256), eighths(-0.25, 0.25))],
    _mlp("silu"), RET, tol=FUSED, args={"n_tile": "128"})
pkg("pkg_mlp_geglu", "mlp/swiglu.py", "gated_mlp",
    [("x", "float32", (128, 128), eighths(-1, 1)), ("wg", "float32", (128, 384), eighths(-0.25, 0.25)),
     ("wu", "float32", (128, 384), eighths(-0.25, 0.25)), ("wd", "float32", (384, 256), eighths(-0.25, 0.25))],
    _mlp("gelu"), RET, tol=FUSED, args={"gate": "ActivationKind.GELU", "n_tile": "256"})


# --- writing ----------------------------------------------------------------

def _bf16_exact(v):
    return np.all((v.astype(np.float32).view(np.uint32) & 0xFFFF) == 0)


def _check_input(c, name, dtype, v):
    """Inputs must be exact in their dtype (the Go side converts float32 to it)."""
    if dtype == "bfloat16" and not _bf16_exact(v):
        raise SystemExit("case %s: input %s is not exact in bfloat16" % (c["name"], name))
    if dtype == "float16" and not np.array_equal(v.astype(np.float16).astype(np.float64), v):
        raise SystemExit("case %s: input %s is not exact in float16" % (c["name"], name))
    if dtype in INT_DTYPES and not np.array_equal(np.round(v), v):
        raise SystemExit("case %s: input %s is not integral" % (c["name"], name))


def _stored(dtype, v):
    """The array written for a value v of dtype: float16 when that holds every
    value exactly (most inputs and exact results: half the bytes, and they
    compress better), else float32 (rounded once); integers as themselves."""
    if dtype in FLOAT_DTYPES:
        v = np.ascontiguousarray(v, dtype=np.float64)
        with np.errstate(over="ignore"):
            half = v.astype(np.float16)
        if np.array_equal(half.astype(np.float64), v):
            return half
        return v.astype(np.float32)
    if dtype in INT_DTYPES:
        return np.ascontiguousarray(v).astype(np.dtype(dtype))
    raise SystemExit("unknown dtype %s" % dtype)


def build(c):
    """Draws the inputs and computes the outputs of case c: (arrays, manifest entry)."""
    # A twin draws its legacy case's inputs (same seed) and shares its archive.
    seed_name = c["twin"] or c["name"]
    rng = np.random.RandomState(zlib.crc32(seed_name.encode()) & 0x7FFFFFFF)
    arrays, x, inputs = {}, {}, []
    for name, dtype, shape, gen in c["inputs"]:
        v = gen(rng, shape)
        _check_input(c, name, dtype, v)
        x[name] = v.astype(np.float64)
        arrays["in." + name] = _stored(dtype, v)  # C order: narwhal reads no other
        inputs.append({"name": name, "dtype": dtype, "shape": list(shape)})
    want = c["expect"]({k: v.copy() for k, v in x.items()})
    keys = [k for k, _ in c["outputs"]]
    if sorted(want) != sorted(keys):
        raise SystemExit("case %s: expect() gives %s, outputs list %s" % (c["name"], sorted(want), sorted(keys)))
    outputs = []
    for key, dtype in c["outputs"]:
        v = np.asarray(want[key], dtype=np.float64)
        arrays["out." + key] = _stored(dtype, v)
        outputs.append({"key": key, "dtype": dtype, "shape": list(v.shape)})
    abs_tol, rel_tol, reason = c["tol"]
    entry = {
        "name": c["name"],
        "file": c["file"],
        "kernel": c["kernel"],
        "inputs": inputs,
        "args": c["args"],
        "grid": c["grid"],
        "outputs": outputs,
        "tolerance": {"abs": abs_tol, "rel": rel_tol, "reason": reason},
        "golden": "golden/%s.npz" % seed_name,
        "api": c["api"],
        "path": c["path"],
        "twin": c["twin"],
    }
    return arrays, entry


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "golden"), help="output directory (default: golden/ beside this script)")
    ap.add_argument("--list", action="store_true", help="print the case names and exit")
    opts = ap.parse_args(argv)
    names = [c["name"] for c in CASES]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate case names")
    if opts.list:
        print("\n".join(names))
        return
    os.makedirs(opts.out, exist_ok=True)
    entries = []
    for c in CASES:
        arrays, entry = build(c)
        if c["twin"] is None:
            np.savez_compressed(os.path.join(opts.out, c["name"] + ".npz"), **arrays)
        entries.append(entry)
    manifest = {
        "comment": "Written by kernels/nki/refgen.py; do not edit. Float arrays hold values (float16 when that is exact, else float32), converted to the listed dtype by the harness; integer arrays are their own dtype.",
        "value_format": "float16-or-float32-values",
        "cases": entries,
    }
    with open(os.path.join(opts.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("%d cases written to %s" % (len(entries), opts.out))


if __name__ == "__main__":
    main(sys.argv[1:])
