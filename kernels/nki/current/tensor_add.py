"""Tensor addition in the current `nki` API (NKI 0.2+): the tutorial's
one-tile kernel, a loop over row tiles, an SPMD grid, a Python `if` on a
loop iterator, and partial tiles bounded with min() instead of masks.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package from its public documentation
(aws-neuron-sdk nki/api/nki/, the NKI 0.2 migration guide), checked against
kernels/nki/refgen.py. The kernels of this file with a legacy twin
(kernels/nki/legacy/tensor_add.py) compute the same values from the same
inputs; the harness compares the two.

The current API has no nl.load/nl.store (removed in NKI 0.2, the migration
guide: "use nisa.dma_copy") and every nisa instruction writes a destination
given first (dst=...). Tensors are made with nl.ndarray(shape, dtype,
buffer=...).
"""
import nki
import nki.isa as nisa
import nki.language as nl

TILE_ROWS = 128          # a partition tile
GRID_TILE_COLS = 128


@nki.jit
def tensor_add_tile(a_input, b_input):
    """Returns a_input + b_input for two [P, F] tensors with P <= 128: both
    tiles copied to SBUF with nisa.dma_copy, added by nisa.tensor_tensor
    (op=nl.add) and copied to a shared-HBM result, the tutorial's kernel."""
    assert a_input.shape == b_input.shape
    assert a_input.shape[0] <= nl.tile_size.pmax
    a_tile = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_tile, src=a_input)
    b_tile = nl.ndarray(b_input.shape, dtype=b_input.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b_tile, src=b_input)
    c_tile = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=c_tile, data1=a_tile, data2=b_tile, op=nl.add)
    # Kernel outputs are shared_hbm tensors (NKI 0.3 update guide: "All
    # kernel output (return) tensors must be allocated with
    # buffer=nl.shared_hbm").
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=c_output, src=c_tile)
    return c_output


@nki.jit
def add_spmd_grid(a_input, b_input, c_output):
    """c_output = a_input + b_input for [R, C] float32 tensors on a 2-D SPMD
    grid kernel[R // 128, C // 128]: program (i, j) adds the 128 x 128 block
    at rows 128*i, columns 128*j, addressed with slices. The output is a
    parameter. Twin of the legacy add_spmd_grid."""
    assert nl.program_ndim() == 2
    assert a_input.shape[0] == TILE_ROWS * nl.num_programs(0)
    assert a_input.shape[1] == GRID_TILE_COLS * nl.num_programs(1)
    i = nl.program_id(0)
    j = nl.program_id(1)
    rows = slice(i * TILE_ROWS, (i + 1) * TILE_ROWS)
    cols = slice(j * GRID_TILE_COLS, (j + 1) * GRID_TILE_COLS)
    a_tile = nl.ndarray((TILE_ROWS, GRID_TILE_COLS), dtype=a_input.dtype, buffer=nl.sbuf)
    b_tile = nl.ndarray((TILE_ROWS, GRID_TILE_COLS), dtype=b_input.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_tile, src=a_input[rows, cols])
    nisa.dma_copy(dst=b_tile, src=b_input[rows, cols])
    c_tile = nl.ndarray((TILE_ROWS, GRID_TILE_COLS), dtype=c_output.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(c_tile, a_tile, b_tile, nl.add)
    nisa.dma_copy(dst=c_output[rows, cols], src=c_tile)


def add_rows_loop(a, b):
    """Returns a + b for [R, C] tensors (R a multiple of 128), one 128-row
    tile per iteration of an nl.affine_range loop, rows addressed with a
    slice for a and nl.ds for b. A plain function (no decorator): the front
    end traces it all the same. Twin of the legacy add_rows_loop."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // TILE_ROWS):
        a_tile = nl.ndarray((TILE_ROWS, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((TILE_ROWS, b.shape[1]), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[r * TILE_ROWS:(r + 1) * TILE_ROWS, :])
        nisa.dma_copy(dst=b_tile, src=b[nl.ds(r * TILE_ROWS, TILE_ROWS), :])
        s = nl.ndarray((TILE_ROWS, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=s, data1=a_tile, data2=b_tile, op=nl.add)
        nisa.dma_copy(dst=out[r * TILE_ROWS:(r + 1) * TILE_ROWS, :], src=s)
    return out


@nki.jit
def add_first_tile_doubled(a, b):
    """Returns a + b for [R, C] float32 tensors (R a multiple of 128), except
    that the first 128-row tile holds 2 * (a + b): a Python `if` on the
    nl.affine_range iterator, which the current API runs as Python does,
    one decision per iteration. Twin of the legacy add_first_tile_doubled."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    cols = a.shape[1]
    for r in nl.affine_range(a.shape[0] // TILE_ROWS):
        rows = nl.ds(r * TILE_ROWS, TILE_ROWS)
        a_tile = nl.ndarray((TILE_ROWS, cols), dtype=a.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((TILE_ROWS, cols), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[rows, :])
        nisa.dma_copy(dst=b_tile, src=b[rows, :])
        total = nl.ndarray((TILE_ROWS, cols), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=total, data1=a_tile, data2=b_tile, op=nl.add)
        if r == 0:
            nisa.tensor_scalar(dst=total, data=total, op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=out[rows, :], src=total)
    return out


@nki.jit
def add_partial_tiles(a, b, tile_rows=128, tile_cols=256):
    """Returns a + b for [R, C] float32 tensors of any shape, tiled into
    tile_rows x tile_cols tiles; the last tile of each axis is partial and
    its bounds come from min(), the migration guide's replacement of the
    legacy mask= (section "Deprecation of masking")."""
    rows, cols = a.shape
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in range((rows + tile_rows - 1) // tile_rows):
        p_start = i * tile_rows
        p_end = min(rows, p_start + tile_rows)
        p = slice(p_start, p_end)
        for j in range((cols + tile_cols - 1) // tile_cols):
            f_start = j * tile_cols
            f_end = min(cols, f_start + tile_cols)
            a_tile = nl.ndarray((tile_rows, tile_cols), dtype=a.dtype, buffer=nl.sbuf)
            b_tile = nl.ndarray((tile_rows, tile_cols), dtype=b.dtype, buffer=nl.sbuf)
            used = (slice(0, p_end - p_start), slice(0, f_end - f_start))
            nisa.dma_copy(dst=a_tile[used], src=a[p, f_start:f_end])
            nisa.dma_copy(dst=b_tile[used], src=b[p, f_start:f_end])
            s = nl.ndarray((tile_rows, tile_cols), dtype=a.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=s[used], data1=a_tile[used], data2=b_tile[used], op=nl.add)
            nisa.dma_copy(dst=out[p, f_start:f_end], src=s[used])
    return out
