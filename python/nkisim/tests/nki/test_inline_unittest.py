"""Kernels defined in the test file itself, as NKI's own API tests do
(unittest, @nki.jit(mode="simulation"), legacy API). narwhal gets only the
kernels' slice of this file: unittest is not a module it has."""
import unittest

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

COLS = 64


@nki.jit(mode="simulation")
def exp_rows(x):
    """Returns exp(x) for x [R, 64], R a multiple of 128."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(x.shape[0] // 128):
        rows = nl.ds(r * 128, 128)
        nl.store(out[rows, :], nisa.activation(op=nl.exp, data=nl.load(x[rows, :])))
    return out


@nki.jit(mode="simulation")
def column_block_copy(src, dst):
    """dst[:, 64*j : 64*j+64] = src[:, 64*j : 64*j+64] for program j of a
    1-D grid: the output is a parameter."""
    j = nl.program_id(0)
    block = nl.load(src[:, j * COLS:(j + 1) * COLS])
    nl.store(dst[:, j * COLS:(j + 1) * COLS], value=block)


class TestInlineKernels(unittest.TestCase):
    def test_exp_rows(self):
        x = np.linspace(-3, 3, 256 * COLS, dtype=np.float32).reshape(256, COLS)
        np.testing.assert_allclose(exp_rows(x), np.exp(x), rtol=1e-5)

    def test_column_block_copy_on_a_grid(self):
        src = np.arange(128 * 3 * COLS, dtype=np.float32).reshape(128, 3 * COLS)
        dst = np.zeros_like(src)
        nki.simulate_kernel(column_block_copy[3], src, dst)
        np.testing.assert_array_equal(dst, src)

    def test_column_block_copy_partial_grid_leaves_the_rest(self):
        src = np.ones((128, 2 * COLS), dtype=np.float32)
        dst = np.zeros_like(src)
        column_block_copy[1](src, dst)
        np.testing.assert_array_equal(dst[:, :COLS], 1.0)
        np.testing.assert_array_equal(dst[:, COLS:], 0.0)


if __name__ == "__main__":
    unittest.main()
