"""Current-API kernels defined in the test file itself, with pytest's
parametrize and fixtures: narwhal gets only the kernels' slice of it."""
import numpy as np
import pytest

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def negate(x):
    """Returns -x for x [P <= 128, F <= 512]."""
    x_t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x_t, src=x)
    y_t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=y_t, data=x_t, op0=nl.multiply, operand0=-1.0)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=y_t)
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(128, 512), (7, 3)])
def test_negate(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(negate(x), -x)
