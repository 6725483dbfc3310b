"""Matrix multiplication, from one tile to the tutorial-style fully blocked
kernel: nl.matmul with and without transpose_x, tiles over M, N and K with
PSUM accumulation, loads hoisted out of the N loop, blocking of the free
dimensions, blocking of all three with SBUF accumulation over a
sequential K-block loop, and an SPMD grid.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
Layout (general/nki/programming_model.rst, LC#1): nisa.nc_matmul(stationary,
moving) computes stationary.T @ moving with the contraction on the
partitions: stationary [K<=128, M<=128], moving [K, N<=512] -> PSUM [M, N].
So the kernels take the left operand transposed, lhsT = [K, M].
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_K = nl.tile_size.pmax                  # contraction rows per matmul
TILE_M = nl.tile_size.gemm_stationary_fmax  # stationary free size
TILE_N = nl.tile_size.gemm_moving_fmax      # moving free size
PSUM_FMAX = nl.tile_size.psum_fmax          # a PSUM tile's free size (one bank of fp32)
assert TILE_N <= PSUM_FMAX


@nki.jit
def matmul_basic(lhsT, rhs):
    """Returns lhsT.T @ rhs in float32 for one tile: lhsT [K, M] and rhs [K, N]
    with K <= 128, M <= 128, N <= 512, through nl.matmul(transpose_x=True)
    (PSUM) and nl.copy back to SBUF."""
    k, m = lhsT.shape
    k2, n = rhs.shape
    assert k == k2
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    i_k = nl.arange(k)[:, None]
    i_m = nl.arange(m)[None, :]
    i_n = nl.arange(n)[None, :]
    lhs_tile = nl.load(lhsT[i_k, i_m])
    rhs_tile = nl.load(rhs[i_k, i_n])
    product = nl.matmul(lhs_tile, rhs_tile, transpose_x=True)
    i_out = nl.arange(m)[:, None]
    nl.store(out[i_out, i_n], value=nl.copy(product, dtype=nl.float32))
    return out


@nki.jit
def matmul_untransposed(x, y):
    """Returns x @ y for x [M, K] and y [K, N] (M, K <= 128, N <= 512) with
    nl.matmul(x, y) and transpose_x=False: the API inserts the transpose that
    puts K on x's partitions."""
    m, k = x.shape
    _, n = y.shape
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.load(x)
    yt = nl.load(y)
    nl.store(out, value=nl.copy(nl.matmul(xt, yt)))
    return out


@nki.jit
def matmul_tiled(lhsT, rhs, result):
    """Writes result = lhsT.T @ rhs for lhsT [K, M], rhs [K, N] (K, M multiples
    of 128, N a multiple of 512): one PSUM tile per [128, 512] output tile,
    accumulated with += over the K tiles of an inner nl.affine_range, with
    nl.mgrid index grids (.p, .x). The output is a parameter."""
    k, m = lhsT.shape
    _, n = rhs.shape
    i_lhs = nl.mgrid[0:TILE_K, 0:TILE_M]
    i_rhs = nl.mgrid[0:TILE_K, 0:TILE_N]
    i_res = nl.mgrid[0:TILE_M, 0:TILE_N]
    for im in nl.affine_range(m // TILE_M):
        for jn in nl.affine_range(n // TILE_N):
            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(k // TILE_K):
                lhs_tile = nl.load(lhsT[kk * TILE_K + i_lhs.p, im * TILE_M + i_lhs.x])
                rhs_tile = nl.load(rhs[kk * TILE_K + i_rhs.p, jn * TILE_N + i_rhs.x])
                acc += nisa.nc_matmul(lhs_tile, rhs_tile)
            res = nl.copy(acc, dtype=result.dtype)
            nl.store(result[im * TILE_M + i_res.p, jn * TILE_N + i_res.x], value=res)


@nki.jit
def matmul_hoisted(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M], rhs [K, N] (K, M
    multiples of 128, N a multiple of 512). The K tiles of an lhsT column
    block are loaded once per M tile, before the N loop, into a tensor with a
    block dimension in front of nl.par_dim; the rhs K tiles once per output
    tile; the products go through nl.matmul(transpose_x=True)."""
    k, m = lhsT.shape
    _, n = rhs.shape
    nk = k // TILE_K
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    for im in nl.affine_range(m // TILE_M):
        lhs_tiles = nl.ndarray((nk, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for kk in nl.affine_range(nk):
            lhs_tiles[kk] = nl.load(lhsT[kk * TILE_K:(kk + 1) * TILE_K, im * TILE_M:(im + 1) * TILE_M])
        for jn in nl.affine_range(n // TILE_N):
            rhs_tiles = nl.ndarray((nk, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for kk in nl.affine_range(nk):
                rhs_tiles[kk] = nl.load(rhs[kk * TILE_K:(kk + 1) * TILE_K, jn * TILE_N:(jn + 1) * TILE_N])
            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(nk):
                acc += nl.matmul(lhs_tiles[kk], rhs_tiles[kk], transpose_x=True)
            nl.store(out[im * TILE_M:(im + 1) * TILE_M, jn * TILE_N:(jn + 1) * TILE_N],
                     value=nl.copy(acc, dtype=nl.float32))
    return out


@nki.jit
def matmul_block_free(lhsT, rhs, tiles_m=2, tiles_n=2):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M], rhs [K, N] with both
    free dimensions blocked: an M block of tiles_m * 128 columns of lhsT and
    an N block of tiles_n * 512 columns of rhs are loaded whole (all K) into
    SBUF, then every [128, 512] output tile of the block accumulates its K
    tiles in PSUM. M and N must be multiples of the block sizes."""
    k, m = lhsT.shape
    _, n = rhs.shape
    nk = k // TILE_K
    block_m = tiles_m * TILE_M
    block_n = tiles_n * TILE_N
    assert m % block_m == 0 and n % block_n == 0
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    for bm in nl.affine_range(m // block_m):
        lhs_blk = nl.ndarray((TILE_K, nk, block_m), dtype=lhsT.dtype, buffer=nl.sbuf)
        for kk in nl.affine_range(nk):
            lhs_blk[:, kk, :] = nl.load(lhsT[nl.ds(kk * TILE_K, TILE_K), nl.ds(bm * block_m, block_m)])
        for bn in nl.affine_range(n // block_n):
            rhs_blk = nl.ndarray((TILE_K, nk, block_n), dtype=rhs.dtype, buffer=nl.sbuf)
            for kk in nl.affine_range(nk):
                rhs_blk[:, kk, :] = nl.load(rhs[nl.ds(kk * TILE_K, TILE_K), nl.ds(bn * block_n, block_n)])
            for im in nl.affine_range(tiles_m):
                for jn in nl.affine_range(tiles_n):
                    acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                    for kk in nl.affine_range(nk):
                        acc += nisa.nc_matmul(lhs_blk[:, kk, nl.ds(im * TILE_M, TILE_M)],
                                              rhs_blk[:, kk, nl.ds(jn * TILE_N, TILE_N)])
                    nl.store(out[nl.ds(bm * block_m + im * TILE_M, TILE_M),
                                 nl.ds(bn * block_n + jn * TILE_N, TILE_N)],
                             value=nl.copy(acc, dtype=nl.float32))
    return out


@nki.jit
def matmul_fully_blocked(lhsT, rhs, tiles_in_block_m=16, tiles_in_block_n=2, tiles_in_block_k=8):
    """Returns lhsT.T @ rhs in lhsT's dtype for lhsT [K, M], rhs [K, N], all
    three dimensions blocked (the defaults suit the tutorial shape,
    [4096, 8192] x [8192, 8192] in bfloat16: lhsT [8192, 4096], rhs
    [8192, 8192]). For each output block of tiles_in_block_m x
    tiles_in_block_n tiles, the K blocks run in an nl.sequential_range: each
    loads its lhsT and rhs block into SBUF, every output tile accumulates the
    block's K tiles in PSUM and adds the PSUM tile into a float32 SBUF
    accumulator (+=), which is cast and stored after the last K block. M, N
    and K must be multiples of their block sizes."""
    k, m = lhsT.shape
    k2, n = rhs.shape
    assert k == k2
    block_m = tiles_in_block_m * TILE_M
    block_n = tiles_in_block_n * TILE_N
    block_k = tiles_in_block_k * TILE_K
    assert m % block_m == 0 and n % block_n == 0 and k % block_k == 0
    result = nl.ndarray((m, n), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for bm in nl.affine_range(m // block_m):
        for bn in nl.affine_range(n // block_n):
            acc = nl.zeros((nl.par_dim(TILE_M), tiles_in_block_m, tiles_in_block_n, TILE_N),
                           dtype=nl.float32, buffer=nl.sbuf)
            for bk in nl.sequential_range(k // block_k):
                lhs_blk = nl.ndarray((nl.par_dim(TILE_K), tiles_in_block_k, block_m), dtype=lhsT.dtype,
                                     buffer=nl.sbuf)
                rhs_blk = nl.ndarray((nl.par_dim(TILE_K), tiles_in_block_k, block_n), dtype=rhs.dtype,
                                     buffer=nl.sbuf)
                for kk in nl.affine_range(tiles_in_block_k):
                    k_rows = nl.ds((bk * tiles_in_block_k + kk) * TILE_K, TILE_K)
                    lhs_blk[:, kk, :] = nl.load(lhsT[k_rows, nl.ds(bm * block_m, block_m)])
                    rhs_blk[:, kk, :] = nl.load(rhs[k_rows, nl.ds(bn * block_n, block_n)])
                for im in nl.affine_range(tiles_in_block_m):
                    for jn in nl.affine_range(tiles_in_block_n):
                        part = nl.zeros((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                        for kk in nl.affine_range(tiles_in_block_k):
                            part += nisa.nc_matmul(lhs_blk[:, kk, nl.ds(im * TILE_M, TILE_M)],
                                                   rhs_blk[:, kk, nl.ds(jn * TILE_N, TILE_N)])
                        acc[:, im, jn, :] += part
            for im in nl.affine_range(tiles_in_block_m):
                for jn in nl.affine_range(tiles_in_block_n):
                    res = nl.copy(acc[:, im, jn, :], dtype=result.dtype)
                    nl.store(result[nl.ds(bm * block_m + im * TILE_M, TILE_M),
                                    nl.ds(bn * block_n + jn * TILE_N, TILE_N)], value=res)
    return result


@nki.jit
def matmul_spmd(a, b):
    """Returns a @ b (float32) for a [M, K] and b [K, N] with K <= 128, on a
    2-D SPMD grid kernel[M // 128, N // 512]: program (i, j) computes the
    [128, 512] output tile (i, j) with nl.matmul (transpose_x=False) into the
    shared HBM result every program writes its own tile of."""
    m, k = a.shape
    _, n = b.shape
    result = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    a_tile = nl.load(a[nl.ds(i * 128, 128), :])
    b_tile = nl.load(b[:, nl.ds(j * 512, 512)])
    c_tile = nl.copy(nl.matmul(a_tile, b_tile), dtype=nl.float32)
    nl.store(result[nl.ds(i * 128, 128), nl.ds(j * 512, 512)], value=c_tile)
    return result
