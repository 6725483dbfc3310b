"""The nki.isa instructions nki-library uses beyond the legacy set, one
kernel each, with the argument forms the current nki.isa stub documents
(aws-neuron-sdk nki/api/nki/isa/__init__.py): scalar_tensor_tensor,
tensor_scalar_reduce, activation_reduce and activation's reduce registers,
range_select, select_reduce, tensor_copy_predicated, max8 /
nc_find_index8 / nc_match_replace8, nc_stream_shuffle, local_gather,
dma_compute, sequence_bounds, tensor_scalar_cumulative.

Several of these keep state in an engine between instructions: the Scalar
Engine's reduce registers (activation's reduce_cmd) and the Vector
Engine's accumulator registers, "shared across Vector Engine accumulation
instructions" (tensor_scalar_reduce, tensor_scalar_cumulative,
range_select, select_reduce). The kernels that continue an accumulation
(reduce_cmd.reduce) issue nothing else on that engine in between.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import nki
import nki.isa as nisa
import nki.language as nl


def _load(t, dtype=None):
    sb = nl.ndarray(t.shape, dtype=t.dtype if dtype is None else dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=sb, src=t)
    return sb


def _new(shape, dtype=nl.float32):
    return nl.ndarray(shape, dtype=dtype, buffer=nl.sbuf)


def _store(t):
    out = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def stt_ops(x, y, col):
    """nisa.scalar_tensor_tensor, dst = (data op0 operand0) op1 operand1 with
    operand0 a scalar or a [P, 1] column and operand1 a tile of data's size:
    for [128, F] float32 x, y and a [128, 1] col returns
      0: x * col + y             (a vector operand0)
      1: y - (x + 0.5)           (reverse1=True: operand1 is op1's left side)
      2: (0.25 - x) * y          (reverse0=True: operand0 is op0's left side)"""
    xt, yt, c = _load(x), _load(y), _load(col)
    r0 = _new(x.shape)
    nisa.scalar_tensor_tensor(dst=r0, data=xt, op0=nl.multiply, operand0=c, op1=nl.add, operand1=yt)
    r1 = _new(x.shape)
    nisa.scalar_tensor_tensor(r1, xt, nl.add, 0.5, nl.subtract, yt, reverse1=True)
    r2 = _new(x.shape)
    nisa.scalar_tensor_tensor(dst=r2, data=xt, op0=nl.subtract, operand0=0.25, op1=nl.multiply, operand1=yt,
                              reverse0=True)
    return _store(r0), _store(r1), _store(r2)


@nki.jit
def tensor_scalar_reduce_rows(x, col):
    """nisa.tensor_scalar_reduce, dst = data op0 operand0 and reduce_res =
    reduce_op over the free axis of dst: for a [128, F] float32 x and a
    [128, 1] col returns (x * col, its row sums [128, 1] (nl.add), x + 1.0,
    its row maxima [128, 1] (nl.max, the reduce_op spelling of the stub));
    reduce_cmd left at its default, reset_reduce."""
    xt, c = _load(x), _load(col)
    r0, s0 = _new(x.shape), _new((x.shape[0], 1))
    nisa.tensor_scalar_reduce(dst=r0, data=xt, op0=nl.multiply, operand0=c, reduce_op=nl.add, reduce_res=s0)
    r1, s1 = _new(x.shape), _new((x.shape[0], 1))
    nisa.tensor_scalar_reduce(r1, xt, nl.add, 1.0, nl.max, s1)
    return _store(r0), _store(s0), _store(r1), _store(s1)


@nki.jit
def activation_accumulate(x, bias):
    """The Scalar Engine's reduce registers: for a [128, 2H] float32 x and a
    [128, 1] bias returns
      0: e = exp(0.5 * x + bias)
      1: the row sums of e, [128, 1]   (nisa.activation_reduce, reduce_op=nl.add)
      2: q = x ** 2
      3: the row sums of q, [128, 1]   over both halves of x: a first
         nisa.activation on columns 0..H-1 with reduce_cmd=reset_reduce, a
         second on columns H..2H-1 with reduce_cmd=reduce and reduce_res,
         the registers carrying the first half's sums between the two."""
    parts, free = x.shape
    half = free // 2
    xt, b = _load(x), _load(bias)
    e, esum = _new(x.shape), _new((parts, 1))
    nisa.activation_reduce(dst=e, op=nl.exp, data=xt, reduce_op=nl.add, reduce_res=esum, bias=b, scale=0.5)
    q, qsum = _new(x.shape), _new((parts, 1))
    nisa.activation(dst=q[:, 0:half], op=nl.square, data=xt[:, 0:half], reduce_op=nl.add,
                    reduce_cmd=nisa.reduce_cmd.reset_reduce)
    nisa.activation(dst=q[:, half:free], op=nl.square, data=xt[:, half:free], reduce_op=nl.add,
                    reduce_res=qsum, reduce_cmd=nisa.reduce_cmd.reduce)
    return _store(e), _store(esum), _store(q), _store(qsum)


@nki.jit
def range_select_window(x, lo, hi):
    """nisa.range_select: for a [128, 2H] float32 x and float32 [128, 1]
    bounds lo, hi returns, per half of x, the tile keeping x[p, j] where
    lo[p] <= j < hi[p] (j the column of x: range_start = 0 for the first
    half, H for the second) and FP32_MIN (-3.4028235e38, the instruction's
    fill) elsewhere, and its row maxima [128, 1] (reduce_res, reduce_op =
    nl.maximum): (sel0, max0, sel1, max1)."""
    parts, free = x.shape
    half = free // 2
    xt, l, h = _load(x), _load(lo), _load(hi)
    outs = []
    for i in range(2):
        sel, mx = _new((parts, half)), _new((parts, 1))
        nisa.range_select(dst=sel, on_true_tile=xt[:, i * half:(i + 1) * half], comp_op0=nl.greater_equal,
                          comp_op1=nl.less, bound0=l, bound1=h, reduce_res=mx, reduce_op=nl.maximum,
                          range_start=i * half)
        outs += [_store(sel), _store(mx)]
    return tuple(outs)


@nki.jit
def select_reduce_masked(x, pred, fill):
    """nisa.select_reduce: for a [128, F] float32 x, a uint8 predicate of x's
    shape and a [128, 1] float32 fill returns
      0: where(pred, x, fill)            (a vector on_false)
      1: its row maxima, [128, 1]        (reduce_res, reduce_cmd=reset_reduce)
      2: where(pred, -1.0, x)            (reverse_pred=True, a scalar on_false)"""
    xt, p, f = _load(x), _load(pred), _load(fill)
    r0, m0 = _new(x.shape), _new((x.shape[0], 1))
    nisa.select_reduce(dst=r0, predicate=p, on_true=xt, on_false=f, reduce_res=m0,
                       reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_op=nl.maximum)
    r1 = _new(x.shape)
    nisa.select_reduce(r1, p, xt, -1.0, reverse_pred=True)
    return _store(r0), _store(m0), _store(r1)


@nki.jit
def copy_predicated(x, y, pred):
    """nisa.tensor_copy_predicated, dst[i] = src[i] where predicate[i] is
    nonzero, unchanged elsewhere: for [128, F] float32 x, y and a uint8
    predicate returns (where(pred, x, y): dst first holds y; where(pred, y,
    0.5): a scalar src with reverse_pred=True)."""
    xt, yt, p = _load(x), _load(y), _load(pred)
    r0 = _new(x.shape)
    nisa.tensor_copy(dst=r0, src=yt)
    nisa.tensor_copy_predicated(dst=r0, src=xt, predicate=p)
    r1 = _new(x.shape)
    nisa.tensor_copy(dst=r1, src=yt)
    nisa.tensor_copy_predicated(r1, 0.5, p, reverse_pred=True)
    return _store(r0), _store(r1)


@nki.jit
def top8_find_replace(x):
    """The top-8 family on a [128, F] float32 x whose rows hold distinct
    values (F >= 16): returns
      0: the 8 largest values of each row, descending      (nisa.max8)
      1: their column indices, uint32                       (nisa.nc_find_index8)
      2: x with those 8 values replaced by -100.0           (nisa.nc_match_replace8)
      3: the indices it matched, uint32                      (its dst_idx)
      4: the next 8 largest values (max8 of output 2)."""
    parts, free = x.shape
    xt = _load(x)
    m1 = _new((parts, 8))
    nisa.max8(dst=m1, src=xt)
    i1 = _new((parts, 8), nl.uint32)
    nisa.nc_find_index8(dst=i1, data=xt, vals=m1)
    x2, i2 = _new((parts, free)), _new((parts, 8), nl.uint32)
    nisa.nc_match_replace8(dst=x2, data=xt, vals=m1, imm=-100.0, dst_idx=i2)
    m2 = _new((parts, 8))
    nisa.max8(m2, x2)
    return _store(m1), _store(i1), _store(x2), _store(i2), _store(m2)


@nki.jit
def stream_shuffle_quadrants(x):
    """nisa.nc_stream_shuffle, cross-partition moves inside each quadrant of
    32 partitions, the same 32-entry mask for every quadrant: for a
    [128, F] float32 x returns
      0: each quadrant's partitions reversed (mask[i] = 31 - i);
      1: x with every even partition 2k of a quadrant replaced by its
         partition 2k + 1 and the odd ones unmodified (mask 255)."""
    parts, free = x.shape
    xt = _load(x)
    r0 = _new(x.shape)
    nisa.nc_stream_shuffle(dst=r0, src=xt, shuffle_mask=[31 - i for i in range(32)])
    r1 = _new(x.shape)
    nisa.tensor_copy(dst=r1, src=xt)
    nisa.nc_stream_shuffle(r1, xt, [i + 1 if i % 2 == 0 else 255 for i in range(32)])
    return _store(r0), _store(r1)


@nki.jit
def local_gather_cores(src, index):
    """nisa.local_gather on the GpSimd Engine's eight cores of 16 partitions:
    for a [128, F] float32 src and a [128, K] uint16 index (free-dimension
    element offsets, multiples of 2) returns, for each 16-partition group g,
    with ids = the group's index rows flattened partition-first (index[16g:16g+16]
    in column-major order), every partition p of the group gathering
    src[p, e:e+2] for each e in ids (num_elem_per_idx=2):
      0: all 16 * K indices of each group, [128, 32 * K];
      1: the first 40 of them (num_valid_indices=40), [128, 80].
    This is the SDK's numpy reference of local_gather
    (test_nki_isa_local_gather.py), which the docstring's "partition
    offsets" wording does not match; see kernels/nki/README.md."""
    parts, free = src.shape
    k = index.shape[1]
    s, ix = _load(src), _load(index)
    r0 = _new((parts, 16 * k * 2))
    nisa.local_gather(dst=r0, src_buffer=s, index=ix, num_elem_per_idx=2)
    r1 = _new((parts, 80))
    nisa.local_gather(r1, s, ix, num_elem_per_idx=2, num_valid_indices=40)
    return _store(r0), _store(r1)


@nki.jit
def dma_compute_sum(a, b, c):
    """nisa.dma_compute, the DMA engines' element-wise sum of several
    sources (reduce_op=nl.add, every scale 1.0; passed by keyword: NKI 0.2
    and 0.3 order scales and reduce_op differently): for [128, F] float32 a,
    b, c returns (a + b + c summed HBM to HBM into an nl.hbm scratch tensor,
    then copied to the shared-HBM output (kernel outputs are shared_hbm: the
    NKI 0.3 update guide); a + b summed SBUF to SBUF)."""
    scratch = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.hbm)
    nisa.dma_compute(dst=scratch, srcs=[a, b, c], reduce_op=nl.add, scales=[1.0, 1.0, 1.0])
    total = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=total, src=scratch)
    at, bt = _load(a), _load(b)
    pair = _new(a.shape)
    nisa.dma_compute(dst=pair, srcs=[at, bt], reduce_op=nl.add, scales=[1.0, 1.0])
    return total, _store(pair)


@nki.jit
def segment_bounds(seg):
    """nisa.sequence_bounds on the GpSimd Engine: for a [1, N] float32 tile of
    segment ids (0 = padding, equal ids contiguous) returns the [1, 2, N]
    tile of [start, end) of each element's segment, [N, -1] for padding
    (the SDK example: ids [0, 1, 1, 2, 2, 2, 0, 3, 3] give starts
    [9, 1, 1, 3, 3, 3, 9, 7, 7] and ends [-1, 3, 3, 6, 6, 6, -1, 9, 9])."""
    _, n = seg.shape
    s = _load(seg)
    bounds = _new((1, 2, n))
    nisa.sequence_bounds(dst=bounds, segment_ids=s)
    return _store(bounds)


@nki.jit
def cumulative_ops(x):
    """nisa.tensor_scalar_cumulative, reg = op1(op0(x[i], imm0), reg) along
    each row with the Vector Engine accumulators: for a [128, 2H] float32 x
    returns
      0: the running sums of 0.5 * x              (op0 multiply, op1 add, reset_reduce)
      1: the running maxima of x + 1.0            (op0 add, op1 maximum: reset to -inf)
      2: 2.0 + the running sums of x, in two halves: the first with
         reduce_cmd=load_reduce from imm1 = 2.0, the second continuing it
         with reduce_cmd=reduce."""
    parts, free = x.shape
    half = free // 2
    xt = _load(x)
    r0 = _new(x.shape)
    nisa.tensor_scalar_cumulative(dst=r0, src=xt, op0=nl.multiply, op1=nl.add, imm0=0.5)
    r1 = _new(x.shape)
    nisa.tensor_scalar_cumulative(r1, xt, nl.add, nl.maximum, 1.0, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    r2 = _new(x.shape)
    nisa.tensor_scalar_cumulative(dst=r2[:, 0:half], src=xt[:, 0:half], op0=nl.add, op1=nl.add, imm0=0.0,
                                  imm1=2.0, reduce_cmd=nisa.reduce_cmd.load_reduce)
    nisa.tensor_scalar_cumulative(dst=r2[:, half:free], src=xt[:, half:free], op0=nl.add, op1=nl.add, imm0=0.0,
                                  reduce_cmd=nisa.reduce_cmd.reduce)
    return _store(r0), _store(r1), _store(r2)
