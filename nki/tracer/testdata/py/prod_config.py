from __future__ import annotations
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, List, Optional, Tuple
import math
class QuantType(Enum):
    NONE = "none"
    FP8 = "fp8"
    INT8 = "int8"
class Layout(Enum):
    BSH = 0
    BHSD = 1
@dataclass
class AttentionConfig:
    batch: int
    seq_len: int
    num_heads: int
    head_dim: int = 128
    causal: bool = True
    quant: QuantType = QuantType.NONE
    layout: Layout = Layout.BSH
    tile_sizes: Dict[str, int] = field(default_factory=lambda: {"q": 128, "k": 512})
    def __post_init__(self):
        if self.head_dim > 128:
            raise ValueError(f"head_dim {self.head_dim} exceeds 128")
        if self.seq_len % self.tile_sizes["q"]:
            raise ValueError(f"seq_len {self.seq_len} is not a multiple of {self.tile_sizes['q']}")
    @property
    def num_q_tiles(self) -> int:
        return self.seq_len // self.tile_sizes["q"]
    @property
    def num_k_tiles(self) -> int:
        return math.ceil(self.seq_len / self.tile_sizes["k"])
    def scale(self) -> float:
        return 1.0 / math.sqrt(self.head_dim)
    def describe(self) -> str:
        return (f"B={self.batch} S={self.seq_len} H={self.num_heads} D={self.head_dim} "
                f"causal={self.causal} quant={self.quant.value} layout={self.layout.name}")
cfgs = [AttentionConfig(1, 1024, 8), AttentionConfig(2, 256, 4, 64, False, QuantType.FP8, Layout.BHSD)]
for c in cfgs:
    print(c.describe(), c.num_q_tiles, c.num_k_tiles, round(c.scale(), 5))
for bad in [dict(batch=1, seq_len=100, num_heads=1), dict(batch=1, seq_len=128, num_heads=1, head_dim=256)]:
    try:
        AttentionConfig(**bad)
    except ValueError as e:
        print("ValueError:", e)
def causal_pairs(cfg: AttentionConfig) -> List[Tuple[int, int]]:
    pairs = []
    for qi in range(cfg.num_q_tiles):
        for ki in range(cfg.num_k_tiles):
            q_end = (qi + 1) * cfg.tile_sizes["q"]
            k_start = ki * cfg.tile_sizes["k"]
            if not cfg.causal or k_start < q_end:
                pairs.append((qi, ki))
    return pairs
print(len(causal_pairs(cfgs[0])), causal_pairs(cfgs[0])[:5], len(causal_pairs(cfgs[1])))
