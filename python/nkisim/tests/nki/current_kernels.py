"""Current-API (nki, NKI 0.2+) kernels of nkisim's end-to-end tests.

Written here for these tests: the destination-first nisa.* forms,
nl.ndarray buffers and slices. narwhal traces this file; the test files
beside it call the kernels with nkisim's shadow nki package on PYTHONPATH.
"""
import nki
import nki.isa as nisa
import nki.language as nl

P = 128  # partitions of one tile


@nki.jit
def add(a, b):
    """Returns a + b for [P <= 128, F <= 512] tensors: both copied to SBUF,
    added by nisa.tensor_tensor, copied back to a new HBM tensor."""
    assert a.shape == b.shape, "a and b differ in shape"
    a_t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    b_t = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    c_t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=c_t, data1=a_t, data2=b_t, op=nl.add)
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=c_t)
    return out


@nki.jit
def add_blocks(a, b, out):
    """out = a + b for [128 * G, F] tensors on a 1-D grid of G programs:
    program i adds rows 128*i .. 128*i+127. The output is a parameter."""
    i = nl.program_id(0)
    a_t = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    b_t = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a[i * P:(i + 1) * P, :])
    nisa.dma_copy(dst=b_t, src=b[i * P:(i + 1) * P, :])
    nisa.tensor_tensor(dst=a_t, data1=a_t, data2=b_t, op=nl.add)
    nisa.dma_copy(dst=out[i * P:(i + 1) * P, :], src=a_t)


@nki.jit
def matmul(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [128, M <= 128] and rhs
    [128, N <= 512]: one nisa.nc_matmul into PSUM, copied to SBUF and out."""
    K, M = lhsT.shape
    _, N = rhs.shape
    l_t = nl.ndarray((K, M), dtype=lhsT.dtype, buffer=nl.sbuf)
    r_t = nl.ndarray((K, N), dtype=rhs.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=l_t, src=lhsT)
    nisa.dma_copy(dst=r_t, src=rhs)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=l_t, moving=r_t)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def sum_and_difference(a, b):
    """Returns (a + b, a - b) for [P <= 128, F] tensors: a tuple."""
    a_t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    b_t = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    outs = []
    for op in (nl.add, nl.subtract):
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=t, data1=a_t, data2=b_t, op=op)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=o, src=t)
        outs.append(o)
    return outs[0], outs[1]


@nki.jit
def scalar_op(x, scale=1.0, op=nl.multiply):
    """Returns op(x, scale) for a [P <= 128, F] tensor: nisa.tensor_scalar
    with the caller's operation and scalar (--arg)."""
    x_t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x_t, src=x)
    y_t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=y_t, data=x_t, op0=op, operand0=scale)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=y_t)
    return out
