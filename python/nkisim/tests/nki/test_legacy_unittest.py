"""unittest-style tests of legacy_kernels.py, written the way NKI users
test kernels with NKI's simulator; nkisim runs them through narwhal."""
import unittest

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from legacy_kernels import add_into, add_rows, matmul, row_max_min, scaled_op


class TestLegacyKernels(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(42)

    def rand(self, *shape):
        return self.rng.random(shape).astype(nl.float32)

    def test_add_into_writes_its_output_parameter(self):
        a, b = self.rand(256, 256), self.rand(256, 256)
        out = np.full_like(a, -1.0)
        nki.simulate_kernel(add_into[2, 2], a, b, out)
        np.testing.assert_allclose(out, a + b, rtol=1e-6)

    def test_add_rows(self):
        a, b = self.rand(384, 128), self.rand(384, 128)
        np.testing.assert_allclose(add_rows(a, b), a + b, rtol=1e-6)

    def test_add_rows_shape_mismatch_raises(self):
        with self.assertRaises(AssertionError):
            add_rows(self.rand(128, 4), self.rand(256, 4))

    def test_matmul(self):
        lhsT, rhs = self.rand(128, 128), self.rand(128, 512)
        np.testing.assert_allclose(matmul(lhsT, rhs), lhsT.T @ rhs, rtol=1e-4)

    def test_row_max_min(self):
        x = self.rand(100, 17)
        result = row_max_min(x)
        self.assertIsInstance(result, tuple)
        self.assertEqual(len(result), 2)
        np.testing.assert_array_equal(result[0][:, 0], x.max(axis=1))
        np.testing.assert_array_equal(result[1][:, 0], x.min(axis=1))

    def test_scaled_op(self):
        x, y = self.rand(128, 64), self.rand(128, 64)
        np.testing.assert_allclose(scaled_op(x, y, 0.25, nl.multiply), 0.25 * x * y, rtol=1e-5)
        np.testing.assert_allclose(scaled_op(x, y), x + y, rtol=1e-6)  # the defaults


if __name__ == "__main__":
    unittest.main()
