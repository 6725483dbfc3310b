"""Runtime control flow in the current `nki` API: virtual registers
(nisa.register_alloc / register_load / register_store), loops whose trip
count is only known when the kernel runs (nl.dynamic_range with register
bounds, and `while reg:`), a register as the dynamic start of an access
pattern (.ap(..., scalar_offset=reg)), and nisa.get_nc_version choosing an
engine at trace time.

The NKI 0.2 migration guide ("Dynamic control flow"): "If a control flow
construct uses a register as a conditional, then the loop will be an
on-chip, dynamic (or runtime) loop"; nl.dynamic_range(start, stop, step):
start and stop can be VirtualRegisters, step a compile-time positive
integer (nki.language stub). The loop counts come from tensor parameters,
so no trace-time value knows them.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import nki
import nki.isa as nisa
import nki.language as nl


def _load_count(t):
    """A register holding the int32 value of the [1, 1] HBM tensor t."""
    sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=sb, src=t)
    reg = nisa.register_alloc()
    nisa.register_load(reg, sb)
    return reg


@nki.jit
def dynamic_repeat_add(x, count):
    """For a [128, F] float32 x and a [1, 1] int32 count returns count * x,
    summed one x per iteration of an nl.dynamic_range whose bound is a
    register loaded from count: a loop the kernel runs count times."""
    parts, free = x.shape
    xt = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    acc = nl.ndarray((parts, free), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    reg = _load_count(count)
    for _ in nl.dynamic_range(reg):
        nisa.tensor_tensor(dst=acc, data1=acc, data2=xt, op=nl.add)
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def dynamic_row_copy(x, bounds):
    """For an [R, F] float32 x and a [1, 2] int32 bounds = (lo, hi) returns
    y with y[r] = x[r] for r = lo, lo + 2, ... < hi and 0 elsewhere: an
    nl.dynamic_range(lo, hi, 2) over registers, each iteration copying one
    row HBM to HBM through access patterns whose start is the loop's
    register (scalar_offset, indirect_dim=0: start = offset + r * F, the
    migration guide's "Scalar Dynamic Access"), with hardware DGE."""
    rows, free = x.shape
    b = nl.ndarray((1, 2), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=bounds)
    lo = nisa.register_alloc()
    hi = nisa.register_alloc()
    nisa.register_load(lo, b[0:1, 0:1])
    nisa.register_load(hi, b[0:1, 1:2])
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    zero = nl.ndarray((rows, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=zero, value=0.0)
    nisa.dma_copy(dst=out, src=zero)
    for r in nl.dynamic_range(lo, hi, 2):
        nisa.dma_copy(dst=out.ap(pattern=[[free, 1], [1, free]], offset=0, scalar_offset=r, indirect_dim=0),
                      src=x.ap(pattern=[[free, 1], [1, free]], offset=0, scalar_offset=r, indirect_dim=0),
                      dge_mode=nisa.dge_mode.hwdge)
    return out


@nki.jit
def while_register_doubling(x, n):
    """For a [128, F] float32 x and a [1, 1] int32 n >= 0 returns x * 2**n: a
    `while reg:` loop on a register, the migration guide's dynamic while
    loop: each pass doubles the tile, stores the register into a [1, 1]
    SBUF tensor (register_store), decrements it there with
    nisa.tensor_scalar and loads it back (register_load)."""
    parts, free = x.shape
    acc = nl.ndarray((parts, free), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=acc, src=x)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=cond, src=n)
    reg = nisa.register_alloc()
    nisa.register_load(reg, cond)
    while reg:
        nisa.tensor_tensor(dst=acc, data1=acc, data2=acc, op=nl.add)
        nisa.register_store(cond, reg)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.add, operand0=-1.0)
        nisa.register_load(reg, cond)
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def nc_version_dispatch(x):
    """For a [128, F] float32 x returns 3 * x. The copy into the working tile
    runs on the engine the target allows: nisa.get_nc_version() is a
    trace-time value, and tensor_copy is not supported on the Scalar Engine
    of NeuronCore-v2 (nisa.tensor_copy docstring), so gen2 uses the Vector
    Engine and later generations the Scalar Engine. The result does not
    depend on the target."""
    parts, free = x.shape
    version = nisa.get_nc_version()
    if version == nisa.nc_version.gen2:
        eng = nisa.engine.vector
    else:
        eng = nisa.engine.scalar
    xt = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    work = nl.ndarray((parts, free), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=work, src=xt, engine=eng)
    nisa.tensor_scalar(dst=work, data=work, op0=nl.multiply, operand0=3.0)
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=work)
    return out
