"""Access patterns, .ap(pattern, offset=, scalar_offset=, vector_offset=,
indirect_dim=), the current API's way to read and write what slices cannot
express (the deep dive "NKI Access Patterns", nki-aps, and the migration
guide's "Dynamic Access Pattern"):

- t.ap(pattern=[[step, num], ...], offset=o) is the view v with
  v[i0, i1, ...] = t.flatten()[o + i0 * step0 + i1 * step1 + ...]; on an
  SBUF tensor the first pair is the partition's (step = the free size);
- scalar_offset (a (1, 1) SBUF tensor or a register) adds
  value * prod(t.shape[indirect_dim + 1:]) to the start;
- vector_offset (an SBUF [P, 1] tensor; indirect_dim 0 only; the indexed
  tensor in HBM) gives every partition its own row: a gather when the view
  is dma_copy's src, a scatter when it is its dst.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import nki
import nki.isa as nisa
import nki.language as nl


def _load(t):
    sb = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=sb, src=t)
    return sb


def _store(t):
    out = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def ap_views(x):
    """Static access patterns on an SBUF tile: for a [128, 256] float32 x
    returns
      0: x[:, 64:192]                        (a 2-D pattern with offset=64)
      1: [128, 32, 4], element [p, a, b] = x[p, 2 + 8a + b]
                                             (a 3-D pattern, offset=2)
      2: y with y[:, 0::2] = x[:, :128] and y[:, 1::2] = x[:, 128:], written
         through two step-2 patterns on the destination (offsets 0 and 1)."""
    parts, free = x.shape
    xt = _load(x)
    mid = nl.ndarray((parts, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=mid, src=xt.ap(pattern=[[free, parts], [1, 128]], offset=64))
    groups = nl.ndarray((parts, 32, 4), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=groups, src=xt.ap(pattern=[[free, parts], [8, 32], [1, 4]], offset=2))
    inter = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=inter.ap(pattern=[[free, parts], [2, free // 2]], offset=0), src=xt[:, 0:free // 2])
    nisa.tensor_copy(dst=inter.ap(pattern=[[free, parts], [2, free // 2]], offset=1), src=xt[:, free // 2:free])
    return _store(mid), _store(groups), _store(inter)


@nki.jit
def ap_scalar_offset(x, start, y, row):
    """Scalar dynamic access, the offset a runtime value in a (1, 1) SBUF
    tensor: for an [R, C] float32 x, a [1, 1] int32 start, a [B, S, D]
    float32 y and a [1, 1] int32 row returns
      0: x[start:start + 128, 0:64]      (indirect_dim=0: start * C elements)
      1: y[1, row:row + 16, :]           (indirect_dim=1: offset = S * D for
                                          batch 1, plus row * D; copied HBM to
                                          an nl.private_hbm tensor, then on)"""
    rows, cols = x.shape
    b, s, d = y.shape
    st = _load(start)
    rw = _load(row)
    r0 = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=r0, src=x.ap(pattern=[[cols, 128], [1, 64]], offset=0, scalar_offset=st, indirect_dim=0))
    staged = nl.ndarray((16, d), dtype=y.dtype, buffer=nl.private_hbm)
    nisa.dma_copy(dst=staged, src=y.ap(pattern=[[d, 16], [1, d]], offset=s * d, scalar_offset=rw, indirect_dim=1),
                  dge_mode=nisa.dge_mode.swdge)
    r1 = nl.ndarray((16, d), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=r1, src=staged)
    return _store(r0), _store(r1)


@nki.jit
def ap_gather_scatter(x, gather_idx, scatter_idx, skip_idx):
    """Vector dynamic access (software DGE) on an [R, F] float32 HBM x with
    [128, 1] int32 row indices: returns
      0: x[gather_idx[p]] for p < 128                      (a gather)
      1: the [R, F] tensor that is 0 except row scatter_idx[p] = x[p]
         (a scatter; the indices distinct)
      2: x[skip_idx[p]] where skip_idx[p] < R and 0 where it is out of range:
         oob_mode=nisa.oob_mode.skip skips those rows of the gather, whose
         destination was zeroed first."""
    rows, free = x.shape
    g, s, k = _load(gather_idx), _load(scatter_idx), _load(skip_idx)
    gathered = nl.ndarray((128, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=gathered, src=x.ap(pattern=[[free, 128], [1, free]], offset=0, vector_offset=g, indirect_dim=0),
                  dge_mode=nisa.dge_mode.swdge)
    top = nl.ndarray((128, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=top, src=x[0:128, :])
    scattered = nl.ndarray((rows, free), dtype=x.dtype, buffer=nl.shared_hbm)
    zero = nl.ndarray((128, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=zero, value=0.0)
    for r in range(rows // 128):
        nisa.dma_copy(dst=scattered[r * 128:(r + 1) * 128, :], src=zero)
    nisa.dma_copy(dst=scattered.ap(pattern=[[free, 128], [1, free]], offset=0, vector_offset=s, indirect_dim=0),
                  src=top)
    skipped = nl.ndarray((128, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=skipped, value=0.0)
    nisa.dma_copy(dst=skipped, src=x.ap(pattern=[[free, 128], [1, free]], offset=0, vector_offset=k, indirect_dim=0),
                  oob_mode=nisa.oob_mode.skip, dge_mode=nisa.dge_mode.swdge)
    return _store(gathered), scattered, _store(skipped)
