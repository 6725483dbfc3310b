"""flash_attention: single-head attention softmax(scale * q @ k.T) @ v
computed block by block with an online softmax, so that no [seq_q,
seq_kv] score matrix is ever whole, in the current `nki` API.

For each q block (q_tile queries on the partitions) the kv blocks it sees
(MaskKind: all, or the causal ones; later blocks are skipped by a Python
decision) are visited in order, keeping per query a running max m, a
running sum l and an unnormalized output acc:
    s      = scale * q_blk @ k_blk.T              (nc_matmul, scaled out of PSUM)
    s      = causal mask on the diagonal blocks   (affine_select)
    m_new  = max(m, rowmax(s))                    (tensor_reduce, tensor_tensor)
    p      = exp(s - m_new), rowsum(p)            (one activation with reduce_res)
    c      = exp(m - m_new)                       (activation)
    l      = l * c + rowsum(p)                    (scalar_tensor_tensor)
    acc    = acc * c + p @ v_blk                  (scalar_tensor_tensor, PSUM operand)
and the block's output is acc / l. q and k are transposed on the Tensor
Engine once (the contraction over the head dimension must be on the
partitions), p once per block.
"""
from typing import List, Tuple

import nki
import nki.isa as nisa
import nki.language as nl

from narwhal_kernels.common.enums import MaskKind
from ..common.helpers import PARTITIONS, KernelConfigError, negate_column, sbuf_tile, transpose_block
from .config import AttentionConfig


class OnlineSoftmaxState(nl.NKIObject):
    """m, l and acc of one q block, replaced (not updated in place) at every
    kv block, so each step reads the previous step's tiles."""

    def __init__(self, rows: int, head_dim: int):
        self.rows = rows
        self.head_dim = head_dim
        self.m = None
        self.l = None
        self.acc = None
        self.steps = 0

    @property
    def started(self) -> bool:
        return self.m is not None

    def step(self, scores, v_blk, kv_size: int):
        """Folds one block of scaled (and masked) scores into the state."""
        rows = self.rows
        blk_max = sbuf_tile((PARTITIONS, 1), nl.float32)
        nisa.tensor_reduce(dst=blk_max[0:rows, :], op=nl.maximum, data=scores[0:rows, 0:kv_size], axis=1, keepdims=True)
        if self.started:
            m_new = sbuf_tile((PARTITIONS, 1), nl.float32)
            nisa.tensor_tensor(dst=m_new[0:rows, :], data1=self.m[0:rows, :], data2=blk_max[0:rows, :], op=nl.maximum)
        else:
            m_new = blk_max
        neg_m = negate_column(m_new, rows)
        p = sbuf_tile((PARTITIONS, kv_size), nl.float32)
        p_sum = sbuf_tile((PARTITIONS, 1), nl.float32)
        nisa.activation(dst=p[0:rows, :], op=nl.exp, data=scores[0:rows, 0:kv_size], bias=neg_m[0:rows, :],
                        reduce_op=nl.add, reduce_res=p_sum[0:rows, :], reduce_cmd=nisa.reduce_cmd.reset_reduce)
        p_t = transpose_block(p, rows, 0, kv_size)
        pv = nl.ndarray((PARTITIONS, self.head_dim), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=pv[0:rows, :], stationary=p_t[0:kv_size, 0:rows], moving=v_blk[0:kv_size, :])
        if not self.started:
            l_new = p_sum
            acc_new = sbuf_tile((PARTITIONS, self.head_dim), nl.float32)
            nisa.tensor_copy(dst=acc_new[0:rows, :], src=pv[0:rows, :])
        else:
            corr = sbuf_tile((PARTITIONS, 1), nl.float32)
            nisa.activation(dst=corr[0:rows, :], op=nl.exp, data=self.m[0:rows, :], bias=neg_m[0:rows, :])
            l_new = sbuf_tile((PARTITIONS, 1), nl.float32)
            nisa.scalar_tensor_tensor(dst=l_new[0:rows, :], data=self.l[0:rows, :], op0=nl.multiply,
                                      operand0=corr[0:rows, :], op1=nl.add, operand1=p_sum[0:rows, :])
            acc_new = sbuf_tile((PARTITIONS, self.head_dim), nl.float32)
            nisa.scalar_tensor_tensor(dst=acc_new[0:rows, :], data=self.acc[0:rows, :], op0=nl.multiply,
                                      operand0=corr[0:rows, :], op1=nl.add, operand1=pv[0:rows, :])
        self.m, self.l, self.acc = m_new, l_new, acc_new
        self.steps += 1

    def finish(self):
        """acc / l, the block's output."""
        if not self.started:
            raise KernelConfigError("a q block saw no kv block")
        o = sbuf_tile((PARTITIONS, self.head_dim), nl.float32)
        nisa.tensor_scalar(dst=o[0:self.rows, :], data=self.acc[0:self.rows, :], op0=nl.divide,
                           operand0=self.l[0:self.rows, :])
        return o


def _transposed_blocks(t, cfg_blocks, head_dim: int) -> List[Tuple[int, object]]:
    """[head_dim, block] transposes of each row block of the [S, d] HBM
    tensor t: (block size, tile)."""
    out = []
    for b in cfg_blocks:
        rows = sbuf_tile((PARTITIONS, head_dim), nl.float32)
        nisa.dma_copy(dst=rows[0:b.size, :], src=t[b.slice(), :])
        out.append((b.size, transpose_block(rows, b.size, 0, head_dim)))
    return out


def _scores(cfg: AttentionConfig, q_t, k_t, q_blk, kv_blk):
    """scale * q_blk @ kv_blk.T as an SBUF tile, masked when the block needs it."""
    qs, ks = q_blk.size, kv_blk.size
    ps = nl.ndarray((PARTITIONS, PARTITIONS), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps[0:qs, 0:ks], stationary=q_t[0:cfg.head_dim, 0:qs], moving=k_t[0:cfg.head_dim, 0:ks])
    s = sbuf_tile((PARTITIONS, PARTITIONS), nl.float32)
    nisa.activation(dst=s[0:qs, 0:ks], op=nl.copy, data=ps[0:qs, 0:ks], scale=cfg.softmax_scale)
    if not cfg.masked(q_blk.index, kv_blk.index):
        return s
    # Keep score (i, j) where key kv_blk.start + j <= query q_blk.start + i:
    # (q_start - kv_start) + i - j >= 0, an affine predicate of the
    # partition i (channel_multiplier 1) and the column j (step -1).
    masked = sbuf_tile((PARTITIONS, PARTITIONS), nl.float32)
    nisa.affine_select(dst=masked[0:qs, 0:ks], pattern=[[-1, ks]], channel_multiplier=1, on_true_tile=s[0:qs, 0:ks],
                       on_false_value=cfg.mask_value, cmp_op=nl.greater_equal, offset=q_blk.start - kv_blk.start)
    return masked


@nki.jit
def flash_attention(q, k, v, mask=MaskKind.CAUSAL, kv_tile=128, softmax_scale=None):
    """For float32 q [Sq, d], k [Skv, d], v [Skv, d] (d <= 128; the tiles
    dividing the lengths) returns the [Sq, d] float32
        softmax(softmax_scale * q @ k.T + M) @ v
    with M = 0 (mask = MaskKind.NONE) or -inf above the diagonal
    (MaskKind.CAUSAL, Sq == Skv), softmax_scale defaulting to 1 / sqrt(d)."""
    seq_q, d = q.shape
    seq_kv, d_k = k.shape
    if d_k != d or tuple(v.shape) != (seq_kv, d):
        raise KernelConfigError(f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)} do not fit")
    cfg = AttentionConfig(seq_q=seq_q, seq_kv=seq_kv, head_dim=d, kv_tile=kv_tile,
                          q_tile=kv_tile if mask.is_causal else 128, mask=mask, softmax_scale=softmax_scale)
    out = nl.ndarray((seq_q, d), dtype=nl.float32, buffer=nl.shared_hbm)
    k_t = _transposed_blocks(k, cfg.kv_blocks, d)
    v_blocks = []
    for b in cfg.kv_blocks:
        vt = sbuf_tile((PARTITIONS, d), nl.float32)
        nisa.dma_copy(dst=vt[0:b.size, :], src=v[b.slice(), :])
        v_blocks.append(vt)
    for qb, (_, q_t) in zip(cfg.q_blocks, _transposed_blocks(q, cfg.q_blocks, d)):
        state = OnlineSoftmaxState(qb.size, d)
        for j in cfg.blocks_for(qb.index):
            kvb = cfg.kv_blocks[j]
            s = _scores(cfg, q_t, k_t[j][1], qb, kvb)
            state.step(s, v_blocks[j], kvb.size)
        o = state.finish()
        nisa.dma_copy(dst=out[qb.slice(), :], src=o[0:qb.size, :])
    return out
