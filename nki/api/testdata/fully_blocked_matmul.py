# A fully blocked matrix multiplication in the legacy NKI API, written for
# narwhal's structure test (nki/api/structure_test.go): the loop nest keeps
# every loop, so the traced kernel stays a few dozen instructions whatever
# the matrix sizes.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def fully_blocked_matmul(lhsT, rhs, tiles_m=16, tiles_n=2, tiles_k=8):
    """result[M, N] = lhsT[K, M]^T @ rhs[K, N].

    The output is cut into blocks of tiles_m x tiles_n tiles of 128 x 512
    (a stationary width by one PSUM bank of float32); K is walked in blocks
    of tiles_k partition tiles. Within a K block each output tile
    accumulates in PSUM; across K blocks (a sequential loop) the partial
    sums accumulate in an SBUF tensor that holds the block column."""
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    assert K == K_rhs, f"lhsT has {K} rows, rhs {K_rhs}"
    tm = nl.tile_size.gemm_stationary_fmax
    tn = nl.tile_size.gemm_moving_fmax
    tk = nl.tile_size.pmax
    block_m, block_n, block_k = tm * tiles_m, tn * tiles_n, tk * tiles_k
    assert M % block_m == 0 and N % block_n == 0 and K % block_k == 0
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

    for bn in nl.affine_range(N // block_n):
        partial = nl.zeros((M // block_m, tiles_m, tiles_n, nl.par_dim(tm), tn), dtype=nl.float32, buffer=nl.sbuf)
        for bk in nl.sequential_range(K // block_k):
            rhs_block = nl.ndarray((tiles_k, nl.par_dim(tk), block_n), dtype=rhs.dtype, buffer=nl.sbuf)
            for kt in nl.affine_range(tiles_k):
                k0 = (bk * tiles_k + kt) * tk
                rhs_block[kt] = nl.load(rhs[k0:k0 + tk, bn * block_n:(bn + 1) * block_n])
            for bm in nl.affine_range(M // block_m):
                lhs_block = nl.ndarray((tiles_k, nl.par_dim(tk), block_m), dtype=lhsT.dtype, buffer=nl.sbuf)
                for kt in nl.affine_range(tiles_k):
                    k0 = (bk * tiles_k + kt) * tk
                    lhs_block[kt] = nl.load(lhsT[k0:k0 + tk, bm * block_m:(bm + 1) * block_m])
                for j in nl.affine_range(tiles_n):
                    for i in nl.affine_range(tiles_m):
                        acc = nl.zeros((tm, tn), dtype=nl.float32, buffer=nl.psum)
                        for kt in nl.affine_range(tiles_k):
                            acc += nisa.nc_matmul(lhs_block[kt, :, i * tm:(i + 1) * tm],
                                                  rhs_block[kt, :, j * tn:(j + 1) * tn])
                        partial[bm, i, j] += acc
        for bm in nl.affine_range(M // block_m):
            for i in nl.affine_range(tiles_m):
                rows = nl.ndarray((nl.par_dim(tm), block_n), dtype=result.dtype, buffer=nl.sbuf)
                for j in nl.affine_range(tiles_n):
                    rows[:, j * tn:(j + 1) * tn] = nl.copy(partial[bm, i, j], dtype=result.dtype)
                r0 = (bm * tiles_m + i) * tm
                nl.store(result[r0:r0 + tm, bn * block_n:(bn + 1) * block_n], value=rows)
    return result
