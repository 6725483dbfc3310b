"""Attention heads: scores by matmul, row softmax, a transpose of the
probabilities, and a second matmul with the values; one with ISA transposes
and PSUM accumulation over key chunks, one causal head with
nisa.affine_select and nl.transpose.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

KEY_CHUNK = 128


@nki.jit
def attention_fwd(q, k, v, softmax_scale=0.125):
    """One attention head: out = softmax(scale * Q @ K.T) @ V with the head
    dimension d on the partitions of q [d, Sq] and k [d, Sk] (Q = q.T,
    K = k.T), v [Sk, d], Sq <= 128, Sk a multiple of 128, d <= 128.
    Scores: nisa.nc_matmul(q, k) -> PSUM [Sq, Sk]; softmax over keys with
    nl.max / nl.exp / nl.sum and nl.reciprocal; each [Sq, 128] probability
    chunk is transposed with nisa.nc_transpose and multiplied with its value
    rows, accumulating [Sq, d] in PSUM; the row sums divide at the end."""
    d, sq = q.shape
    _, sk = k.shape
    out = nl.ndarray((sq, d), dtype=nl.float32, buffer=nl.shared_hbm)
    q_t = nl.load(q)
    k_t = nl.load(k)
    scores = nisa.tensor_scalar(nisa.nc_matmul(q_t, k_t), np.multiply, softmax_scale)
    row_max = nl.max(scores, axis=1, keepdims=True)
    probs = nl.exp(nl.subtract(scores, row_max))
    inv_sum = nl.reciprocal(nl.sum(probs, axis=1, keepdims=True))
    o_acc = nl.zeros((sq, d), dtype=nl.float32, buffer=nl.psum)
    for j in nl.affine_range(sk // KEY_CHUNK):
        keys = nl.ds(j * KEY_CHUNK, KEY_CHUNK)
        p_t = nl.copy(nisa.nc_transpose(probs[:, keys]))
        v_t = nl.load(v[keys, :])
        o_acc += nisa.nc_matmul(p_t, v_t)
    nl.store(out, value=nl.multiply(o_acc, inv_sum))
    return out


@nki.jit(mode="simulation")
def causal_attention(q, k, v, softmax_scale=0.125):
    """One causal attention head over S <= 128 positions: out =
    softmax(scale * Q @ K.T + causal mask) @ V, where query i sees keys
    j <= i only, for q, k [d, S] (head dimension on the partitions) and
    v [S, d]. Scores: nl.matmul(q, k, transpose_x=True); the mask:
    nisa.affine_select(pred=(i_q >= i_k)) with -9984.0 elsewhere (exp of it
    is 0 in float32); the transpose: nl.transpose; the values:
    nl.matmul(p.T, v, transpose_x=True). Decorated with the keyword form of
    nki.jit that the Neuron SDK's API tests use."""
    d, s = q.shape
    out = nl.ndarray((s, d), dtype=nl.float32, buffer=nl.shared_hbm)
    q_t = nl.load(q)
    k_t = nl.load(k)
    scores = nl.multiply(nl.matmul(q_t, k_t, transpose_x=True), softmax_scale)
    i_q, i_k = nl.mgrid[0:s, 0:s]
    masked = nisa.affine_select(pred=(i_q >= i_k), on_true_tile=scores[i_q, i_k],
                                on_false_value=-9984.0)
    row_max = nl.max(masked, axis=1, keepdims=True)
    probs = nl.exp(nl.subtract(masked, row_max))
    probs = nl.divide(probs, nl.sum(probs, axis=1, keepdims=True))
    probs_t = nl.copy(nl.transpose(probs))
    v_t = nl.load(v)
    nl.store(out, value=nl.copy(nl.matmul(probs_t, v_t, transpose_x=True)))
    return out
