"""Single-head attention in the current `nki` API, q and k given transposed
(head dimension on the partitions) so that the score matrix is one
nc_matmul: scores = q.T @ k. The softmax takes -max from tensor_reduce,
exp and the row sums from one activation, and the normalisation divides
the PSUM output by the row sums; P @ v contracts over the keys, so each
128-key block of P is transposed on the Tensor Engine and the blocks
accumulate into one PSUM tile. The causal form masks the scores with
nisa.affine_select (key index <= query index).

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py
(the same references as the legacy attention_fwd and causal_attention).
"""
import nki
import nki.isa as nisa
import nki.language as nl

P = 128
MASKED = -30000.0   # exp(MASKED - max) is 0.0 in float32 for scores of order 1


def _attention(q, k, v, scale, causal):
    d, sq = q.shape
    _, skv = k.shape
    assert sq == P and skv % P == 0 and v.shape == (skv, d)
    qt = nl.ndarray((d, sq), dtype=q.dtype, buffer=nl.sbuf)
    kt = nl.ndarray((d, skv), dtype=k.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=qt, src=q)
    nisa.dma_copy(dst=kt, src=k)
    s_ps = nl.ndarray((sq, skv), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=s_ps, stationary=qt, moving=kt)
    s = nl.ndarray((sq, skv), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=s, op=nl.copy, data=s_ps, scale=scale)
    if causal:
        masked = nl.ndarray((sq, skv), dtype=nl.float32, buffer=nl.sbuf)
        nisa.affine_select(dst=masked, pattern=[[-1, skv]], channel_multiplier=1, on_true_tile=s,
                           on_false_value=MASKED, cmp_op=nl.greater_equal, offset=0)
        s = masked
    neg_max = nl.ndarray((sq, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=s, axis=1, negate=True, keepdims=True)
    e = nl.ndarray((sq, skv), dtype=nl.float32, buffer=nl.sbuf)
    total = nl.ndarray((sq, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=e, op=nl.exp, data=s, bias=neg_max, reduce_op=nl.add, reduce_res=total,
                    reduce_cmd=nisa.reduce_cmd.reset_reduce)
    o_ps = nl.ndarray((sq, d), dtype=nl.float32, buffer=nl.psum)
    for j in range(skv // P):
        et_ps = nl.ndarray((P, sq), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=et_ps, data=e[:, j * P:(j + 1) * P], engine=nisa.engine.tensor)
        et = nl.ndarray((P, sq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=et, src=et_ps)
        vt = nl.ndarray((P, d), dtype=v.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=vt, src=v[j * P:(j + 1) * P, :])
        nisa.nc_matmul(dst=o_ps, stationary=et, moving=vt)
    o = nl.ndarray((sq, d), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=o, data=o_ps, op0=nl.divide, operand0=total)
    out = nl.ndarray((sq, d), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def attention_fwd(q, k, v, scale=0.125):
    """softmax(scale * q.T @ k) @ v for q [d, 128], k [d, S], v [S, d] float32
    (d <= 128, S a multiple of 128)."""
    return _attention(q, k, v, scale, causal=False)


@nki.jit
def causal_attention(q, k, v, scale=0.125):
    """softmax(scale * q.T @ k, keys after the query masked) @ v for q
    [d, 128], k [d, 128], v [128, d] float32."""
    return _attention(q, k, v, scale, causal=True)
