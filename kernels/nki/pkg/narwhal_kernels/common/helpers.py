"""Helpers shared by the package's kernels: tiling of an axis into tiles of
at most a given size (the last one partial), an SBUF budget that checks a
kernel's working set against the partition size before it allocates, and
the data movements every kernel repeats (HBM to SBUF, a vector copied to
every partition, a Tensor Engine transpose, PSUM evacuation).

Every helper is plain Python run at trace time around nki.isa
instructions; tensors are made with nl.ndarray and written only through
nisa instructions with the destination first (the current API).
"""
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

import nki.isa as nisa
import nki.language as nl

PARTITIONS = 128
# Python ints for shapes (nl.tile_size's values are not ints: nki-library).
BN_STATS_FMAX = 512
# Bytes of one element of each dtype the package uses.
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4, "uint32": 4, "uint16": 2, "uint8": 1}
# Bytes per SBUF partition (trn2: 24 MiB / 128) and per PSUM partition.
SBUF_PARTITION_BYTES = 192 * 1024
PSUM_PARTITION_BYTES = 16 * 1024


class KernelConfigError(ValueError):
    """A kernel's configuration does not fit its inputs or the machine."""


def div_ceil(n: int, d: int) -> int:
    """ceil(n / d) for positive ints."""
    if d <= 0:
        raise KernelConfigError(f"div_ceil: divisor {d} must be positive")
    return (n + d - 1) // d


def dtype_bytes(dtype) -> int:
    """The element size of dtype (a KernelConfigError for one the package
    does not handle)."""
    size = DTYPE_BYTES.get(str(dtype))
    if size is None:
        raise KernelConfigError(f"no element size for dtype {dtype!r}")
    return size


@dataclass
class Tile(nl.NKIObject):
    """One tile of an axis: elements start .. start + size - 1."""

    index: int
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size

    def slice(self) -> slice:
        """The tile's elements as a slice of the axis."""
        return slice(self.start, self.stop)

    def local(self) -> slice:
        """The tile's elements inside a full-size tile buffer."""
        return slice(0, self.size)


class TileRange(nl.NKIObject):
    """An axis of `total` elements cut into tiles of `tile` elements, the last
    one partial when tile does not divide total (what masks did in the
    legacy API: the migration guide bounds the last tile with min())."""

    def __init__(self, total: int, tile: int):
        if total <= 0 or tile <= 0:
            raise KernelConfigError(f"TileRange({total}, {tile}): both must be positive")
        self.total = total
        self.tile = tile
        self._count = div_ceil(total, tile)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> Tile:
        if not 0 <= i < self._count:
            raise IndexError(f"tile {i} of {self._count}")
        start = i * self.tile
        return Tile(index=i, start=start, size=min(self.total, start + self.tile) - start)

    def __iter__(self) -> Iterator[Tile]:
        for i in range(self._count):
            yield self[i]

    @property
    def has_partial(self) -> bool:
        """True when the last tile is shorter than the others."""
        return self.total % self.tile != 0

    def sizes(self) -> List[int]:
        return [t.size for t in self]


class SbufBudget(nl.NKIObject):
    """A kernel's SBUF working set, checked before it allocates: each named
    buffer adds its bytes per partition, and going over the partition's
    size (minus a reserve) raises a KernelConfigError naming the buffers,
    largest first."""

    def __init__(self, name: str, reserve_bytes: int = 0):
        self.name = name
        self.limit = SBUF_PARTITION_BYTES - reserve_bytes
        self.entries: Dict[str, int] = {}

    def add(self, label: str, free_shape: Tuple[int, ...], dtype, count: int = 1) -> int:
        """Reserves count buffers of free_shape (the dimensions after the
        partition) in dtype; returns their bytes per partition."""
        size = dtype_bytes(dtype) * count
        for d in free_shape:
            size *= d
        self.entries[label] = self.entries.get(label, 0) + size
        if self.used > self.limit:
            biggest = sorted(self.entries.items(), key=lambda kv: -kv[1])
            listing = ", ".join(f"{k}={v}" for k, v in biggest)
            raise KernelConfigError(f"{self.name}: SBUF working set {self.used} bytes per partition exceeds "
                                    f"{self.limit} ({listing})")
        return size

    @property
    def used(self) -> int:
        return sum(self.entries.values())

    def report(self) -> str:
        return f"{self.name}: {self.used} of {self.limit} SBUF bytes per partition"


def sbuf_tile(shape, dtype):
    """A new SBUF tensor."""
    return nl.ndarray(tuple(shape), dtype=dtype, buffer=nl.sbuf)


def load_rows(src, rows: Tile, cols: int, dtype=None):
    """The rows of the 2-D HBM tensor src in tile `rows` as a full-size
    [128, cols] SBUF tile whose first rows.size partitions hold them."""
    t = sbuf_tile((PARTITIONS, cols), src.dtype if dtype is None else dtype)
    nisa.dma_copy(dst=t[rows.local(), :], src=src[rows.slice(), 0:cols])
    return t


def broadcast_rows(vec, width: int, offset: int = 0, dtype=None):
    """A [128, width] SBUF tile every partition of which holds elements
    offset .. offset + width - 1 of the HBM vector vec (any shape; its
    elements in row-major order): a DMA whose access pattern steps 0 along
    the partitions (nki-aps: a pattern on an HBM tensor)."""
    t = sbuf_tile((PARTITIONS, width), vec.dtype if dtype is None else dtype)
    nisa.dma_copy(dst=t, src=vec.ap(pattern=[[0, PARTITIONS], [1, width]], offset=offset))
    return t


def constant_column(value: float, dtype=nl.float32):
    """A [128, 1] SBUF column of value (an activation bias: NeuronCore-v2
    takes only vector biases)."""
    t = sbuf_tile((PARTITIONS, 1), dtype)
    nisa.memset(dst=t, value=float(value))
    return t


def evict(psum_tile, rows: int, cols: int, dtype=nl.float32):
    """A [128, cols] SBUF copy of the first rows partitions of a PSUM tile
    (DMA cannot read PSUM since NKI 0.3: copy through SBUF)."""
    t = sbuf_tile((PARTITIONS, cols), dtype)
    nisa.tensor_copy(dst=t[0:rows, :], src=psum_tile[0:rows, 0:cols])
    return t


def transpose_block(src, rows: int, col_start: int, cols: int, dtype=nl.float32):
    """The transpose of src[0:rows, col_start:col_start + cols] (an SBUF tile;
    rows, cols <= 128) as a [128, 128] SBUF tile holding it in
    [0:cols, 0:rows]: nisa.nc_transpose on the Tensor Engine into PSUM,
    then copied to SBUF."""
    ps = nl.ndarray((PARTITIONS, PARTITIONS), dtype=src.dtype, buffer=nl.psum)
    nisa.nc_transpose(dst=ps[0:cols, 0:rows], data=src[0:rows, col_start:col_start + cols], engine=nisa.engine.tensor)
    t = sbuf_tile((PARTITIONS, PARTITIONS), dtype)
    nisa.tensor_copy(dst=t[0:cols, 0:rows], src=ps[0:cols, 0:rows])
    return t


def transpose_blocks(src, rows: int, total_cols: int, block: int = PARTITIONS) -> List[Tuple[int, object]]:
    """src's columns in blocks of `block`, each transposed (transpose_block):
    a list of (block width, transposed tile)."""
    out = []
    for t in TileRange(total_cols, block):
        out.append((t.size, transpose_block(src, rows, t.start, t.size)))
    return out


def row_sum_of_squares(x, rows: int, cols: int):
    """The [128, 1] row sums of x[0:rows, 0:cols]**2 (one
    nisa.activation_reduce: squares and their sum in one instruction)."""
    sq = sbuf_tile((PARTITIONS, cols), nl.float32)
    ss = sbuf_tile((PARTITIONS, 1), nl.float32)
    nisa.activation_reduce(dst=sq[0:rows, :], op=nl.square, data=x[0:rows, 0:cols], reduce_op=nl.add,
                           reduce_res=ss[0:rows, :])
    return ss


def row_mean_var(x, rows: int, cols: int):
    """The [128, 2] row (mean, population variance) of x[0:rows, 0:cols]:
    nisa.bn_stats on each bn_stats_fmax-column chunk into one stats tile,
    then nisa.bn_aggr."""
    fmax = BN_STATS_FMAX
    assert fmax <= nl.tile_size.bn_stats_fmax
    chunks = TileRange(cols, fmax)
    stats = sbuf_tile((PARTITIONS, 6 * len(chunks)), nl.float32)
    for c in chunks:
        nisa.bn_stats(dst=stats[0:rows, 6 * c.index:6 * c.index + 6], data=x[0:rows, c.slice()])
    mv = sbuf_tile((PARTITIONS, 2), nl.float32)
    nisa.bn_aggr(dst=mv[0:rows, :], data=stats[0:rows, :])
    return mv


def negate_column(col, rows: int):
    """-col for a [128, 1] column (an activation bias of -max)."""
    t = sbuf_tile((PARTITIONS, 1), nl.float32)
    nisa.tensor_scalar(dst=t[0:rows, :], data=col[0:rows, :], op0=nl.multiply, operand0=-1.0)
    return t


def store_rows(dst, rows: Tile, tile, cols: Optional[int] = None):
    """Copies the first rows.size partitions of the SBUF tile into the rows
    of the 2-D HBM tensor dst in tile `rows`."""
    width = dst.shape[1] if cols is None else cols
    nisa.dma_copy(dst=dst[rows.slice(), 0:width], src=tile[rows.local(), 0:width])
