"""Direct allocation (general/nki/nki_direct_allocation_guide.rst): kernels
whose every SBUF and PSUM tensor has a fixed placement from
ncc.sbuf.mod_alloc, ncc.sbuf.alloc (a placement function) or
ncc.psum.mod_alloc. The guide forbids mixing direct and automatic
allocation in one kernel, so every result is assigned into a declared
tensor (t[...] = nl.load(...)) and only single-instruction APIs are used.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc

# Byte offsets in each SBUF partition of the tensors of exp_double_buffered
# (two [128, 512] float32 tiles, 2 KiB each per partition, per tensor).
EXP_IN_BASE = 0
EXP_OUT_BASE = 8192


def _alternate_tiles(idx, pdim_size, fdim_size):
    """ncc.sbuf.alloc placement: logical tile (i,) of a 1-D block dimension at
    partition 0, byte EXP_OUT_BASE + (i % 2) * its size (double buffering)."""
    (i,) = idx
    return (0, EXP_OUT_BASE + (i % 2) * fdim_size)


@nki.jit
def exp_double_buffered(x, scale=0.5):
    """For a [B, 128, 512] float32 tensor returns exp(scale * x), one [128, 512]
    block per iteration. The input blocks live in an ncc.sbuf.mod_alloc
    tensor with two physical tiles (num_free_tiles=(2,)), the results in an
    ncc.sbuf.alloc tensor whose placement function alternates two tiles; the
    exponential is one nisa.activation with a scalar scale."""
    blocks, parts, free = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    inp = nl.ndarray((blocks, nl.par_dim(parts), free), dtype=x.dtype,
                     buffer=ncc.sbuf.mod_alloc(base_addr=EXP_IN_BASE, num_free_tiles=(2,)))
    res = nl.ndarray((blocks, nl.par_dim(parts), free), dtype=x.dtype,
                     buffer=ncc.sbuf.alloc(_alternate_tiles))
    for b in nl.affine_range(blocks):
        inp[b] = nl.load(x[b])
        res[b] = nisa.activation(op=nl.exp, data=inp[b], scale=scale)
        nl.store(out[b], value=res[b])
    return out


@nki.jit
def matmul_mod_alloc(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M] (K a multiple of 128,
    M <= 128) and rhs [K, 2 * 512]. The lhsT K tiles stay resident (one
    physical tile each), the rhs tiles are double-buffered over the two N
    tiles (num_free_tiles=(2, K // 128)), each N tile accumulates in its own
    PSUM bank (ncc.psum.mod_alloc, base_bank=0, num_bank_tiles=(2,)) and is
    copied to a double-buffered SBUF result with nisa.tensor_copy."""
    k, m = lhsT.shape
    _, n = rhs.shape
    nk = k // 128
    nn = n // 512
    assert nn == 2 and m <= 128
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    lhs_bytes = nk * m * 2   # bfloat16
    rhs_base = ((lhs_bytes + 1023) // 1024) * 1024
    res_base = rhs_base + 2 * nk * 512 * 2
    lhs_sb = nl.ndarray((nk, nl.par_dim(128), m), dtype=lhsT.dtype,
                        buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(nk,)))
    rhs_sb = nl.ndarray((nn, nk, nl.par_dim(128), 512), dtype=rhs.dtype,
                        buffer=ncc.sbuf.mod_alloc(base_addr=rhs_base, num_free_tiles=(2, nk)))
    acc = nl.zeros((nn, nl.par_dim(m), 512), dtype=nl.float32,
                   buffer=ncc.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
    res_sb = nl.ndarray((nn, nl.par_dim(m), 512), dtype=nl.float32,
                        buffer=ncc.sbuf.mod_alloc(base_addr=res_base, num_free_tiles=(2,)))
    for kk in nl.affine_range(nk):
        lhs_sb[kk] = nl.load(lhsT[kk * 128:(kk + 1) * 128, :])
    for jn in nl.affine_range(nn):
        for kk in nl.affine_range(nk):
            rhs_sb[jn, kk] = nl.load(rhs[kk * 128:(kk + 1) * 128, jn * 512:(jn + 1) * 512])
        for kk in nl.affine_range(nk):
            acc[jn] += nisa.nc_matmul(lhs_sb[kk], rhs_sb[jn, kk])
        res_sb[jn] = nisa.tensor_copy(acc[jn])
        nl.store(out[:, jn * 512:(jn + 1) * 512], value=res_sb[jn])
    return out
