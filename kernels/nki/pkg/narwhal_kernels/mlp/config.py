"""The configuration of gated_mlp: the three projections' shapes, the output
tiling and the gate's activation, as a dataclass validated in
__post_init__.
"""
from dataclasses import dataclass, field
from typing import Dict, List

import nki.language as nl

from narwhal_kernels.common.enums import ActivationKind
from narwhal_kernels.common.helpers import PARTITIONS, KernelConfigError, SbufBudget, TileRange


@dataclass
class MlpConfig(nl.NKIObject):
    """x [rows, hidden] @ wg, wu [hidden, intermediate]; the gated product
    [rows, intermediate] @ wd [intermediate, out_features]. hidden and
    intermediate are multiples of 128 (both are contracted on the
    partitions); n_tile (<= 512) divides out_features; gate is the gate's
    activation (SiLU for SwiGLU, GELU for GeGLU)."""

    rows: int
    hidden: int
    intermediate: int
    out_features: int
    n_tile: int = 512
    gate: ActivationKind = ActivationKind.SILU
    notes: List[str] = field(default_factory=list)

    def __post_init__(self):
        for name in ("hidden", "intermediate"):
            value = getattr(self, name)
            if value <= 0 or value % PARTITIONS != 0:
                raise KernelConfigError(f"MlpConfig: {name} {value} must be a positive multiple of {PARTITIONS}")
        if not 0 < self.n_tile <= 512 or self.out_features % self.n_tile != 0:
            raise KernelConfigError(f"MlpConfig: n_tile {self.n_tile} must be <= 512 and divide {self.out_features}")
        if self.gate.is_identity:
            raise KernelConfigError("MlpConfig: a gated MLP needs a gate activation (ActivationKind.NONE given)")
        if self.rows % PARTITIONS != 0:
            self.notes.append(f"the last row tile holds {self.rows % PARTITIONS} rows")
        budget = SbufBudget("gated_mlp")
        budget.add("wg, wu", (len(self.h_tiles), self.intermediate), "float32", count=2)
        budget.add("wd", (len(self.i_tiles), self.out_features), "float32")
        budget.add("x^T", (PARTITIONS,), "float32", count=len(self.h_tiles))
        budget.add("h^T", (PARTITIONS,), "float32", count=len(self.i_tiles))
        self.budget = budget

    @property
    def row_tiles(self) -> TileRange:
        return TileRange(self.rows, PARTITIONS)

    @property
    def h_tiles(self) -> TileRange:
        return TileRange(self.hidden, PARTITIONS)

    @property
    def i_tiles(self) -> TileRange:
        return TileRange(self.intermediate, PARTITIONS)

    @property
    def n_tiles(self) -> TileRange:
        return TileRange(self.out_features, self.n_tile)

    def matmul_count(self) -> Dict[str, int]:
        """The nc_matmul instructions per row tile, by projection."""
        h, i, n = len(self.h_tiles), len(self.i_tiles), len(self.n_tiles)
        return {"gate": h * i, "up": h * i, "down": i * n}
