"""Matrix multiplication in the current `nki` API, from one tile to the
tutorial-style fully blocked kernel, each the twin of the legacy kernel of
the same name (kernels/nki/legacy/matmul.py).

nisa.nc_matmul(dst, stationary, moving) computes dst = stationary.T @
moving with the contraction on the partitions: stationary [K<=128, M<=128],
moving [K, N<=512], dst a float32 PSUM tile [M, N] (nki.isa stub,
"Memory types", "Tile size"). With accumulate left at None, "the first
write to a PSUM location overwrites, and subsequent writes to the same
location accumulate": each output tile gets a fresh PSUM tensor and the K
loop accumulates into it. PSUM is copied to SBUF with nisa.tensor_copy
before any DMA (the NKI 0.3 update guide: dma_copy no longer reads PSUM).
The legacy block dimension becomes a Python list of tiles or a folded free
axis (the migration guide, "Translation of Block Dimensions").

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import nki
import nki.isa as nisa
import nki.language as nl

# Tile sizes as Python ints (shapes must be ints; nki-library notes that
# nl.tile_size's values are not): nl.tile_size.pmax, gemm_stationary_fmax
# and gemm_moving_fmax, asserted below.
TILE_K = 128   # contraction rows per matmul
TILE_M = 128   # stationary free size
TILE_N = 512   # moving free size


def _check_tiles():
    assert TILE_K <= nl.tile_size.pmax and TILE_M <= nl.tile_size.gemm_stationary_fmax
    assert TILE_N <= nl.tile_size.gemm_moving_fmax


def _evict(ps, dtype):
    """An SBUF copy of the PSUM tile ps in dtype."""
    sb = nl.ndarray(ps.shape, dtype=dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=ps)
    return sb


@nki.jit
def matmul_basic(lhsT, rhs):
    """Returns lhsT.T @ rhs in float32 for one tile: lhsT [K, M] and rhs
    [K, N] with K <= 128, M <= 128, N <= 512."""
    _check_tiles()
    k, m = lhsT.shape
    k2, n = rhs.shape
    assert k == k2
    lhs_tile = nl.ndarray((k, m), dtype=lhsT.dtype, buffer=nl.sbuf)
    rhs_tile = nl.ndarray((k, n), dtype=rhs.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=lhs_tile, src=lhsT)
    nisa.dma_copy(dst=rhs_tile, src=rhs)
    product = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=product, stationary=lhs_tile, moving=rhs_tile)
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=_evict(product, nl.float32))
    return out


@nki.jit
def matmul_tiled(lhsT, rhs, result):
    """Writes result = lhsT.T @ rhs for lhsT [K, M], rhs [K, N] (K, M multiples
    of 128, N a multiple of 512): one PSUM tile per [128, 512] output tile,
    accumulated over the K tiles of an inner nl.affine_range. The output is
    a parameter."""
    _check_tiles()
    k, m = lhsT.shape
    _, n = rhs.shape
    for im in nl.affine_range(m // TILE_M):
        for jn in nl.affine_range(n // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(k // TILE_K):
                lhs_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhs_tile, src=lhsT[kk * TILE_K:(kk + 1) * TILE_K, im * TILE_M:(im + 1) * TILE_M])
                nisa.dma_copy(dst=rhs_tile, src=rhs[kk * TILE_K:(kk + 1) * TILE_K, jn * TILE_N:(jn + 1) * TILE_N])
                nisa.nc_matmul(acc, lhs_tile, rhs_tile)
            nisa.dma_copy(dst=result[im * TILE_M:(im + 1) * TILE_M, jn * TILE_N:(jn + 1) * TILE_N],
                          src=_evict(acc, result.dtype))


@nki.jit
def matmul_hoisted(lhsT, rhs):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M], rhs [K, N] (K, M
    multiples of 128, N a multiple of 512). The K tiles of an lhsT column
    block are loaded once per M tile, before the N loop, into a Python list
    of tiles (the legacy block dimension); the rhs K tiles once per output
    tile."""
    _check_tiles()
    k, m = lhsT.shape
    _, n = rhs.shape
    nk = k // TILE_K
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    for im in nl.affine_range(m // TILE_M):
        lhs_tiles = []
        for kk in nl.affine_range(nk):
            t = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=lhsT[kk * TILE_K:(kk + 1) * TILE_K, im * TILE_M:(im + 1) * TILE_M])
            lhs_tiles.append(t)
        for jn in nl.affine_range(n // TILE_N):
            rhs_tiles = []
            for kk in nl.affine_range(nk):
                t = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=rhs[kk * TILE_K:(kk + 1) * TILE_K, jn * TILE_N:(jn + 1) * TILE_N])
                rhs_tiles.append(t)
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(nk):
                nisa.nc_matmul(dst=acc, stationary=lhs_tiles[kk], moving=rhs_tiles[kk])
            nisa.dma_copy(dst=out[im * TILE_M:(im + 1) * TILE_M, jn * TILE_N:(jn + 1) * TILE_N],
                          src=_evict(acc, nl.float32))
    return out


@nki.jit
def matmul_block_free(lhsT, rhs, tiles_m=2, tiles_n=2):
    """Returns lhsT.T @ rhs (float32) for lhsT [K, M], rhs [K, N] with both
    free dimensions blocked: an M block of tiles_m * 128 columns of lhsT and
    an N block of tiles_n * 512 columns of rhs are loaded whole (all K) into
    [128, K/128, block] SBUF tensors (the block dimension folded into the
    free axes), then every [128, 512] output tile of the block accumulates
    its K tiles in PSUM. M and N must be multiples of the block sizes."""
    _check_tiles()
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
            nisa.dma_copy(dst=lhs_blk[:, kk, :], src=lhsT[nl.ds(kk * TILE_K, TILE_K), nl.ds(bm * block_m, block_m)])
        for bn in nl.affine_range(n // block_n):
            rhs_blk = nl.ndarray((TILE_K, nk, block_n), dtype=rhs.dtype, buffer=nl.sbuf)
            for kk in nl.affine_range(nk):
                nisa.dma_copy(dst=rhs_blk[:, kk, :], src=rhs[nl.ds(kk * TILE_K, TILE_K), nl.ds(bn * block_n, block_n)])
            for im in nl.affine_range(tiles_m):
                for jn in nl.affine_range(tiles_n):
                    acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                    for kk in nl.affine_range(nk):
                        nisa.nc_matmul(dst=acc, stationary=lhs_blk[:, kk, nl.ds(im * TILE_M, TILE_M)],
                                       moving=rhs_blk[:, kk, nl.ds(jn * TILE_N, TILE_N)])
                    nisa.dma_copy(dst=out[nl.ds(bm * block_m + im * TILE_M, TILE_M), nl.ds(bn * block_n + jn * TILE_N, TILE_N)],
                                  src=_evict(acc, nl.float32))
    return out


@nki.jit
def matmul_fully_blocked(lhsT, rhs, tiles_in_block_m=16, tiles_in_block_n=2, tiles_in_block_k=8):
    """Returns lhsT.T @ rhs in lhsT's dtype for lhsT [K, M], rhs [K, N], all
    three dimensions blocked (the defaults suit the tutorial shape). For each
    output block of tiles_in_block_m x tiles_in_block_n tiles, the K blocks
    run in an nl.sequential_range: each loads its lhsT and rhs block into
    SBUF, every output tile accumulates the block's K tiles in PSUM, and the
    PSUM tile is added (nisa.tensor_tensor, SBUF + PSUM) into a float32 SBUF
    accumulator zeroed by nisa.memset, which is cast and copied out after the
    last K block. M, N and K must be multiples of their block sizes."""
    _check_tiles()
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
            acc = nl.ndarray((TILE_M, tiles_in_block_m, tiles_in_block_n, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=acc, value=0.0)
            for bk in nl.sequential_range(k // block_k):
                lhs_blk = nl.ndarray((TILE_K, tiles_in_block_k, block_m), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_blk = nl.ndarray((TILE_K, tiles_in_block_k, block_n), dtype=rhs.dtype, buffer=nl.sbuf)
                for kk in nl.affine_range(tiles_in_block_k):
                    k_rows = nl.ds((bk * tiles_in_block_k + kk) * TILE_K, TILE_K)
                    nisa.dma_copy(dst=lhs_blk[:, kk, :], src=lhsT[k_rows, nl.ds(bm * block_m, block_m)])
                    nisa.dma_copy(dst=rhs_blk[:, kk, :], src=rhs[k_rows, nl.ds(bn * block_n, block_n)])
                for im in nl.affine_range(tiles_in_block_m):
                    for jn in nl.affine_range(tiles_in_block_n):
                        part = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                        for kk in nl.affine_range(tiles_in_block_k):
                            nisa.nc_matmul(dst=part, stationary=lhs_blk[:, kk, nl.ds(im * TILE_M, TILE_M)],
                                           moving=rhs_blk[:, kk, nl.ds(jn * TILE_N, TILE_N)])
                        nisa.tensor_tensor(dst=acc[:, im, jn, :], data1=acc[:, im, jn, :], data2=part, op=nl.add)
            for im in nl.affine_range(tiles_in_block_m):
                for jn in nl.affine_range(tiles_in_block_n):
                    res = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
                    nisa.tensor_copy(dst=res, src=acc[:, im, jn, :])
                    nisa.dma_copy(dst=result[nl.ds(bm * block_m + im * TILE_M, TILE_M), nl.ds(bn * block_n + jn * TILE_N, TILE_N)],
                                  src=res)
    return result


@nki.jit
def matmul_spmd(a, b):
    """Returns a @ b (float32) for a [M, K] and b [K, N] with K <= 128, on a
    2-D SPMD grid kernel[M // 128, N // 512]: program (i, j) computes the
    [128, 512] output tile (i, j) into the shared HBM result every program
    writes its own tile of. The stationary a tile [K, 128] is a's row block
    transposed by nisa.dma_transpose on the way from HBM."""
    _check_tiles()
    m, k = a.shape
    _, n = b.shape
    result = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    a_t = nl.ndarray((k, 128), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=a_t, src=a[nl.ds(i * 128, 128), :])
    b_tile = nl.ndarray((k, 512), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b_tile, src=b[:, nl.ds(j * 512, 512)])
    c_ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=c_ps, stationary=a_t, moving=b_tile)
    nisa.dma_copy(dst=result[nl.ds(i * 128, 128), nl.ds(j * 512, 512)], src=_evict(c_ps, nl.float32))
    return result
