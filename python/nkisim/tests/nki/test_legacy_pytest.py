"""pytest-style tests of legacy_kernels.py, written the way NKI users test
kernels with NKI's simulator; nkisim runs them through narwhal."""
import numpy as np
import pytest

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from legacy_kernels import add_into, add_rows, matmul, row_max_min, scaled_op


def rand(*shape, dtype=nl.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("grid", [(1, 1), (2, 1), (1, 3)])
def test_add_into_on_a_grid(grid):
    a = rand(128 * grid[0], 128 * grid[1], seed=1)
    b = rand(128 * grid[0], 128 * grid[1], seed=2)
    out = np.zeros_like(a)
    assert add_into[grid](a, b, out) is None
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_add_rows_returns_the_sum():
    a, b = rand(256, 64, seed=3), rand(256, 64, seed=4)
    np.testing.assert_allclose(add_rows(a, b), a + b, rtol=1e-6)


def test_add_rows_in_float16():
    a, b = rand(128, 32, dtype=nl.float16), rand(128, 32, dtype=nl.float16, seed=5)
    out = add_rows(a, b=b)
    assert out.dtype == nl.float16
    np.testing.assert_allclose(out, a + b, rtol=1e-3)


def test_add_rows_in_bfloat16():
    a = rand(128, 64, seed=11).astype(nl.bfloat16)
    b = rand(128, 64, seed=12).astype(nl.bfloat16)
    out = add_rows(a, b)
    assert out.dtype == nl.bfloat16
    want = a.astype(np.float32) + b.astype(np.float32)
    np.testing.assert_allclose(out.astype(np.float32), want, rtol=1e-2, atol=1e-2)


def test_add_rows_rejects_mismatched_shapes():
    with pytest.raises(AssertionError, match="differ in shape"):
        add_rows(rand(128, 8), rand(128, 16))


def test_matmul_through_simulate_kernel():
    lhsT, rhs = rand(256, 64, seed=6), rand(256, 128, seed=7)
    out = nki.simulate_kernel(matmul, lhsT, rhs)
    assert out.shape == (64, 128)
    np.testing.assert_allclose(out, lhsT.T @ rhs, rtol=1e-4, atol=1e-4)


def test_row_max_min_returns_a_tuple():
    x = rand(128, 40, seed=8)
    hi, lo = row_max_min(x)
    np.testing.assert_array_equal(hi, x.max(axis=1, keepdims=True))
    np.testing.assert_array_equal(lo, x.min(axis=1, keepdims=True))


@pytest.mark.parametrize("alpha, op, ref", [
    (1.0, nl.add, np.add),
    (2.5, nl.multiply, np.multiply),
    (-0.5, nl.maximum, np.maximum),
    (3.0, np.subtract, np.subtract),
])
def test_scaled_op_with_scalar_and_op_arguments(alpha, op, ref):
    x, y = rand(64, 32, seed=9), rand(64, 32, seed=10)
    np.testing.assert_allclose(scaled_op(x, y, alpha=alpha, op=op), ref(alpha * x, y), rtol=1e-5)
