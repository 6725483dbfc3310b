"""The loop iterators side by side: nl.sequential_range with a loop-carried
dependency, nl.static_range and Python range (both unrolled by the tracer,
so Python arithmetic and control flow on the iterator are allowed).

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

BLOCK = 128


@nki.jit
def running_sum_sequential(x):
    """For [128, B*128] float32 x returns the running sum over its column
    blocks: block k of the result is x's blocks 0..k added. The accumulator
    tile is carried from one nl.sequential_range iteration to the next
    (written in place with acc[...] = ...)."""
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((rows, BLOCK), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.sequential_range(cols // BLOCK):
        blk = nl.load(x[:, nl.ds(k * BLOCK, BLOCK)])
        acc[...] = nl.add(acc, blk)
        nl.store(out[:, nl.ds(k * BLOCK, BLOCK)], value=acc)
    return out


@nki.jit
def scaled_blocks_static(x):
    """For [R, 128] float32 x (R a multiple of 128) returns x with its k-th
    128-row block multiplied by (k + 1) / 2. The factor is Python arithmetic
    on the nl.static_range iterator, which the tracer unrolls."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for k in nl.static_range(x.shape[0] // BLOCK):
        factor = (k + 1) / 2
        t = nl.load(x[k * BLOCK:(k + 1) * BLOCK, :])
        nl.store(out[k * BLOCK:(k + 1) * BLOCK, :], value=nl.multiply(t, factor))
    return out


@nki.jit
def alternating_blocks_range(x, y):
    """For [128, B*128] float32 x and y returns z with column block k equal to
    x + y for even k and x - y for odd k, chosen by a Python `if` on the
    iterator of a plain Python range loop (unrolled, as Python runs it)."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for k in range(x.shape[1] // BLOCK):
        cols = slice(k * BLOCK, (k + 1) * BLOCK)
        xt = nl.load(x[:, cols])
        yt = nl.load(y[:, cols])
        if k % 2 == 0:
            z = nl.add(xt, yt)
        else:
            z = nl.subtract(xt, yt)
        nl.store(out[:, cols], value=z)
    return out
