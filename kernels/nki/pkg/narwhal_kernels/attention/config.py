"""The configuration of flash_attention: sequence lengths, head dimension,
the block sizes of the online softmax and the mask, as a dataclass whose
__post_init__ fills in the derived values (the softmax scale defaults to
1 / sqrt(head_dim)) and rejects what the kernel cannot run.
"""
import math
from dataclasses import dataclass
from typing import List, Optional

import nki.language as nl

from narwhal_kernels.common.enums import MaskKind
from narwhal_kernels.common.helpers import PARTITIONS, KernelConfigError, SbufBudget, TileRange


@dataclass
class AttentionConfig(nl.NKIObject):
    """seq_q, seq_kv: query and key/value lengths; head_dim: d (<= 128);
    q_tile, kv_tile: the blocks of the online softmax (<= 128: a q block is
    one partition tile, a kv block one transpose); mask: MaskKind;
    softmax_scale: the scores' factor, None for 1 / sqrt(head_dim);
    mask_value: what masked scores become (exp(mask_value - max) is 0.0
    in float32)."""

    seq_q: int
    seq_kv: int
    head_dim: int
    q_tile: int = PARTITIONS
    kv_tile: int = PARTITIONS
    mask: MaskKind = MaskKind.CAUSAL
    softmax_scale: Optional[float] = None
    mask_value: float = -30000.0

    def __post_init__(self):
        if self.softmax_scale is None:
            self.softmax_scale = 1.0 / math.sqrt(self.head_dim)
        errors = []
        if not 0 < self.head_dim <= PARTITIONS:
            errors.append(f"head_dim {self.head_dim} must be in 1..{PARTITIONS} (one partition tile)")
        for name in ("q_tile", "kv_tile"):
            size = getattr(self, name)
            if not 0 < size <= PARTITIONS:
                errors.append(f"{name} {size} must be in 1..{PARTITIONS}")
        if self.seq_q % self.q_tile != 0 or self.seq_kv % self.kv_tile != 0:
            errors.append(f"the tiles must divide the sequences ({self.seq_q} / {self.q_tile}, {self.seq_kv} / {self.kv_tile})")
        if self.mask.is_causal and self.seq_q != self.seq_kv:
            errors.append(f"a causal mask needs seq_q == seq_kv, got {self.seq_q} and {self.seq_kv}")
        if self.mask.is_causal and self.q_tile != self.kv_tile:
            errors.append("a causal mask needs q_tile == kv_tile (the diagonal blocks are square)")
        if len(errors) > 0:
            raise KernelConfigError("AttentionConfig: " + "; ".join(errors))
        budget = SbufBudget("flash_attention")
        budget.add("k^T, v", (self.seq_kv,), "float32", count=2)
        budget.add("scores", (self.kv_tile,), "float32", count=3)
        budget.add("acc", (self.head_dim,), "float32", count=3)
        self.budget = budget

    @property
    def q_blocks(self) -> TileRange:
        return TileRange(self.seq_q, self.q_tile)

    @property
    def kv_blocks(self) -> TileRange:
        return TileRange(self.seq_kv, self.kv_tile)

    def blocks_for(self, q_index: int) -> List[int]:
        """The kv blocks q block q_index attends to, in order."""
        return self.mask.visible_blocks(q_index, len(self.kv_blocks), self.q_tile, self.kv_tile)

    def masked(self, q_index: int, kv_index: int) -> bool:
        """True when the scores of (q_index, kv_index) need the mask."""
        return self.mask.needs_mask(q_index, kv_index, self.q_tile, self.kv_tile)

    def work(self) -> dict:
        """How many score blocks each q block computes, by q block."""
        return {q.index: len(self.blocks_for(q.index)) for q in self.q_blocks}
