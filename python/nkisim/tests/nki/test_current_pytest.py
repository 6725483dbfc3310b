"""pytest-style tests of current_kernels.py (the current nki API), as NKI
users write them; nkisim runs them through narwhal."""
import numpy as np
import pytest

import nki
import nki.language as nl
from current_kernels import add, add_blocks, matmul, scalar_op, sum_and_difference


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(nl.float32)


def test_add():
    a, b = rand(128, 512, seed=1), rand(128, 512, seed=2)
    np.testing.assert_allclose(add(a, b), a + b, rtol=1e-6)


def test_add_through_nki_simulate():
    a, b = rand(64, 8, seed=3), rand(64, 8, seed=4)
    np.testing.assert_allclose(nki.simulate(add)(a, b), a + b, rtol=1e-6)


def test_add_rejects_mismatched_shapes():
    with pytest.raises(AssertionError):
        add(rand(128, 8), rand(128, 9))


@pytest.mark.parametrize("programs", [1, 3])
def test_add_blocks_on_a_grid(programs):
    a, b = rand(128 * programs, 64, seed=5), rand(128 * programs, 64, seed=6)
    out = np.zeros_like(a)
    add_blocks[programs](a, b, out)
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_matmul():
    lhsT, rhs = rand(128, 96, seed=7), rand(128, 256, seed=8)
    np.testing.assert_allclose(matmul(lhsT, rhs), lhsT.T @ rhs, rtol=1e-4, atol=1e-4)


def test_sum_and_difference():
    a, b = rand(32, 16, seed=9), rand(32, 16, seed=10)
    s, d = sum_and_difference(a, b)
    np.testing.assert_allclose(s, a + b, rtol=1e-6)
    np.testing.assert_allclose(d, a - b, rtol=1e-6)


@pytest.mark.parametrize("scale, op, ref", [(3.0, nl.multiply, np.multiply), (-1.5, nl.add, np.add)])
def test_scalar_op(scale, op, ref):
    x = rand(128, 64, seed=11)
    np.testing.assert_allclose(scalar_op(x, scale=scale, op=op), ref(x, scale), rtol=1e-6)
