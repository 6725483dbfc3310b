"""unittest-style tests of current_kernels.py (the current nki API), as NKI
users write them; nkisim runs them through narwhal."""
import unittest

import numpy as np

import nki
import nki.language as nl
from current_kernels import add, add_blocks, matmul, scalar_op, sum_and_difference


class TestCurrentKernels(unittest.TestCase):
    def rand(self, *shape):
        return np.random.random_sample(shape).astype(nl.float32)

    def test_add(self):
        a, b = self.rand(128, 128), self.rand(128, 128)
        np.testing.assert_allclose(nki.simulate_kernel(add, a, b), a + b, rtol=1e-6)

    def test_add_blocks_output_parameter(self):
        a, b = self.rand(256, 32), self.rand(256, 32)
        out = np.zeros((256, 32), dtype=nl.float32)
        add_blocks[2](a, b, out=out)
        np.testing.assert_allclose(out, a + b, rtol=1e-6)

    def test_matmul(self):
        lhsT, rhs = self.rand(128, 128), self.rand(128, 512)
        np.testing.assert_allclose(matmul(lhsT, rhs), lhsT.T @ rhs, rtol=1e-4)

    def test_sum_and_difference(self):
        a, b = self.rand(128, 4), self.rand(128, 4)
        s, d = sum_and_difference(a, b)
        np.testing.assert_allclose(s, a + b, rtol=1e-6)
        np.testing.assert_allclose(d, a - b, rtol=1e-6)

    def test_scalar_op_defaults_and_arguments(self):
        x = self.rand(16, 16)
        np.testing.assert_allclose(scalar_op(x), x, rtol=1e-6)
        np.testing.assert_allclose(scalar_op(x, 0.5, nl.multiply), 0.5 * x, rtol=1e-6)


if __name__ == "__main__":
    unittest.main()
