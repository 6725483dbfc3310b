"""gated_mlp: out = (act(x @ wg) * (x @ wu)) @ wd, the gated MLP of
LLaMA-style transformers (SwiGLU with act = SiLU), in the current `nki`
API.

The intermediate activations are produced transposed, intermediate
features on the partitions: h^T = wg^T @ x^T is nc_matmul with the weight
block as the stationary operand and x^T as the moving one, so the down
projection, which contracts over the intermediate features, takes h^T as
its stationary operand directly and no intermediate transpose is needed.
Per 128-row tile of x:
  1. x's 128-column blocks are transposed on the Tensor Engine;
  2. for each 128-feature block i of the intermediate: g^T and u^T
     accumulate over x's column blocks in two PSUM tiles; the gate's
     activation reads g^T from PSUM, and the product with u^T (still in
     PSUM) is h^T_i in SBUF;
  3. for each n_tile block of the output the h^T_i accumulate against
     wd's row blocks in one PSUM tile, which is copied out.
"""
from typing import List

import nki
import nki.isa as nisa
import nki.language as nl

from narwhal_kernels.common.enums import ActivationKind
from ..common import helpers
from ..common.helpers import PARTITIONS, KernelConfigError, load_rows, sbuf_tile
from .config import MlpConfig


def _resident(w, tiles, cols: int) -> List[object]:
    """The 128-row blocks of the HBM weight w as resident SBUF tiles."""
    blocks = []
    for t in tiles:
        sb = sbuf_tile((PARTITIONS, cols), nl.float32)
        nisa.dma_copy(dst=sb, src=w[t.slice(), :])
        blocks.append(sb)
    return blocks


def _gated_block(cfg: MlpConfig, x_t, wg, wu, i_tile, rows: int):
    """h^T of intermediate block i_tile: act(g^T) * u^T, [128, rows] in SBUF."""
    g_ps = nl.ndarray((PARTITIONS, PARTITIONS), dtype=nl.float32, buffer=nl.psum)
    u_ps = nl.ndarray((PARTITIONS, PARTITIONS), dtype=nl.float32, buffer=nl.psum)
    cols = i_tile.slice()
    for hb, (_, xt) in enumerate(x_t):
        nisa.nc_matmul(dst=g_ps[:, 0:rows], stationary=wg[hb][:, cols], moving=xt[:, 0:rows])
        nisa.nc_matmul(dst=u_ps[:, 0:rows], stationary=wu[hb][:, cols], moving=xt[:, 0:rows])
    gated = sbuf_tile((PARTITIONS, PARTITIONS), nl.float32)
    nisa.activation(dst=gated[:, 0:rows], op=cfg.gate.nki_op(), data=g_ps[:, 0:rows])
    nisa.tensor_tensor(dst=gated[:, 0:rows], data1=gated[:, 0:rows], data2=u_ps[:, 0:rows], op=nl.multiply)
    return gated


@nki.jit
def gated_mlp(x, wg, wu, wd, gate=ActivationKind.SILU, n_tile=512):
    """For float32 x [R, H], wg and wu [H, I], wd [I, N] (H and I multiples of
    128, n_tile dividing N) returns the [R, N] float32
    (gate(x @ wg) * (x @ wu)) @ wd, gate an ActivationKind (SILU: SwiGLU)."""
    rows_total, hidden = x.shape
    if tuple(wg.shape) != tuple(wu.shape) or wg.shape[0] != hidden or wd.shape[0] != wg.shape[1]:
        raise KernelConfigError(f"x {tuple(x.shape)}, wg {tuple(wg.shape)}, wu {tuple(wu.shape)}, "
                                f"wd {tuple(wd.shape)} do not chain")
    cfg = MlpConfig(rows=rows_total, hidden=hidden, intermediate=wg.shape[1], out_features=wd.shape[1],
                    n_tile=n_tile, gate=gate)
    out = nl.ndarray((cfg.rows, cfg.out_features), dtype=nl.float32, buffer=nl.shared_hbm)
    wg_sb = _resident(wg, cfg.h_tiles, cfg.intermediate)
    wu_sb = _resident(wu, cfg.h_tiles, cfg.intermediate)
    wd_sb = _resident(wd, cfg.i_tiles, cfg.out_features)
    for rt in cfg.row_tiles:
        rows = rt.size
        xt = load_rows(x, rt, cfg.hidden)
        x_t = helpers.transpose_blocks(xt, rows, cfg.hidden)
        h_t = [_gated_block(cfg, x_t, wg_sb, wu_sb, it, rows) for it in cfg.i_tiles]
        for nt in cfg.n_tiles:
            acc = nl.ndarray((PARTITIONS, cfg.n_tile), dtype=nl.float32, buffer=nl.psum)
            for ib, ht in enumerate(h_t):
                nisa.nc_matmul(dst=acc[0:rows, 0:nt.size], stationary=ht[:, 0:rows], moving=wd_sb[ib][:, nt.slice()])
            res = helpers.evict(acc, rows, nt.size)
            nisa.dma_copy(dst=out[rt.slice(), nt.slice()], src=res[0:rows, :])
    return out
