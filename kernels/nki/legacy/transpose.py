"""Transposes: inside each partition by access patterns alone (nl.copy with
index grids), strided column selection, and across partitions with
nl.load_transpose2d, nisa.dma_transpose, nisa.nc_transpose on the Tensor and
the Vector Engine, and nl.transpose.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

PMAX = nl.tile_size.pmax


@nki.jit
def transpose_free_axes(in_tensor, shape2D=(8, 16)):
    """For a [P, F1*F2] tensor whose partitions each hold an F1 x F2 matrix in
    row-major order (shape2D = (F1, F2)), returns the [P, F2*F1] tensor whose
    partitions hold the transposed F2 x F1 matrices: out[p, a*F1 + b] =
    in[p, b*F2 + a]. The transpose is only an access pattern: nl.copy reads
    the tile through a 3-D nl.mgrid grid and writes it through another."""
    f1, f2 = shape2D
    parts, free = in_tensor.shape
    assert free == f1 * f2
    out = nl.ndarray((parts, f2 * f1), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    src = nl.load(in_tensor)
    dst = nl.ndarray((parts, f2 * f1), dtype=in_tensor.dtype, buffer=nl.sbuf)
    i_p, i_a, i_b = nl.mgrid[0:parts, 0:f2, 0:f1]
    dst[i_p, i_a * f1 + i_b] = nl.copy(src[i_p, i_b * f2 + i_a])
    nl.store(out, value=dst)
    return out


@nki.jit
def even_odd_columns(x):
    """For a [128, 2W] tensor returns (even, odd), the [128, W] tensors of its
    even and of its odd columns, read with strided free-dimension indices
    2*i and 2*i + 1 of nl.arange."""
    parts, free = x.shape
    half = free // 2
    t = nl.load(x)
    i_p = nl.arange(parts)[:, None]
    i_f = nl.arange(half)[None, :]
    even = nl.copy(t[i_p, 2 * i_f])
    odd = nl.copy(t[i_p, 2 * i_f + 1])
    even_out = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.shared_hbm)
    odd_out = nl.ndarray((parts, half), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(even_out, value=even)
    nl.store(odd_out, value=odd)
    return even_out, odd_out


@nki.jit
def transpose_via_load(x):
    """For an [F, P] tensor (P <= 128) returns its [P, F] transpose, loaded in
    one nl.load_transpose2d from HBM."""
    f, p = x.shape
    out = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load_transpose2d(x)
    nl.store(out, value=t)
    return out


@nki.jit
def transpose_dma_blocks(x):
    """For an [R, 128] tensor (R a multiple of 128) returns its [128, R]
    transpose: each 128-row block goes through nisa.dma_transpose from HBM
    into SBUF and lands in its column block of the result."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(rows // PMAX):
        blk_t = nisa.dma_transpose(x[nl.ds(b * PMAX, PMAX), :])
        nl.store(out[:, nl.ds(b * PMAX, PMAX)], value=blk_t)
    return out


@nki.jit
def transpose_tensor_engine(x):
    """For an [R, C] float32 tensor (R a multiple of 128, C <= 128) returns its
    [C, R] transpose: each [128, C] tile goes through nisa.nc_transpose (its
    shape only fits the Tensor Engine, which writes PSUM) and is copied back
    to SBUF with nisa.tensor_copy."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(rows // PMAX):
        t = nl.load(x[b * PMAX:(b + 1) * PMAX, :])
        t_ps = nisa.nc_transpose(t, engine=nisa.tensor_engine)
        t_sb = nisa.tensor_copy(t_ps)
        nl.store(out[:, b * PMAX:(b + 1) * PMAX], value=t_sb)
    return out


@nki.jit
def transpose_vector_engine(x):
    """For a [32, 32*B] float32 tensor returns its [32*B, 32] transpose, block
    by block: each 32 x 32 block goes through nisa.nc_transpose on the Vector
    Engine (engine=nisa.vector_engine, at most 32 x 32)."""
    rows, cols = x.shape
    out = nl.ndarray((cols, rows), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    for b in nl.affine_range(cols // 32):
        blk = nisa.nc_transpose(t[:, nl.ds(b * 32, 32)], engine=nisa.vector_engine)
        nl.store(out[nl.ds(b * 32, 32), :], value=blk)
    return out


@nki.jit
def transpose_nl(x):
    """For a [P, F] float32 tensor (P, F <= 128) returns its [F, P] transpose
    with nl.transpose, copied to SBUF with nl.copy before the store."""
    p, f = x.shape
    out = nl.ndarray((f, p), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    tt = nl.transpose(t)
    nl.store(out, value=nl.copy(tt))
    return out
