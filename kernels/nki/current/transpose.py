"""Transposes in the current `nki` API: inside each partition by an access
pattern alone (.ap with permuted strides; even and odd columns with step 2),
and across partitions with nisa.dma_transpose, nisa.nc_transpose on the
Tensor and the Vector Engine, and nisa.nc_matmul against
nl.shared_identity_matrix.

The access patterns follow the deep dive "NKI Access Patterns" (nki-aps):
t.ap(pattern=[[step, num], ...], offset=) flattens t to 1-D and reads
element offset + sum(index_d * step_d); on an SBUF tensor the first pair is
the partition's, its step the tensor's whole free size.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
The kernels with a legacy twin (kernels/nki/legacy/transpose.py) compute the
same values.
"""
import nki
import nki.isa as nisa
import nki.language as nl

PMAX = 128   # nl.tile_size.pmax, as a Python int for shapes


@nki.jit
def transpose_free_axes(in_tensor, shape2D=(8, 16)):
    """For a [P, F1*F2] tensor whose partitions each hold an F1 x F2 matrix in
    row-major order (shape2D = (F1, F2)), returns the [P, F2*F1] tensor whose
    partitions hold the transposed F2 x F1 matrices: out[p, a*F1 + b] =
    in[p, b*F2 + a]. The transpose is only an access pattern: tensor_copy
    reads the tile through .ap([[F1*F2, P], [1, F2], [F2, F1]]) (a view of
    shape [P, F2, F1]) into a contiguous [P, F2*F1] tile. Twin of the legacy
    transpose_free_axes."""
    f1, f2 = shape2D
    parts, free = in_tensor.shape
    assert free == f1 * f2
    src = nl.ndarray((parts, free), dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=src, src=in_tensor)
    dst = nl.ndarray((parts, f2 * f1), dtype=in_tensor.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=dst, src=src.ap(pattern=[[free, parts], [1, f2], [f2, f1]], offset=0))
    out = nl.ndarray((parts, f2 * f1), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=dst)
    return out


@nki.jit
def even_odd_columns(x):
    """For a [128, 2W] tensor returns (even, odd), the [128, W] tensors of its
    even and of its odd columns: access patterns of step 2 from offset 0 and
    from offset 1. Twin of the legacy even_odd_columns."""
    parts, free = x.shape
    half = free // 2
    t = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    even = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.sbuf)
    odd = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=even, src=t.ap(pattern=[[free, parts], [2, half]], offset=0))
    nisa.tensor_copy(dst=odd, src=t.ap(pattern=[[free, parts], [2, half]], offset=1))
    even_out = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.shared_hbm)
    odd_out = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=even_out, src=even)
    nisa.dma_copy(dst=odd_out, src=odd)
    return even_out, odd_out


@nki.jit
def transpose_dma_blocks(x):
    """For an [R, 128] tensor (R a multiple of 128) returns its [128, R]
    transpose: each 128-row block goes through nisa.dma_transpose from HBM
    into SBUF and is copied to its column block of the result. Twin of the
    legacy transpose_dma_blocks."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(rows // PMAX):
        blk_t = nl.ndarray((cols, PMAX), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=blk_t, src=x[nl.ds(b * PMAX, PMAX), :], axes=(1, 0))
        nisa.dma_copy(dst=out[:, nl.ds(b * PMAX, PMAX)], src=blk_t)
    return out


@nki.jit
def transpose_tensor_engine(x):
    """For an [R, C] float32 tensor (R a multiple of 128, C <= 128) returns its
    [C, R] transpose: each [128, C] tile goes through nisa.nc_transpose on
    the Tensor Engine (PSUM result) and back to SBUF with nisa.tensor_copy.
    Twin of the legacy transpose_tensor_engine."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(rows // PMAX):
        t = nl.ndarray((PMAX, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[b * PMAX:(b + 1) * PMAX, :])
        t_ps = nl.ndarray((cols, PMAX), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t_ps, data=t, engine=nisa.tensor_engine)
        t_sb = nl.ndarray((cols, PMAX), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=t_sb, src=t_ps)
        nisa.dma_copy(dst=out[:, b * PMAX:(b + 1) * PMAX], src=t_sb)
    return out


@nki.jit
def transpose_vector_engine(x):
    """For a [32, 32*B] float32 tensor returns its [32*B, 32] transpose, block
    by block: each 32 x 32 block goes through nisa.nc_transpose on the Vector
    Engine (at most 32 x 32, SBUF to SBUF). Twin of the legacy
    transpose_vector_engine."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    for b in nl.affine_range(cols // 32):
        blk = nl.ndarray((32, rows), dtype=x.dtype, buffer=nl.sbuf)
        nisa.nc_transpose(dst=blk, data=t[:, nl.ds(b * 32, 32)], engine=nisa.engine.vector)
        nisa.dma_copy(dst=out[nl.ds(b * 32, 32), :], src=blk)
    return out


@nki.jit
def transpose_identity_matmul(x):
    """For a [128, C] float32 x (C <= 128) returns its [C, 128] transpose as
    nc_matmul(stationary=x, moving=I): x.T @ I, with I the [128, 128]
    float32 nl.shared_identity_matrix, copied into an SBUF tile first (the
    docs differ on whether it is returned in SBUF or HBM; dma_copy takes
    either)."""
    parts, cols = x.shape
    t = nl.ndarray((parts, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    ident = nl.ndarray((parts, parts), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ident, src=nl.shared_identity_matrix(parts, dtype=nl.float32))
    ps = nl.ndarray((cols, parts), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=t, moving=ident)
    res = nl.ndarray((cols, parts), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    out = nl.ndarray((cols, parts), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    return out
