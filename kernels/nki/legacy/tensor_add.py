"""Tensor addition: an SPMD grid, a loop that stays a loop, and a loop that
must unroll at trace time.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# One tile of the SPMD kernel: a full partition range by 128 float32
# columns.
GRID_TILE_ROWS = 128
GRID_TILE_COLS = 128

ROW_TILE = 128


@nki.jit
def add_spmd_grid(a_input, b_input, c_output):
    """c_output = a_input + b_input for [R, C] float32 tensors, launched on a
    2-D SPMD grid kernel[R // 128, C // 128]: program (i, j) adds the
    128 x 128 block at rows 128*i, columns 128*j. The output is a parameter
    (the older kernel style)."""
    # nl.program_ndim / nl.num_programs / nl.program_id: the SPMD launch grid
    # (general/nki/api nki.language: program_id(axis), num_programs(axes=None)).
    assert nl.program_ndim() == 2
    assert a_input.shape[0] == GRID_TILE_ROWS * nl.num_programs(0)
    assert a_input.shape[1] == GRID_TILE_COLS * nl.num_programs(1)
    i = nl.program_id(0)
    j = nl.program_id(1)
    rows = i * GRID_TILE_ROWS + nl.arange(GRID_TILE_ROWS)[:, None]
    cols = j * GRID_TILE_COLS + nl.arange(GRID_TILE_COLS)[None, :]
    a_tile = nl.load(a_input[rows, cols])
    b_tile = nl.load(b_input[rows, cols])
    nl.store(c_output[rows, cols], value=a_tile + b_tile)


def add_rows_loop(a, b):
    """Returns a + b for [R, C] tensors (R a multiple of 128), one 128-row tile
    per iteration of an nl.affine_range loop. Nothing in the body depends on
    the iterator through Python control flow, so the traced loop stays a loop.
    A plain function (no decorator): the front end traces it all the same."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // ROW_TILE):
        a_tile = nl.load(a[r * ROW_TILE:(r + 1) * ROW_TILE, :])
        b_tile = nl.load(b[nl.ds(r * ROW_TILE, ROW_TILE), :])
        nl.store(out[r * ROW_TILE:(r + 1) * ROW_TILE, :], nl.add(a_tile, b_tile))
    return out


@nki.jit
def add_first_tile_doubled(a, b):
    """Returns a + b for [R, C] float32 tensors (R a multiple of 128), except
    that the first 128-row tile holds 2 * (a + b). The Python `if` on the
    iterator of the nl.affine_range loop can only be decided per iteration,
    so the tracer must unroll this loop."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(a.shape[0] // ROW_TILE):
        rows = nl.ds(r * ROW_TILE, ROW_TILE)
        total = nl.add(nl.load(a[rows, :]), nl.load(b[rows, :]))
        if r == 0:
            total = nl.multiply(total, 2.0)
        nl.store(out[rows, :], value=total)
    return out


if __name__ == "__main__":
    # How a user runs these kernels on the NKI simulator (not traced: the
    # module's __name__ is not "__main__" when narwhal imports it).
    import numpy as np
    x = np.ones((256, 512), dtype=np.float32)
    print(nki.simulate_kernel(nki.jit(add_rows_loop), x, x))
