"""The configuration of fused_norm_matmul: shapes, tiling and the operations
to fuse, as a dataclass validated in __post_init__, the way nki-library
kernels carry theirs. A FusedConfig is made at trace time from the input
shapes and the kernel's keyword parameters (FusedConfig.from_shapes) and
then only read.
"""
from dataclasses import dataclass
from typing import List, Optional, Tuple

import nki.isa as nisa
import nki.language as nl

from narwhal_kernels.common.enums import ActivationKind, NormKind
from ..common.helpers import PARTITIONS, KernelConfigError, SbufBudget, TileRange, dtype_bytes

# The Tensor Engine's limits (nisa.nc_matmul, "Tile size"): a moving tile
# up to 512 columns (one PSUM bank of float32), a contraction of 128 rows.
MAX_N_TILE = 512
K_TILE = 128


@dataclass
class FusedConfig(nl.NKIObject):
    """What fused_norm_matmul computes and how it is tiled.

    rows, hidden, out_features: x is [rows, hidden], w [hidden,
    out_features]. n_tile: output columns per matmul (<= 512, dividing
    out_features). norm / activation: the fused operations. eps: the
    normalization's epsilon. residual: whether a residual is added last.
    exchange_engine: the DMA engine for data exchanged between cores;
    a single core has nothing to exchange, so only nisa.dma_engine.dma is
    accepted (gpsimd_dma is an LNC=2 engine: nisa.sendrecv's docstring)."""

    rows: int
    hidden: int
    out_features: int
    n_tile: int = MAX_N_TILE
    norm: NormKind = NormKind.RMS
    activation: ActivationKind = ActivationKind.GELU
    eps: float = 1e-6
    residual: bool = False
    matmul_dtype: str = "float32"
    exchange_engine: nisa.dma_engine = nisa.dma_engine.dma

    def __post_init__(self):
        problems: List[str] = []
        if self.rows <= 0 or self.hidden <= 0 or self.out_features <= 0:
            problems.append(f"shapes must be positive: rows={self.rows} hidden={self.hidden} out={self.out_features}")
        if self.hidden % K_TILE != 0:
            problems.append(f"hidden {self.hidden} must be a multiple of {K_TILE} (the contraction tile)")
        if not 0 < self.n_tile <= MAX_N_TILE:
            problems.append(f"n_tile {self.n_tile} must be in 1..{MAX_N_TILE} (one PSUM bank)")
        elif self.out_features % self.n_tile != 0:
            problems.append(f"n_tile {self.n_tile} must divide out_features {self.out_features}")
        if not isinstance(self.norm, NormKind):
            problems.append(f"norm must be a NormKind, got {self.norm!r}")
        if not isinstance(self.activation, ActivationKind):
            problems.append(f"activation must be an ActivationKind, got {self.activation!r}")
        if self.eps <= 0.0:
            problems.append(f"eps {self.eps} must be positive")
        if self.matmul_dtype != "float32":
            problems.append(f"matmul_dtype {self.matmul_dtype!r}: only float32 operands are supported")
        if self.exchange_engine is not nisa.dma_engine.dma:
            problems.append("exchange_engine: a single core exchanges nothing; only nisa.dma_engine.dma")
        if problems:
            raise KernelConfigError("FusedConfig: " + "; ".join(problems))
        self.budget = self._budget()

    @staticmethod
    def from_shapes(x_shape: Tuple[int, int], w_shape: Tuple[int, int], **options) -> "FusedConfig":
        """A config for x [rows, hidden] and w [hidden, out]: the shapes must
        agree; options are FusedConfig's keyword fields."""
        rows, hidden = x_shape
        hidden_w, out = w_shape
        if hidden != hidden_w:
            raise KernelConfigError(f"x has {hidden} columns but w has {hidden_w} rows")
        activation = options.pop("activation", ActivationKind.GELU)
        if isinstance(activation, str):
            activation = ActivationKind.parse(activation)
        return FusedConfig(rows=rows, hidden=hidden, out_features=out, activation=activation, **options)

    @property
    def row_tiles(self) -> TileRange:
        """The 128-row tiles of x (the last one partial when 128 does not
        divide rows)."""
        return TileRange(self.rows, PARTITIONS)

    @property
    def k_tiles(self) -> TileRange:
        return TileRange(self.hidden, K_TILE)

    @property
    def n_tiles(self) -> TileRange:
        return TileRange(self.out_features, self.n_tile)

    @property
    def weight_bytes(self) -> int:
        """Bytes per partition of the resident weight tiles."""
        return len(self.k_tiles) * self.out_features * dtype_bytes(self.matmul_dtype)

    def _budget(self) -> SbufBudget:
        b = SbufBudget("fused_norm_matmul")
        b.add("weights", (len(self.k_tiles), self.out_features), self.matmul_dtype)
        b.add("bias", (self.out_features,), "float32")
        b.add("gamma", (self.hidden,), "float32")
        b.add("x", (self.hidden,), "float32", count=3)   # the input, its normalized form, the squares
        b.add("x^T", (PARTITIONS,), "float32", count=len(self.k_tiles))
        b.add("out", (self.n_tile,), "float32", count=2)
        return b

    def describe(self) -> str:
        parts = [f"{self.rows}x{self.hidden} @ {self.hidden}x{self.out_features}",
                 self.norm.describe(), f"activation {self.activation.value}",
                 f"n_tile {self.n_tile}", self.budget.report()]
        if self.residual:
            parts.append("+ residual")
        return ", ".join(parts)


def check_inputs(cfg: FusedConfig, gamma, bias, residual: Optional[object]) -> None:
    """The vectors' and the residual's shapes against cfg."""
    n_gamma = 1
    for d in gamma.shape:
        n_gamma *= d
    if n_gamma != cfg.hidden:
        raise KernelConfigError(f"gamma has {n_gamma} elements, x has {cfg.hidden} columns")
    n_bias = 1
    for d in bias.shape:
        n_bias *= d
    if n_bias != cfg.out_features:
        raise KernelConfigError(f"bias has {n_bias} elements, w has {cfg.out_features} columns")
    if residual is not None and tuple(residual.shape) != (cfg.rows, cfg.out_features):
        raise KernelConfigError(f"residual is {tuple(residual.shape)}, the output {(cfg.rows, cfg.out_features)}")
