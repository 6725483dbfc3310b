"""The package's enumerations: which activation, which normalization and
which attention mask a kernel applies. Kernels take the members as
parameters (`--arg activation=ActivationKind.SILU` resolves the dotted name
in the kernel module's namespace) and turn them into nl operators here, in
one place, so that a kernel never compares strings.
"""
from enum import Enum
from typing import List, Optional

import nki.language as nl


class ActivationKind(Enum):
    """The activation a fused kernel applies after the matmul and bias.

    Each member maps to the nl activation function nisa.activation takes as
    its op (the nki-act-func table of the NKI reference); NONE skips the
    instruction."""

    NONE = "none"
    RELU = "relu"
    GELU = "gelu"
    SILU = "silu"
    TANH = "tanh"

    @property
    def is_identity(self) -> bool:
        """True when no activation instruction is needed."""
        return self is ActivationKind.NONE

    def nki_op(self):
        """The nl activation function of this member (nl.gelu, ...). NONE has
        none: asking for it is a programming error."""
        ops = {
            "relu": nl.relu,
            "gelu": nl.gelu,
            "silu": nl.silu,
            "tanh": nl.tanh,
        }
        op = ops.get(self.value)
        if op is None:
            raise ValueError(f"ActivationKind.{self.name} has no activation function")
        return op

    @staticmethod
    def parse(name: str) -> "ActivationKind":
        """The member named name (case-insensitive), for configs built from
        strings; a ValueError that lists the choices otherwise."""
        wanted = name.lower()
        for member in ActivationKind:
            if member.value == wanted:
                return member
        choices = ", ".join(m.value for m in ActivationKind)
        raise ValueError(f"unknown activation {name!r} (choose from {choices})")


class NormKind(Enum):
    """The normalization a fused kernel applies to each row before the
    matmul: RMS (x / sqrt(mean(x^2) + eps)), LAYER ((x - mean) /
    sqrt(var + eps)) or NONE; each then scaled by gamma."""

    NONE = 0
    RMS = 1
    LAYER = 2

    @property
    def needs_statistics(self) -> bool:
        """True when the row statistics must be computed."""
        return self is not NormKind.NONE

    @property
    def centers(self) -> bool:
        """True when the row mean is subtracted (LayerNorm)."""
        return self is NormKind.LAYER

    def describe(self) -> str:
        names = {"NONE": "no normalization", "RMS": "RMSNorm", "LAYER": "LayerNorm"}
        return names[self.name]


class MaskKind(Enum):
    """The attention mask: NONE (every key visible) or CAUSAL (a query sees
    the keys at or before its own position)."""

    NONE = "none"
    CAUSAL = "causal"

    @property
    def is_causal(self) -> bool:
        return self is MaskKind.CAUSAL

    def visible_blocks(self, q_block: int, num_kv_blocks: int, q_tile: int, kv_tile: int) -> List[int]:
        """The key blocks query block q_block attends to (every block for
        NONE; for CAUSAL the blocks starting at or before the block's last
        query)."""
        blocks = list(range(num_kv_blocks))
        if self is MaskKind.NONE:
            return blocks
        last_query = (q_block + 1) * q_tile - 1
        return [b for b in blocks if b * kv_tile <= last_query]

    def needs_mask(self, q_block: int, kv_block: int, q_tile: int, kv_tile: int) -> bool:
        """True when some key of kv_block comes after some query of q_block,
        so the block's scores need the causal mask."""
        if self is MaskKind.NONE:
            return False
        first_query = q_block * q_tile
        last_key = (kv_block + 1) * kv_tile - 1
        return last_key > first_query


def member_names(kind) -> List[str]:
    """The member names of an enum class, in definition order."""
    return [m.name for m in kind]


def lookup(kind, name: Optional[str], default):
    """The member of kind called name (None gives default)."""
    if name is None:
        return default
    for m in kind:
        if m.name == name:
            return m
    raise ValueError(f"{kind.__name__} has no member {name!r}; members: {', '.join(member_names(kind))}")
