"""Loops in the current `nki` API: every iterator (range, nl.affine_range,
nl.sequential_range, nl.static_range) runs the body once per iteration as
Python does, so Python values carried across iterations, `if` on the
iterator, lists and string-keyed dicts all behave as in Python (the NKI
0.2 migration guide, "Consistent control flow behavior": `val += 1` in an
8-iteration loop prints 8, where the legacy API traced the body once and
printed 1).

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
The loop kernels with a legacy twin (kernels/nki/legacy/loops.py) compute
the same values.
"""
import nki
import nki.isa as nisa
import nki.language as nl

BLOCK = 128


@nki.jit
def running_sum_sequential(x):
    """For [128, B*128] float32 x returns the running sum over its column
    blocks: block k of the result is x's blocks 0..k added. The accumulator
    tile is carried from one nl.sequential_range iteration to the next and
    updated in place (nisa.tensor_tensor with dst = data1). Twin of the
    legacy running_sum_sequential."""
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((rows, BLOCK), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for k in nl.sequential_range(cols // BLOCK):
        blk = nl.ndarray((rows, BLOCK), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[:, nl.ds(k * BLOCK, BLOCK)])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)
        nisa.dma_copy(dst=out[:, nl.ds(k * BLOCK, BLOCK)], src=acc)
    return out


@nki.jit
def scaled_blocks_static(x):
    """For [R, 128] float32 x (R a multiple of 128) returns x with its k-th
    128-row block multiplied by (k + 1) / 2, Python arithmetic on the
    nl.static_range iterator. Twin of the legacy scaled_blocks_static."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for k in nl.static_range(x.shape[0] // BLOCK):
        factor = (k + 1) / 2
        t = nl.ndarray((BLOCK, x.shape[1]), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[k * BLOCK:(k + 1) * BLOCK, :])
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=factor)
        nisa.dma_copy(dst=out[k * BLOCK:(k + 1) * BLOCK, :], src=t)
    return out


@nki.jit
def alternating_blocks_range(x, y):
    """For [128, B*128] float32 x and y returns z with column block k equal to
    x + y for even k and x - y for odd k, chosen by a Python `if` on the
    iterator of a plain Python range. Twin of the legacy
    alternating_blocks_range."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for k in range(x.shape[1] // BLOCK):
        cols = slice(k * BLOCK, (k + 1) * BLOCK)
        xt = nl.ndarray((x.shape[0], BLOCK), dtype=x.dtype, buffer=nl.sbuf)
        yt = nl.ndarray((y.shape[0], BLOCK), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[:, cols])
        nisa.dma_copy(dst=yt, src=y[:, cols])
        z = nl.ndarray((x.shape[0], BLOCK), dtype=x.dtype, buffer=nl.sbuf)
        if k % 2 == 0:
            nisa.tensor_tensor(dst=z, data1=xt, data2=yt, op=nl.add)
        else:
            nisa.tensor_tensor(dst=z, data1=xt, data2=yt, op=nl.subtract)
        nisa.dma_copy(dst=out[:, cols], src=z)
    return out


@nki.jit
def python_loop_semantics(x):
    """For [B*128, C] float32 x (B row blocks) returns y with row block i
    equal to x's block i * (i + count) + last, where, following Python:
      count = 4, the number of iterations of an nl.affine_range(4) loop that
              adds 1 to a Python int (the legacy API traced the body once and
              got 1);
      last  = 2, set by an `if i == 0: last = 1 / else: last = 2` in a
              3-iteration range loop (undefined in the legacy API);
    the per-block factors are collected in a Python list by an
    nl.sequential_range loop and the offsets in a string-keyed dict, and
    the row-block tiles live in a list (the block dimension's migration:
    "Translation of Block Dimensions")."""
    blocks = x.shape[0] // BLOCK
    cols = x.shape[1]
    count = 0
    for _ in nl.affine_range(4):
        count += 1  # python-loop: a Python int carried across the iterations (4, not 1)
    last = 0
    for i in range(3):
        if i == 0:
            last = 1  # python-loop: the branch taken per iteration
        else:
            last = 2
    factors = []
    for i in nl.sequential_range(blocks):
        factors.append(float(i + count))  # python-loop: list.append once per iteration
    offsets = {"last": float(last), "none": 0.0}
    assert count == 4 and last == 2 and len(factors) == blocks
    tiles = []
    for i in range(blocks):
        t = nl.ndarray((BLOCK, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * BLOCK:(i + 1) * BLOCK, :])
        tiles.append(t)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i, t in enumerate(tiles):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=factors[i],
                           op1=nl.add, operand1=offsets["last"] + offsets.get("none", 1.0))
        nisa.dma_copy(dst=out[i * BLOCK:(i + 1) * BLOCK, :], src=t)
    return out
