"""Scans with nisa.tensor_tensor_scan: a long scan split into chunks carried
through an nl.sequential_range, a Mamba-style selective scan, and scans with
other operators and reversed operands.

tensor_tensor_scan (general/nki/api nki.isa) computes, per partition,
  result[:, 0] = op1(op0(data0[:, 0], initial), data1[:, 0])
  result[:, i] = op1(op0(data0[:, i], result[:, i-1]), data1[:, i])
with reverse0/reverse1 swapping the operands of op0/op1.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

P = 128


@nki.jit
def scan_chunked(a, b, chunk=128):
    """For [128, T] float32 a and b returns h with h[:, t] = a[:, t] *
    h[:, t-1] + b[:, t] (h[:, -1] = 0), computed chunk columns at a time: each
    nl.sequential_range iteration scans its chunk from the last column of the
    previous one, kept in a [128, 1] carry tile."""
    parts, t_len = a.shape
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.load(a)
    bt = nl.load(b)
    h = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    carry = nl.zeros((parts, 1), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.sequential_range(t_len // chunk):
        cols = nl.ds(c * chunk, chunk)
        h[:, cols] = nisa.tensor_tensor_scan(at[:, cols], bt[:, cols], initial=carry,
                                             op0=np.multiply, op1=np.add)
        carry[...] = nl.copy(h[:, nl.ds(c * chunk + chunk - 1, 1)])
    nl.store(out, value=h)
    return out


@nki.jit
def mamba_selective_scan(delta, u, A, B, C):
    """Mamba-v1 selective scan: for delta, u [batch, channels, T], A
    [channels, states], B, C [batch, states, T] returns out [batch, channels, T]
    with
      h[b, c, s, t] = exp(delta[b, c, t] * A[c, s]) * h[b, c, s, t-1]
                      + delta[b, c, t] * B[b, s, t] * u[b, c, t]   (h[..., -1] = 0)
      out[b, c, t]  = sum_s C[b, s, t] * h[b, c, s, t].
    Channels go on the partitions in tiles of 128, time on the free axis;
    exp(delta * A[:, s]) is one nisa.activation with a per-partition scale,
    B and C rows are broadcast across the partitions, the recurrence is one
    nisa.tensor_tensor_scan, and the states add up into an SBUF accumulator
    with += (an associative reduction, so the state loop is an
    nl.affine_range)."""
    batch, channels, t_len = delta.shape
    states = A.shape[1]
    out = nl.ndarray(delta.shape, dtype=delta.dtype, buffer=nl.shared_hbm)
    for ib in nl.affine_range(batch):
        for ic in nl.affine_range(channels // P):
            ch = nl.ds(ic * P, P)
            d_t = nl.load(delta[ib, ch, :])
            u_t = nl.load(u[ib, ch, :])
            a_t = nl.load(A[ch, :])
            du = nisa.tensor_tensor(d_t, u_t, op=nl.multiply)
            acc = nl.zeros((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.affine_range(states):
                decay = nisa.activation(op=nl.exp, data=d_t, scale=a_t[:, nl.ds(s, 1)])
                b_row = nl.load(B[ib, nl.ds(s, 1), :])
                c_row = nl.load(C[ib, nl.ds(s, 1), :])
                dbu = nisa.tensor_tensor(du, b_row.broadcast_to((P, t_len)), op=nl.multiply)
                h = nisa.tensor_tensor_scan(decay, dbu, initial=0.0, op0=np.multiply, op1=np.add)
                acc += nisa.tensor_tensor(h, c_row.broadcast_to((P, t_len)), op=nl.multiply)
            nl.store(out[ib, ch, :], value=acc)
    return out


@nki.jit
def scan_max_and_alternating(x):
    """For a [128, T] float32 x returns (running_max, alternating):
      running_max[:, t] = max(x[:, t], running_max[:, t-1]) from -1000.0
        (op0=np.maximum on data0 = x, op1=np.add with data1 = zeros);
      alternating[:, t] = x[:, t] - alternating[:, t-1] from 0.0
        (data0 = ones, op0=np.multiply, op1=np.subtract with reverse1=True,
        so data1 = x is op1's left operand)."""
    parts, t_len = x.shape
    xt = nl.load(x)
    zeros = nl.zeros((parts, t_len), dtype=nl.float32)
    ones = nl.ones((parts, t_len), dtype=nl.float32)
    run_max = nisa.tensor_tensor_scan(xt, zeros, initial=-1000.0, op0=np.maximum, op1=np.add)
    alt = nisa.tensor_tensor_scan(ones, xt, initial=0.0, op0=np.multiply, op1=np.subtract,
                                  reverse1=True)
    max_out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    alt_out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(max_out, value=run_max)
    nl.store(alt_out, value=alt)
    return max_out, alt_out
