"""Direct allocation in the current `nki` API: every SBUF and PSUM tensor
placed with nl.ndarray(..., address=(partition, byte)). The NKI 0.2
migration guide ("Improved Allocation API") gives the form and translates
the legacy ncc.sbuf.mod_alloc block addresses into "lists of virtual byte
addresses"; a PSUM tensor must start at a bank boundary (8 banks of 2 KiB
per partition: bank b at byte b * 2048). The legacy rule that a kernel
does not mix direct and automatic allocation is kept: every on-chip tensor
of these kernels has an address.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
Twins of the legacy exp_double_buffered and matmul_mod_alloc
(kernels/nki/legacy/direct_alloc.py).
"""
import nki
import nki.isa as nisa
import nki.language as nl

PSUM_BANK_BYTES = 2048
# Byte offsets in each SBUF partition of exp_double_buffered's tiles: two
# [128, 512] float32 input tiles (2 KiB each per partition), two results.
EXP_IN_BASE = 0
EXP_OUT_BASE = 8192


@nki.jit
def exp_double_buffered(x, scale=0.5):
    """For a [B, 128, 512] float32 tensor returns exp(scale * x), one
    [128, 512] block per iteration, double-buffered: block b is loaded into
    input buffer b % 2 and its exponential (one nisa.activation with a
    scalar scale) written to result buffer b % 2, four fixed SBUF tiles."""
    blocks, parts, free = x.shape
    tile_bytes = free * 4
    inp = [nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf, address=(0, EXP_IN_BASE + i * tile_bytes))
           for i in range(2)]
    res = [nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf, address=(0, EXP_OUT_BASE + i * tile_bytes))
           for i in range(2)]
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(blocks):
        nisa.dma_copy(dst=inp[b % 2], src=x[b])
        nisa.activation(dst=res[b % 2], op=nl.exp, data=inp[b % 2], scale=scale)
        nisa.dma_copy(dst=out[b], src=res[b % 2])
    return out


@nki.jit
def matmul_mod_alloc(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M] (K a multiple of 128,
    M <= 128) and rhs [K, 2 * 512]. The lhsT K tiles stay resident at
    consecutive addresses, the rhs tiles of the two N tiles live in separate
    address ranges, each N tile accumulates in its own PSUM bank (address
    (0, bank * 2048)) and is copied to its own SBUF result tile."""
    k, m = lhsT.shape
    _, n = rhs.shape
    nk = k // 128
    nn = n // 512
    assert nn == 2 and m <= 128
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    lhs_bytes = nk * m * 2   # bfloat16
    rhs_base = ((lhs_bytes + 1023) // 1024) * 1024
    res_base = rhs_base + nn * nk * 512 * 2
    lhs_sb = [nl.ndarray((128, m), dtype=lhsT.dtype, buffer=nl.sbuf, address=(0, kk * m * 2)) for kk in range(nk)]
    for kk in nl.affine_range(nk):
        nisa.dma_copy(dst=lhs_sb[kk], src=lhsT[kk * 128:(kk + 1) * 128, :])
    for jn in nl.affine_range(nn):
        rhs_sb = [nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf,
                             address=(0, rhs_base + (jn * nk + kk) * 512 * 2)) for kk in range(nk)]
        for kk in nl.affine_range(nk):
            nisa.dma_copy(dst=rhs_sb[kk], src=rhs[kk * 128:(kk + 1) * 128, jn * 512:(jn + 1) * 512])
        acc = nl.ndarray((m, 512), dtype=nl.float32, buffer=nl.psum, address=(0, jn * PSUM_BANK_BYTES))
        for kk in nl.affine_range(nk):
            nisa.nc_matmul(dst=acc, stationary=lhs_sb[kk], moving=rhs_sb[kk])
        res_sb = nl.ndarray((m, 512), dtype=nl.float32, buffer=nl.sbuf, address=(0, res_base + jn * 512 * 4))
        nisa.tensor_copy(dst=res_sb, src=acc)
        nisa.dma_copy(dst=out[:, jn * 512:(jn + 1) * 512], src=res_sb)
    return out
