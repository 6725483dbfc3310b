"""2-D pooling in the current `nki` API, without index grids (nl.mgrid is
gone: the migration guide's "Update indexing syntax for mgrid and arange"):
for a [C, H, W] tile (C on the partitions) each non-overlapping k x k
window is reduced in two steps, both through access patterns:

1. along W: the tile reshaped to [C, H*W/k, k] (every run of k
   consecutive columns one row of the view) reduced over its last axis
   with nisa.tensor_reduce into r [C, H*W/k] = [C, H, W/k];
2. along H: r viewed k times as [C, H/k, W/k], the view kh starting at row
   kh (offset kh * W/k, row step k * W/k), combined with nisa.tensor_tensor.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
Twins of the legacy avg_pool2d and max_pool2d (kernels/nki/legacy/pooling.py).
"""
import nki
import nki.isa as nisa
import nki.language as nl


def _pool(in_tensor, k, op):
    """The [C, H/k, W/k] tile of op-reductions of the k x k windows of the
    [C, H, W] HBM tensor (op nl.add or nl.maximum)."""
    c, h, w = in_tensor.shape
    assert h % k == 0 and w % k == 0 and c <= nl.tile_size.pmax
    oh, ow = h // k, w // k
    t = nl.ndarray((c, h, w), dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=in_tensor)
    rows = nl.ndarray((c, h * ow), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=rows, op=op, data=t.reshape((c, h * ow, k)), axis=2)
    acc = nl.ndarray((c, oh, ow), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=acc, src=rows.ap(pattern=[[h * ow, c], [k * ow, oh], [1, ow]], offset=0))
    for kh in range(1, k):
        window_row = rows.ap(pattern=[[h * ow, c], [k * ow, oh], [1, ow]], offset=kh * ow)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=window_row, op=op)
    return acc


@nki.jit
def avg_pool2d(in_tensor, pool_size=2):
    """For a [C, H, W] float32 tensor (C <= 128, H and W multiples of
    pool_size) returns the [C, H/k, W/k] means over the non-overlapping
    k x k windows (k = pool_size): window sums times 1 / k**2. Twin of the
    legacy avg_pool2d."""
    c, h, w = in_tensor.shape
    k = pool_size
    acc = _pool(in_tensor, k, nl.add)
    res = nl.ndarray((c, h // k, w // k), dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=res, data=acc, op0=nl.multiply, operand0=1.0 / (k * k))
    out = nl.ndarray((c, h // k, w // k), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def max_pool2d(in_tensor, pool_size=3):
    """For a [C, H, W] float32 tensor (C <= 128, H and W multiples of
    pool_size) returns the [C, H/k, W/k] maxima over the non-overlapping
    k x k windows (k = pool_size). Twin of the legacy max_pool2d."""
    c, h, w = in_tensor.shape
    k = pool_size
    acc = _pool(in_tensor, k, nl.maximum)
    res = nl.ndarray((c, h // k, w // k), dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    out = nl.ndarray((c, h // k, w // k), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    return out
