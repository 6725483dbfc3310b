"""fused_norm_matmul: out = act(norm(x) * gamma @ w + bias) (+ residual),
the kind of fused block a transformer MLP or projection runs, in the
current `nki` API.

Per 128-row tile of x (the last one partial):
  1. the tile is copied to SBUF;
  2. the normalization (NormKind): RMS, rstd = rsqrt(sum(x^2) / H + eps)
     from one activation_reduce and one rsqrt activation; LAYER, mean and
     variance from bn_stats / bn_aggr and (x - mean) * rstd in one
     two-operator tensor_scalar; NONE, nothing; then * gamma (copied to
     every partition by a stride-0 DMA);
  3. each 128-column block of the normalized tile is transposed on the
     Tensor Engine (the contraction must be on the partitions);
  4. for each n_tile block of output columns the K blocks accumulate in one
     PSUM tile (nc_matmul, accumulate left to the first-write rule), the
     bias is added on the way out of PSUM, then the activation
     (ActivationKind) and the residual;
  5. the block is copied to the output.
The weights and the broadcast vectors are loaded once, before the row
loop, and stay resident (the config's SBUF budget checks they fit).
"""
from typing import List, Optional

import nki
import nki.isa as nisa
import nki.language as nl

from narwhal_kernels.common.enums import ActivationKind, NormKind
from narwhal_kernels.common import helpers
from ..common.helpers import PARTITIONS, Tile, broadcast_rows, constant_column, load_rows, sbuf_tile
from .config import K_TILE, FusedConfig, check_inputs


class WeightTiles(nl.NKIObject):
    """The resident [128, out_features] K blocks of w, loaded once."""

    def __init__(self, w, cfg: FusedConfig):
        self.cfg = cfg
        self.tiles: List[object] = []
        for kt in cfg.k_tiles:
            t = sbuf_tile((K_TILE, cfg.out_features), nl.float32)
            nisa.dma_copy(dst=t, src=w[kt.slice(), :])
            self.tiles.append(t)

    def block(self, k_index: int, n_tile: Tile):
        """The moving operand of K block k_index and output block n_tile."""
        return self.tiles[k_index][:, n_tile.slice()]

    def __len__(self) -> int:
        return len(self.tiles)


class RowNormalizer(nl.NKIObject):
    """Normalizes one row tile in SBUF as cfg.norm says, then scales it by
    gamma."""

    def __init__(self, cfg: FusedConfig, gamma):
        self.cfg = cfg
        self.gamma = broadcast_rows(gamma, cfg.hidden)
        self.eps = constant_column(cfg.eps) if cfg.norm.needs_statistics else None

    def rstd_from(self, stat, rows: int, scale: float):
        """rsqrt(stat * scale + eps) for a [128, 1] statistic."""
        rstd = sbuf_tile((PARTITIONS, 1), nl.float32)
        nisa.activation(dst=rstd[0:rows, :], op=nl.rsqrt, data=stat[0:rows, :], bias=self.eps[0:rows, :], scale=scale)
        return rstd

    def __call__(self, x, rows: int):
        h = self.cfg.hidden
        y = sbuf_tile((PARTITIONS, h), nl.float32)
        norm = self.cfg.norm
        if norm is NormKind.RMS:
            ss = helpers.row_sum_of_squares(x, rows, h)
            rstd = self.rstd_from(ss, rows, 1.0 / h)
            nisa.tensor_scalar(dst=y[0:rows, :], data=x[0:rows, :], op0=nl.multiply, operand0=rstd[0:rows, :])
        elif norm is NormKind.LAYER:
            mv = helpers.row_mean_var(x, rows, h)
            rstd = self.rstd_from(mv[:, 1:2], rows, 1.0)
            nisa.tensor_scalar(dst=y[0:rows, :], data=x[0:rows, :], op0=nl.subtract, operand0=mv[0:rows, 0:1],
                               op1=nl.multiply, operand1=rstd[0:rows, :])
        else:
            nisa.tensor_copy(dst=y[0:rows, :], src=x[0:rows, :])
        nisa.tensor_tensor(dst=y[0:rows, :], data1=y[0:rows, :], data2=self.gamma[0:rows, :], op=nl.multiply)
        return y


def _epilogue(cfg: FusedConfig, acc, bias_bc, n_tile: Tile, rows: int, residual, row_tile: Tile):
    """bias + activation (+ residual) of one PSUM block, into SBUF."""
    width = n_tile.size
    y = sbuf_tile((PARTITIONS, width), nl.float32)
    nisa.tensor_tensor(dst=y[0:rows, :], data1=acc[0:rows, 0:width], data2=bias_bc[0:rows, n_tile.slice()], op=nl.add)
    if not cfg.activation.is_identity:
        nisa.activation(dst=y[0:rows, :], op=cfg.activation.nki_op(), data=y[0:rows, :])
    if residual is not None:
        r = sbuf_tile((PARTITIONS, width), nl.float32)
        nisa.dma_copy(dst=r[0:rows, :], src=residual[row_tile.slice(), n_tile.slice()])
        nisa.tensor_tensor(dst=y[0:rows, :], data1=y[0:rows, :], data2=r[0:rows, :], op=nl.add)
    return y


@nki.jit
def fused_norm_matmul(x, gamma, w, bias, residual=None, norm=NormKind.RMS, activation=ActivationKind.GELU,
                      n_tile=512, eps=1e-6):
    """For float32 x [R, H], gamma [H], w [H, N], bias [N] (H a multiple of
    128, n_tile dividing N) and an optional residual [R, N] returns the
    [R, N] float32
        act(norm(x) * gamma @ w + bias) (+ residual)
    with norm(x) the row's RMSNorm x / sqrt(mean(x^2) + eps), LayerNorm
    (x - mean) / sqrt(var + eps) or x itself (norm = NormKind.RMS, LAYER,
    NONE), and act the ActivationKind (GELU in its erf form, SILU, RELU,
    TANH, or NONE)."""
    cfg = FusedConfig.from_shapes(x.shape, w.shape, norm=norm, activation=activation, n_tile=n_tile, eps=eps,
                                  residual=residual is not None)
    check_inputs(cfg, gamma, bias, residual)
    out = nl.ndarray((cfg.rows, cfg.out_features), dtype=nl.float32, buffer=nl.shared_hbm)
    weights = WeightTiles(w, cfg)
    bias_bc = broadcast_rows(bias, cfg.out_features)
    normalize = RowNormalizer(cfg, gamma)
    for rt in cfg.row_tiles:
        rows = rt.size
        xt = load_rows(x, rt, cfg.hidden)
        y = normalize(xt, rows)
        y_t = [blk for _, blk in helpers.transpose_blocks(y, rows, cfg.hidden, K_TILE)]
        assert len(y_t) == len(weights)
        for nt in cfg.n_tiles:
            acc = nl.ndarray((PARTITIONS, cfg.n_tile), dtype=nl.float32, buffer=nl.psum)
            for k, yk in enumerate(y_t):
                nisa.nc_matmul(dst=acc[0:rows, 0:nt.size], stationary=yk[:, 0:rows], moving=weights.block(k, nt))
            res = _epilogue(cfg, acc, bias_bc, nt, rows, residual, rt)
            nisa.dma_copy(dst=out[rt.slice(), nt.slice()], src=res[0:rows, :])
    return out


def reference_shapes(rows: int, hidden: int, out: int) -> dict:
    """The parameter shapes fused_norm_matmul expects (a convenience for
    callers building inputs)."""
    return {"x": (rows, hidden), "gamma": (hidden,), "w": (hidden, out), "bias": (out,), "residual": (rows, out)}


def describe(rows: int, hidden: int, out: int, **options) -> str:
    """The config fused_norm_matmul would use, as text (raises
    KernelConfigError with the reasons when it cannot run)."""
    return FusedConfig.from_shapes((rows, hidden), (hidden, out), **options).describe()


def optional_residual(residual: Optional[object]) -> bool:
    return residual is not None
