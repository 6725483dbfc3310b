"""Scans with nisa.tensor_tensor_scan in the current `nki` API: a long scan
split into chunks carried through an nl.sequential_range, the Mamba-v1
selective scan, and scans with other operators and reversed operands.

tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False,
reverse1=False) computes, per partition,
  dst[:, 0] = op1(op0(data0[:, 0], initial), data1[:, 0])
  dst[:, i] = op1(op0(data0[:, i], dst[:, i-1]), data1[:, i])
(nki.isa stub). Each kernel is the twin of the legacy kernel of the same
name (kernels/nki/legacy/scan.py): the same instructions in the same order.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import nki
import nki.isa as nisa
import nki.language as nl

P = 128


@nki.jit
def scan_chunked(a, b, chunk=128):
    """For [128, T] float32 a and b returns h with h[:, t] = a[:, t] *
    h[:, t-1] + b[:, t] (h[:, -1] = 0), computed chunk columns at a time: each
    nl.sequential_range iteration scans its chunk from the last column of the
    previous one, kept in a [128, 1] carry tile."""
    parts, t_len = a.shape
    at = nl.ndarray((parts, t_len), dtype=a.dtype, buffer=nl.sbuf)
    bt = nl.ndarray((parts, t_len), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a)
    nisa.dma_copy(dst=bt, src=b)
    h = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    carry = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=carry, value=0.0)
    for c in nl.sequential_range(t_len // chunk):
        cols = nl.ds(c * chunk, chunk)
        nisa.tensor_tensor_scan(dst=h[:, cols], data0=at[:, cols], data1=bt[:, cols], initial=carry,
                                op0=nl.multiply, op1=nl.add)
        nisa.tensor_copy(dst=carry, src=h[:, nl.ds(c * chunk + chunk - 1, 1)])
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=h)
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
    exp(delta * A[:, s]) is one nisa.activation with a per-partition scale;
    the B and C rows are copied to every partition by a DMA whose access
    pattern steps 0 along the partitions (an HBM pattern, nki-aps); the
    recurrence is one nisa.tensor_tensor_scan; the states add up into an
    SBUF accumulator (nisa.tensor_tensor, dst = data1)."""
    batch, channels, t_len = delta.shape
    states = A.shape[1]
    out = nl.ndarray(delta.shape, dtype=delta.dtype, buffer=nl.shared_hbm)
    for ib in nl.affine_range(batch):
        for ic in nl.affine_range(channels // P):
            ch = nl.ds(ic * P, P)
            d_t = nl.ndarray((P, t_len), dtype=delta.dtype, buffer=nl.sbuf)
            u_t = nl.ndarray((P, t_len), dtype=u.dtype, buffer=nl.sbuf)
            a_t = nl.ndarray((P, states), dtype=A.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=d_t, src=delta[ib, ch, :])
            nisa.dma_copy(dst=u_t, src=u[ib, ch, :])
            nisa.dma_copy(dst=a_t, src=A[ch, :])
            du = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=du, data1=d_t, data2=u_t, op=nl.multiply)
            acc = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=acc, value=0.0)
            for s in nl.affine_range(states):
                decay = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=decay, op=nl.exp, data=d_t, scale=a_t[:, nl.ds(s, 1)])
                row = (ib * states + s) * t_len
                b_bc = nl.ndarray((P, t_len), dtype=B.dtype, buffer=nl.sbuf)
                c_bc = nl.ndarray((P, t_len), dtype=C.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_bc, src=B.ap(pattern=[[0, P], [1, t_len]], offset=row))
                nisa.dma_copy(dst=c_bc, src=C.ap(pattern=[[0, P], [1, t_len]], offset=row))
                dbu = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=dbu, data1=du, data2=b_bc, op=nl.multiply)
                h = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=h, data0=decay, data1=dbu, initial=0.0, op0=nl.multiply, op1=nl.add)
                hc = nl.ndarray((P, t_len), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h, data2=c_bc, op=nl.multiply)
                nisa.tensor_tensor(dst=acc, data1=acc, data2=hc, op=nl.add)
            nisa.dma_copy(dst=out[ib, ch, :], src=acc)
    return out


@nki.jit
def scan_max_and_alternating(x):
    """For a [128, T] float32 x returns (running_max, alternating):
      running_max[:, t] = max(x[:, t], running_max[:, t-1]) from -1000.0
        (op0=nl.maximum on data0 = x, op1=nl.add with data1 = zeros);
      alternating[:, t] = x[:, t] - alternating[:, t-1] from 0.0
        (data0 = ones, op0=nl.multiply, op1=nl.subtract with reverse1=True,
        so data1 = x is op1's left operand)."""
    parts, t_len = x.shape
    xt = nl.ndarray((parts, t_len), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    zeros = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    ones = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=zeros, value=0.0)
    nisa.memset(dst=ones, value=1.0)
    run_max = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    alt = nl.ndarray((parts, t_len), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor_scan(dst=run_max, data0=xt, data1=zeros, initial=-1000.0, op0=nl.maximum, op1=nl.add)
    nisa.tensor_tensor_scan(dst=alt, data0=ones, data1=xt, initial=0.0, op0=nl.multiply, op1=nl.subtract,
                            reverse1=True)
    max_out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    alt_out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=max_out, src=run_max)
    nisa.dma_copy(dst=alt_out, src=alt)
    return max_out, alt_out
