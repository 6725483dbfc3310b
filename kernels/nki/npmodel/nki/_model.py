"""A numpy model of the current `nki` API (NKI 0.2 and later, Neuron SDK
2.27+), written for narwhal's NKI kernel suite (kernels/nki/README.md) from
the public documentation only: the `nki.isa` / `nki.language` /
`nki.collectives` stubs and their docstrings (aws-neuron-sdk nki/api/nki/),
the NKI 0.2 migration guide and the 0.3 update guide (nki/migration/), the
access-pattern deep dive (nki-aps). Not the Neuron SDK.

It exists, like the legacy model beside it (neuronxcc/nki/_model.py), to
check the suite's own current-API kernels against refgen.py's goldens
without narwhal: run.py imports each kernel file with this package on
sys.path and executes the kernel eagerly, as Python (the current API's
loops and branches are Python's: "The behavior of loops and branching is
consistent with regular Python", migration guide).

What it models:
- a tensor is a storage (flat float64 values, NaN where nothing wrote, a
  dtype, a buffer, an optional fixed address) and a view of it (an integer
  array of flat element indices with the view's shape). Slicing, nl.ds,
  .reshape and .ap(pattern, offset, scalar_offset, vector_offset,
  indirect_dim) all build views; every nisa instruction writes its dst
  view and reads the others;
- values are rounded to the destination dtype when written (bfloat16 by
  round-to-nearest-even), engine arithmetic is float64 rounded once to
  float32 where the legacy model does the same, so that a current kernel
  and its legacy twin give bit-identical model values;
- a read of an element nothing wrote is an error (UnwrittenRead), as in
  narwhal's interpreter;
- the documented operand rules it can check cheaply: memories per engine
  (TensorE reads SBUF and writes PSUM, GpSimd never touches PSUM, DMA does
  not read PSUM since NKI 0.3), partition sizes <= 128, per-partition
  capacity (SBUF 192 KiB, PSUM 16 KiB: trn2), PSUM addresses on a bank
  (2 KiB) boundary, dtype rules of the instructions that state them,
  enum-typed parameters (NKI 0.3: "Raw integer values ... are no longer
  accepted"), buffers as objects, not strings;
- the engines' persistent state: the Scalar Engine's reduce registers
  (activation), the Vector Engine's accumulator registers (shared by
  tensor_scalar_reduce, tensor_scalar_cumulative, range_select,
  select_reduce), PSUM's first-write-overwrites accumulation (nc_matmul
  accumulate=None), virtual registers and dynamic loops.

Readings where the documentation is silent or contradicts itself (each is
also an assumption of the suite's kernels, listed in the README):
- activation's reduce registers: R = R + sum(out) for reduce /
  reset_reduce (the docstring's pseudocode adds the registers twice);
- local_gather follows the SDK's numpy reference of it
  (test_nki_isa_local_gather.py: every partition of a 16-partition group
  gathers from its own row, the group's indices flattened partition-first
  being free-dimension element offsets), not the docstring's "partition
  offsets";
- sequence_bounds: end index exclusive, padding (id 0) gives [n, -1]
  (the SDK example for [0, 1, 1, 2, 2, 2, 0, 3, 3]);
- address=(partition, byte): the second element is a byte offset in each
  partition (the migration guide translates block addresses with
  "virtual byte addresses" and places PSUM tensors at bank * 2048);
- shared_identity_matrix returns an SBUF tensor (0.3 docstring) and
  shared_constant takes a numpy array (0.3); the kernels copy both with
  nisa.dma_copy, which accepts either memory.
"""
import enum
import itertools
import math

import numpy as np

from neuronxcc.nki._model import rnd, _round_bf16  # noqa: F401  (shared dtype rounding)

# --- coverage -----------------------------------------------------------------

COVER = {}
CASE = [None]


def _use(name):
    COVER.setdefault(name, set()).add(CASE[0])


# --- dtypes -------------------------------------------------------------------

bool_, int8, int16, int32 = "bool", "int8", "int16", "int32"
uint8, uint16, uint32 = "uint8", "uint16", "uint32"
float16, float32, bfloat16, tfloat32 = "float16", "float32", "bfloat16", "tfloat32"
float8_e4m3, float8_e5m2, float8_e4m3fn = "float8_e4m3", "float8_e5m2", "float8_e4m3fn"

_SIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
         "float16": 2, "bfloat16": 2, "float32": 4, "tfloat32": 4, "float8_e4m3": 1, "float8_e5m2": 1,
         "float8_e4m3fn": 1}
_FLOATS = ("float16", "bfloat16", "float32", "tfloat32", "float8_e4m3", "float8_e5m2", "float8_e4m3fn")
_INTS = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32")


def _dt(d):
    if isinstance(d, str) and d in _SIZE:
        return d
    if d is None:
        return None
    try:
        name = np.dtype(d).name
    except TypeError:
        raise TypeError("not an NKI dtype: %r" % (d,))
    if name not in _SIZE:
        raise TypeError("not an NKI dtype: %r" % (d,))
    return name


def _f32(a):
    return rnd("float32", a)


# --- buffers ------------------------------------------------------------------

class Buffer:
    """A memory region (nl.sbuf, nl.psum, nl.hbm, nl.private_hbm, nl.shared_hbm)."""

    def __init__(self, name, kind):
        self.name, self.kind = name, kind

    def __repr__(self):
        return "nl." + self.name


sbuf, psum = Buffer("sbuf", "sbuf"), Buffer("psum", "psum")
hbm, private_hbm, shared_hbm = Buffer("hbm", "hbm"), Buffer("private_hbm", "hbm"), Buffer("shared_hbm", "hbm")

PARTITIONS = 128
SBUF_PARTITION_BYTES = 192 * 1024   # trn2: 24 MiB / 128 partitions
PSUM_PARTITION_BYTES = 16 * 1024    # 8 banks of 2 KiB
PSUM_BANK_BYTES = 2048


class tile_size:
    pmax = 128
    psum_fmax = 512
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    psum_min_align = 4
    sbuf_min_align = 32
    total_available_sbuf_size = 24 * 1024 * 1024


class NKIObject:
    """Base class of NKI kernel dataclasses and configuration objects."""


# --- errors -------------------------------------------------------------------

class UnwrittenRead(Exception):
    """An instruction read elements nothing wrote."""


class NkiValidationError(Exception):
    """A documented operand rule was broken (the SDK's nisa.NkiValidationError)."""


def _require(cond, msg, *args):
    if not cond:
        raise NkiValidationError(msg % args if args else msg)


# --- storages and views -------------------------------------------------------

class _Storage:
    count = 0

    def __init__(self, shape, dtype, buffer, name="", address=None):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.buffer = buffer
        self.kind = buffer.kind
        self.name = name
        self.address = address
        self.arr = np.full(int(np.prod(self.shape)) if self.shape else 1, np.nan)
        self.written = np.zeros(self.arr.shape, dtype=bool) if self.kind == "psum" else None


def _on_chip(t):
    return t.storage.kind in ("sbuf", "psum")


class Tensor(NKIObject):
    """A view of a storage: idx holds the flat element index of every element
    of the view (-1 where a dynamic access fell out of bounds)."""

    def __init__(self, storage, idx, whole=False, dynamic=False, vector=False):
        self.storage = storage
        self.idx = idx
        self.whole = whole
        self.dynamic = dynamic      # built with scalar_offset or vector_offset
        self.vector = vector        # built with vector_offset

    @property
    def shape(self):
        return tuple(self.idx.shape)

    @property
    def dtype(self):
        return self.storage.dtype

    @property
    def buffer(self):
        return self.storage.buffer

    @property
    def ndim(self):
        return self.idx.ndim

    def __repr__(self):
        return "Tensor(%s %s %s)" % (self.storage.kind, self.dtype, list(self.shape))

    # indexing -------------------------------------------------------------
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, Tensor) for k in key):
            raise TypeError("tensor indices are not the current API's syntax: use .ap(..., vector_offset=)")
        if self.dynamic:
            raise TypeError("cannot index a dynamic access pattern again")
        norm = []
        ell = [i for i, k in enumerate(key) if k is Ellipsis]
        if len(ell) > 1:
            raise IndexError("more than one ...")
        if ell:
            _use("indexing by ...")
            i = ell[0]
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) > self.ndim:
            raise IndexError("%d indices for a %d-D tensor" % (len(key), self.ndim))
        for d, k in enumerate(key):
            n = self.shape[d]
            if isinstance(k, DS):
                _use("nl.ds")
                k = k.slice()
                if k.start < 0 or k.stop > n:
                    raise IndexError("nl.ds(%d, %d) out of bounds of dimension %d (size %d)" % (k.start, k.stop - k.start, d, n))
            elif isinstance(k, slice):
                _use("slices")
                start, stop, step = k.indices(n)
                if (k.start is not None and not 0 <= _int(k.start) <= n) or (k.stop is not None and not 0 <= _int(k.stop) <= n):
                    raise IndexError("slice %r out of bounds of dimension %d (size %d)" % (k, d, n))
                if step <= 0 or stop <= start:
                    raise IndexError("empty or reversed slice %r on dimension %d" % (k, d))
            elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                _use("indexing by ints")
                if not 0 <= k < n:
                    raise IndexError("index %d out of bounds of dimension %d (size %d)" % (k, d, n))
            else:
                raise TypeError("cannot index a tensor with %r" % (k,))
            norm.append(k)
        return Tensor(self.storage, self.idx[tuple(norm)])

    def __setitem__(self, key, value):
        raise TypeError("the current API writes tensors only through nisa instructions (dst=...), not t[...] = value")

    def reshape(self, shape):
        _use(".reshape")
        shape = tuple(shape)
        if int(np.prod(shape)) != self.idx.size:
            raise ValueError("cannot reshape %s to %s" % (self.shape, shape))
        if _on_chip(self) and shape[0] != self.shape[0]:
            raise ValueError("reshape of an on-chip tensor must keep the partition dimension (%d), got %s" % (self.shape[0], shape))
        return Tensor(self.storage, self.idx.reshape(shape), whole=self.whole)

    def ap(self, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        """nki-aps: a view of the whole tensor flattened to 1-D."""
        _use(".ap(pattern)")
        if not self.whole:
            raise TypeError(".ap is only allowed on nl.ndarray, not on an indexed tensor (nki-aps, 'Restriction on Nested Indexing')")
        if dtype is not None and _dt(dtype) != self.dtype:
            raise NotImplementedError("the model does not reinterpret dtypes through .ap")
        if offset is None:
            offset = 0
        if offset != 0:
            _use(".ap offset=")
        st = self.storage
        pat = [(int(s), int(n)) for s, n in pattern]
        if not pat or any(n <= 0 for _, n in pat):
            raise ValueError("bad access pattern %r" % (pattern,))
        if _on_chip(self):
            free = int(np.prod(st.shape[1:])) if len(st.shape) > 1 else 1
            _require(pat[0][0] == free or pat[0][1] == 1,
                     "on-chip access pattern: the partition step must be the free size %d, got %d (nki-aps)", free, pat[0][0])
            _require(pat[0][1] <= st.shape[0], "access pattern reads %d partitions of %d", pat[0][1], st.shape[0])
        grids = np.meshgrid(*[np.arange(n) for _, n in pat], indexing="ij")
        rest = sum(g * s for g, (s, _) in zip(grids[1:], pat[1:])) if len(pat) > 1 else 0
        size = st.arr.size
        row = int(np.prod(st.shape[indirect_dim + 1:])) if st.shape else 1
        dynamic = vector = False
        if scalar_offset is not None and vector_offset is not None:
            raise ValueError("scalar_offset and vector_offset are mutually exclusive")
        if indirect_dim != 0:
            _use(".ap indirect_dim=")
        if scalar_offset is not None:
            _use(".ap scalar_offset=")
            v = _scalar_value(scalar_offset)
            idx = offset + v * row + grids[0] * pat[0][0] + rest
            dynamic = True
        elif vector_offset is not None:
            _use(".ap vector_offset=")
            _require(indirect_dim == 0, "vector_offset: only indirect_dim=0 is supported (migration guide)")
            _require(st.kind == "hbm", "vector_offset: the indexed tensor must be in HBM (dma_copy docstring)")
            vec = _vals(vector_offset).reshape(-1)
            _require(vec.size == pat[0][1], "vector_offset has %d offsets for a pattern of %d partitions", vec.size, pat[0][1])
            vec = vec.astype(np.int64)
            idx = offset + vec[grids[0]] * row + rest
            dynamic = vector = True
        else:
            idx = offset + grids[0] * pat[0][0] + rest
        idx = np.asarray(idx, dtype=np.int64)
        bad = (idx < 0) | (idx >= size)
        if not dynamic and bad.any():
            raise IndexError("access pattern %r offset %d leaves the tensor (%d elements)" % (pattern, offset, size))
        idx = np.where(bad, -1, idx)
        return Tensor(st, idx, dynamic=dynamic, vector=vector)


def _int(v):
    if isinstance(v, VirtualRegister):
        raise TypeError("a virtual register is not a trace-time integer")
    return int(v)


def _tensor_of(storage):
    return Tensor(storage, np.arange(storage.arr.size, dtype=np.int64).reshape(storage.shape), whole=True)


def _read(t, allow_oob=False):
    """Values of a view (float64); out-of-bounds elements read as NaN only
    when allow_oob (the caller then skips them)."""
    idx = t.idx
    bad = idx < 0
    if bad.any() and not allow_oob:
        raise IndexError("dynamic access out of bounds (oob_mode=error): %d elements" % bad.sum())
    v = t.storage.arr[np.where(bad, 0, idx)]
    v = np.where(bad, np.nan, v)
    if not allow_oob and np.isnan(v).any():
        where = np.argwhere(np.isnan(v))[0]
        raise UnwrittenRead("reads %d elements nothing wrote, the first at %s of a %s %s tensor"
                            % (np.isnan(v).sum(), list(where), list(t.shape), t.storage.kind))
    return v


def _vals(x):
    if isinstance(x, Tensor):
        return _read(x)
    if isinstance(x, VirtualRegister):
        raise TypeError("a register is not a tensor operand")
    if isinstance(x, (int, float, np.number)) and not isinstance(x, bool):
        return np.float64(x)
    raise TypeError("not a tensor or scalar: %r" % (x,))


def _write(dst, vals, where=None):
    """Writes vals (any shape with dst's partitions and elements per partition)
    into dst, rounded to dst's dtype; where (optional, dst's shape) selects."""
    if not isinstance(dst, Tensor):
        raise TypeError("dst must be a tensor, got %r" % (dst,))
    vals = np.asarray(vals, dtype=np.float64)
    if vals.shape != dst.shape:
        vals = _fit(vals, dst.shape, "dst")
    out = rnd(dst.dtype, vals)
    idx = dst.idx
    ok = idx >= 0
    if where is not None:
        ok = ok & where
    dst.storage.arr[idx[ok]] = out[ok]
    if dst.storage.written is not None:
        dst.storage.written[idx[ok]] = True


def _fit(vals, shape, what):
    """vals reshaped to shape: the same partitions and elements per partition."""
    if vals.ndim == 0:
        return np.broadcast_to(vals, shape)
    if vals.shape[0] != shape[0] or vals.size != int(np.prod(shape)):
        raise NkiValidationError("%s is %s, the result is %s: partitions and elements per partition must match"
                                 % (what, list(shape), list(vals.shape)))
    return vals.reshape(shape)


def _per_partition(x, shape, what):
    """A scalar, or a [P, 1] tile broadcast along the free dimensions of shape."""
    if isinstance(x, Tensor):
        v = _read(x)
        _require(v.shape[0] == shape[0] and v.size == shape[0],
                 "%s must be a scalar or a [%d, 1] tile, got %s", what, shape[0], list(v.shape))
        return v.reshape((shape[0],) + (1,) * (len(shape) - 1))
    return _vals(x)


def _flat(v):
    """[P, F] view of a [P, ...] array."""
    return v.reshape(v.shape[0], -1)


def _check_mem(t, allowed, what, name):
    _require(t.storage.kind in allowed, "%s: %s is in %s, must be in %s", name, what, t.storage.kind, "/".join(allowed))


# --- creation -----------------------------------------------------------------

def _buffer(buffer):
    if isinstance(buffer, str):
        raise TypeError("buffer=%r: the current API takes buffer objects (nl.sbuf, ...), not strings (NKI 0.3 update guide)" % buffer)
    if not isinstance(buffer, Buffer):
        raise TypeError("not a buffer: %r" % (buffer,))
    _use("buffer=nl." + buffer.name)
    return buffer


def _check_capacity(st):
    if st.kind not in ("sbuf", "psum"):
        return
    _require(len(st.shape) >= 1 and st.shape[0] <= PARTITIONS, "on-chip tensor of %d partitions", st.shape[0] if st.shape else 0)
    per = int(np.prod(st.shape[1:])) * _SIZE[st.dtype] if len(st.shape) > 1 else _SIZE[st.dtype]
    cap = SBUF_PARTITION_BYTES if st.kind == "sbuf" else PSUM_PARTITION_BYTES
    _require(per <= cap, "%s tensor %s holds %d bytes per partition, the %s has %d", st.kind, list(st.shape), per, st.kind, cap)
    if st.address is not None:
        _use("address=(partition, byte)")
        p0, b0 = st.address
        _require(isinstance(p0, int) and isinstance(b0, int) and p0 >= 0 and b0 >= 0, "address %r: two non-negative ints", st.address)
        _require(p0 + st.shape[0] <= PARTITIONS, "address partition %d + %d partitions > %d", p0, st.shape[0], PARTITIONS)
        _require(b0 + per <= cap, "address byte %d + %d bytes > %d per partition", b0, per, cap)
        if st.kind == "psum":
            _require(b0 % PSUM_BANK_BYTES == 0, "a PSUM tensor must start on a bank (byte %d is not a multiple of %d: migration guide)", b0, PSUM_BANK_BYTES)


def ndarray(shape, dtype, buffer=sbuf, name="", address=None):
    buffer = _buffer(buffer)
    d = _dt(dtype)
    if address is not None:
        if buffer.kind == "hbm":
            raise ValueError("address= places on-chip tensors only")
        address = tuple(address)
    if buffer is shared_hbm and _Program.grid:
        # In an SPMD launch a shared_hbm tensor the kernel makes is one
        # tensor every program writes its part of: the programs' allocations
        # are matched by their order.
        i = _Program.made
        _Program.made += 1
        if i < len(_Program.shared):
            t = _Program.shared[i]
            _require(t.shape == tuple(shape) and t.dtype == d, "SPMD programs allocate different shared_hbm tensors")
            return t
    st = _Storage(shape, d, buffer, name, address)
    _check_capacity(st)
    t = _tensor_of(st)
    if buffer is shared_hbm and _Program.grid:
        _Program.shared.append(t)
    return t


def zeros(shape, dtype, buffer=sbuf, name=""):
    t = ndarray(shape, dtype, buffer=buffer, name=name)
    _write(t, np.zeros(t.shape))
    return t


def shared_constant(constant, dtype=None):
    _use("nl.shared_constant")
    a = np.asarray(constant)
    d = _dt(dtype) if dtype is not None else _dt(a.dtype)
    st = _Storage(a.shape, d, shared_hbm, "constant")
    t = _tensor_of(st)
    _write(t, a.astype(np.float64))
    return t


def shared_identity_matrix(n, dtype=uint8, dst=None):
    _use("nl.shared_identity_matrix")
    t = ndarray((n, n), dtype, buffer=sbuf)
    _write(t, np.eye(n))
    return t


class DS:
    def __init__(self, start, size):
        self.start, self.size = _int(start), _int(size)

    def slice(self):
        return slice(self.start, self.start + self.size)


def ds(start, size):
    return DS(start, size)


def device_print(print_prefix, tensor):
    _use("nl.device_print")


# --- loops and the SPMD grid --------------------------------------------------

def affine_range(start, stop=None, step=1):
    _use("nl.affine_range")
    return range(start, stop, step) if stop is not None else range(start)


def sequential_range(start, stop=None, step=1):
    _use("nl.sequential_range")
    return range(start, stop, step) if stop is not None else range(start)


def static_range(start, stop=None, step=1):
    _use("nl.static_range")
    return range(start, stop, step) if stop is not None else range(start)


class _Program:
    grid = ()
    ids = ()
    shared = []
    made = 0


def program_id(axis=0):
    _use("nl.program_id")
    return _Program.ids[axis]


def num_programs(axes=None):
    _use("nl.num_programs")
    if axes is None:
        return math.prod(_Program.grid) if _Program.grid else 1
    if isinstance(axes, (tuple, list)):
        return math.prod(_Program.grid[a] for a in axes)
    return _Program.grid[axes]


def program_ndim():
    _use("nl.program_ndim")
    return len(_Program.grid)


class VirtualRegister(NKIObject):
    """A register (nisa.register_alloc): an int known when the kernel runs."""

    def __init__(self, value=None):
        self.value = value

    def get(self):
        if self.value is None:
            raise UnwrittenRead("reads a register nothing wrote")
        return self.value

    def __bool__(self):
        _use("while on a register")
        return self.get() != 0

    def __index__(self):
        raise TypeError("a virtual register is not a trace-time integer")


def dynamic_range(start, stop=None, step=1):
    """A runtime loop: bounds may be registers (read when the loop starts);
    the iterator is a register."""
    _use("nl.dynamic_range")
    if stop is None:
        start, stop = 0, start
    if isinstance(step, VirtualRegister) or not isinstance(step, int) or step <= 0:
        raise ValueError("dynamic_range: step must be a compile-time positive integer")
    lo = start.get() if isinstance(start, VirtualRegister) else int(start)
    hi = stop.get() if isinstance(stop, VirtualRegister) else int(stop)
    if isinstance(start, VirtualRegister) or isinstance(stop, VirtualRegister):
        _use("dynamic_range with register bounds")
    return (VirtualRegister(v) for v in range(lo, hi, step))


def _scalar_value(x):
    if isinstance(x, VirtualRegister):
        return x.get()
    if isinstance(x, Tensor):
        _require(x.idx.size == 1, "a scalar offset must be a (1, 1) tensor or a register, got %s", list(x.shape))
        _require(_on_chip(x), "a scalar offset tensor must be in SBUF")
        return int(_read(x).reshape(-1)[0])
    raise TypeError("not a scalar offset: %r" % (x,))


# --- operators (nl.* as ALU and activation selectors) -------------------------

class Op:
    """nl.add, nl.exp, ...: the current API passes them to nisa instructions
    as the operator; the suite's kernels never call them."""

    def __init__(self, name, fn, kind, identity=None):
        self.name, self.fn, self.kind, self.identity = name, fn, kind, identity
        self.reduce = getattr(fn, "reduce", None)

    def __call__(self, *args, **kwargs):
        raise NotImplementedError("nl.%s called as a function: the suite's current-API kernels use nl.* only as "
                                  "nisa operators" % self.name)

    def __repr__(self):
        return "nl." + self.name


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def _ge(a, b):
    return (a >= b) * 1.0


add = Op("add", np.add, "alu", 0.0)
subtract = Op("subtract", np.subtract, "alu", 0.0)
multiply = Op("multiply", np.multiply, "alu", 1.0)
divide = Op("divide", np.divide, "alu")
maximum = Op("maximum", np.maximum, "alu", -np.inf)
minimum = Op("minimum", np.minimum, "alu", np.inf)
power = Op("power", np.power, "alu")
max = Op("max", np.maximum, "alu", -np.inf)    # noqa: A001  (the reduce_op spelling of tensor_scalar_reduce's doc)
min = Op("min", np.minimum, "alu", np.inf)     # noqa: A001
equal = Op("equal", lambda a, b: (a == b) * 1.0, "cmp")
not_equal = Op("not_equal", lambda a, b: (a != b) * 1.0, "cmp")
greater = Op("greater", lambda a, b: (a > b) * 1.0, "cmp")
greater_equal = Op("greater_equal", _ge, "cmp")
less = Op("less", lambda a, b: (a < b) * 1.0, "cmp")
less_equal = Op("less_equal", lambda a, b: (a <= b) * 1.0, "cmp")
exp = Op("exp", np.exp, "act")
log = Op("log", np.log, "act")
sqrt = Op("sqrt", np.sqrt, "act")
rsqrt = Op("rsqrt", lambda a: 1.0 / np.sqrt(a), "act")
tanh = Op("tanh", np.tanh, "act")
sigmoid = Op("sigmoid", _sig, "act")
relu = Op("relu", lambda a: np.maximum(a, 0.0), "act")
gelu = Op("gelu", lambda a: 0.5 * a * (1.0 + _erf(a / math.sqrt(2.0))), "act")
silu = Op("silu", lambda a: a * _sig(a), "act")
square = Op("square", np.square, "act")
copy = Op("copy", lambda a: a, "act")
_reciprocal_op = Op("reciprocal", lambda a: 1.0 / a, "act")
abs = Op("abs", np.abs, "act")  # noqa: A001
bypass = Op("bypass", None, "bypass")


def _op(op, kinds, what):
    if not isinstance(op, Op):
        raise TypeError("%s must be an nl operator (nl.add, nl.exp, ...), got %r" % (what, op))
    if op.kind not in kinds:
        raise NkiValidationError("%s=nl.%s is not an %s operator" % (what, op.name, "/".join(kinds)))
    _use("operator nl." + op.name)
    return op


def _apply(op, a, b, reverse):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return op.fn(b, a) if reverse else op.fn(a, b)


# --- nki.isa enums ------------------------------------------------------------

class engine(enum.Enum):
    tensor = 1
    vector = 5
    scalar = 2
    gpsimd = 3
    dma = 4
    sync = 6
    unknown = 0


class reduce_cmd(enum.Enum):
    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4


class dge_mode(enum.Enum):
    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


class oob_mode(enum.Enum):
    error = 0
    skip = 1


class matmul_perf_mode(enum.Enum):
    none = "none"
    double_row = "double_row"


class nc_version(enum.Enum):
    gen2 = 2
    gen3 = 3
    gen4 = 4


class dma_engine(enum.Enum):
    dma = 0
    gpsimd_dma = 1


tensor_engine, vector_engine, scalar_engine = engine.tensor, engine.vector, engine.scalar
gpsimd_engine, unknown_engine = engine.gpsimd, engine.unknown

TARGET = [nc_version.gen3]   # narwhal's default machine is trn2


def get_nc_version():
    _use("nisa.get_nc_version")
    return TARGET[0]


def _enum(v, cls, what):
    if not isinstance(v, cls):
        raise TypeError("%s=%r: pass a nisa.%s member (NKI 0.3: raw integers are no longer accepted)" % (what, v, cls.__name__))
    return v


# --- engine state -------------------------------------------------------------

class _State:
    act_regs = None      # the Scalar Engine's reduce registers, [128]
    vec_acc = None       # the Vector Engine's accumulator registers, [128]


def reset_state():
    _State.act_regs = None
    _State.vec_acc = None


def _vector_acc(cmd, identity, init, parts):
    """The Vector Engine accumulators at the start of an instruction."""
    if cmd in (reduce_cmd.reset_reduce, reduce_cmd.reset):
        return np.full(parts, identity)
    if cmd == reduce_cmd.load_reduce:
        if init is None:
            raise NkiValidationError("reduce_cmd.load_reduce needs an initial value")
        return np.broadcast_to(_per_partition(init, (parts, 1), "reduce_init").reshape(-1), (parts,)).astype(np.float64)
    if cmd == reduce_cmd.reduce:
        if _State.vec_acc is None:
            raise UnwrittenRead("reduce_cmd.reduce continues Vector Engine accumulators nothing reset")
        return _State.vec_acc[:parts].copy()
    raise NkiValidationError("reduce_cmd %s does not accumulate" % cmd)


def _keep_vector_acc(acc):
    full = np.full(PARTITIONS, np.nan) if _State.vec_acc is None else _State.vec_acc.copy()
    full[:acc.size] = acc
    _State.vec_acc = full


# --- the instruction wrapper ---------------------------------------------------

_ENUM_NAMES = {engine: "engine selectors", reduce_cmd: "nisa.reduce_cmd", dge_mode: "nisa.dge_mode",
               oob_mode: "nisa.oob_mode", dma_engine: "nisa.dma_engine", matmul_perf_mode: "nisa.matmul_perf_mode",
               nc_version: "nisa.nc_version"}


def _isa(fn):
    name = "nisa." + fn.__name__

    def wrapper(*args, **kwargs):
        _use(name)
        if args:
            _use("dst positional")
        if "dst" in kwargs:
            _use("dst keyword")
        if len(args) <= 1 and kwargs:
            _use("keyword forms")
        for k, v in kwargs.items():
            _use("%s %s=" % (name, k))
        for v in list(args) + list(kwargs.values()):
            if isinstance(v, enum.Enum) and type(v) in _ENUM_NAMES:
                _use(_ENUM_NAMES[type(v)])
        return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _engine_ok(eng, allowed, name):
    eng = _enum(eng, engine, "engine")
    _require(eng == engine.unknown or eng in allowed, "%s: engine %s not allowed (%s)", name, eng.name,
             "/".join(e.name for e in allowed))
    return eng


# --- data movement --------------------------------------------------------------

def _dma_pairs(dst, src, oob, name):
    """The element order of a DMA: both views flattened row-major."""
    _require(dst.idx.size == src.idx.size, "%s: src has %d elements, dst %d", name, src.idx.size, dst.idx.size)
    sv = _read(src, allow_oob=True).reshape(-1)
    sbad = (src.idx < 0).reshape(-1)
    dbad = (dst.idx < 0).reshape(-1)
    if (sbad.any() or dbad.any()) and oob != oob_mode.skip:
        raise IndexError("%s: a dynamic access is out of bounds (oob_mode=error)" % name)
    ok = ~(sbad | dbad)
    if np.isnan(sv[ok]).any():
        raise UnwrittenRead("%s reads elements nothing wrote" % name)
    return sv, ok


def _dma_write(dst, sv, ok):
    dv = _f32(sv).reshape(dst.shape)
    _write(dst, dv, where=ok.reshape(dst.shape))


@_isa
def dma_copy(dst, src, priority=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown, engine=engine.unknown, name=None):
    oob = _enum(oob_mode, _oob_cls(), "oob_mode")
    dge = _enum(dge_mode, _dge_cls(), "dge_mode")
    _enum(engine, _engine_cls(), "engine")
    for t, what in ((dst, "dst"), (src, "src")):
        _check_mem(t, ("hbm", "sbuf"), what, "dma_copy")
    dynamic = dst.dynamic or src.dynamic
    if dynamic:
        _require(dge != _dge_cls().none, "dma_copy: a dynamic address needs DGE (dge_mode.none given)")
    if dst.vector or src.vector:
        _require(dge in (_dge_cls().unknown, _dge_cls().swdge), "dma_copy: gather/scatter (vector_offset) needs software DGE")
    if oob == _oob_cls().skip:
        _require(dynamic, "dma_copy: oob_mode.skip applies to dynamic accesses only")
    sv, ok = _dma_pairs(dst, src, oob, "dma_copy")
    _dma_write(dst, sv, ok)


def _oob_cls():
    return oob_mode


def _dge_cls():
    return dge_mode


def _engine_cls():
    return engine


@_isa
def dma_transpose(dst, src, axes=None, priority=None, dge_mode=dge_mode.unknown, oob_mode=oob_mode.error, name=None):
    _check_mem(dst, ("sbuf",), "dst", "dma_transpose")
    _check_mem(src, ("hbm", "sbuf"), "src", "dma_transpose")
    _require(src.dtype == dst.dtype, "dma_transpose: src.dtype == dst.dtype")
    _require(src.ndim == 2, "the model runs 2-D dma_transpose only")
    if axes is not None:
        _require(tuple(axes) == (1, 0), "2-D dma_transpose axes must be (1, 0)")
    _require(dst.shape == src.shape[::-1], "dma_transpose: dst %s is not src %s transposed", list(dst.shape), list(src.shape))
    _write(dst, _read(src).T)


@_isa
def dma_compute(dst, srcs, reduce_op=None, scales=None, unique_indices=True, oob_mode=oob_mode.error, name=None):
    _require(reduce_op is add, "dma_compute: only nl.add is supported as reduce_op")
    _use("operator nl.add")
    srcs = list(srcs)
    _require(1 <= len(srcs) <= 16, "dma_compute: 1 to 16 sources")
    if scales is not None:
        _require(len(scales) == len(srcs) and all(float(s) == 1.0 for s in scales), "dma_compute: scales must all be 1.0")
    _check_mem(dst, ("hbm", "sbuf"), "dst", "dma_compute")
    total = None
    for s in srcs:
        _check_mem(s, ("hbm", "sbuf"), "src", "dma_compute")
        _require(s.idx.size == dst.idx.size, "dma_compute: element counts differ")
        v = _f32(_read(s).reshape(-1))
        total = v if total is None else _f32(total + v)
    _write(dst, total.reshape(dst.shape))


@_isa
def tensor_copy(dst, src, engine=engine.unknown, name=None):
    eng = _engine_ok(engine, (_engine_cls().vector, _engine_cls().scalar, _engine_cls().gpsimd), "tensor_copy")
    _check_mem(src, ("sbuf", "psum"), "src", "tensor_copy")
    _check_mem(dst, ("sbuf", "psum"), "dst", "tensor_copy")
    if eng == _engine_cls().gpsimd:
        _require(src.storage.kind == "sbuf" and dst.storage.kind == "sbuf", "tensor_copy: GpSimd cannot access PSUM")
    if eng == _engine_cls().scalar:
        _require(TARGET[0] != nc_version.gen2, "tensor_copy: not on the Scalar Engine on NeuronCore-v2")
    _write(dst, _fit(_read(src), dst.shape, "dst"))


@_isa
def memset(dst, value, engine=engine.unknown, name=None):
    eng = _engine_ok(engine, (_engine_cls().vector, _engine_cls().gpsimd), "memset")
    _check_mem(dst, ("sbuf", "psum"), "dst", "memset")
    if eng == _engine_cls().gpsimd:
        _require(dst.storage.kind == "sbuf", "memset: GpSimd cannot access PSUM")
    if dst.dtype in _INTS:
        _require(isinstance(value, int) and not isinstance(value, bool), "memset: value %r must be an int for a %s dst (NKI 0.3)", value, dst.dtype)
    else:
        _require(isinstance(value, float), "memset: value %r must be a float for a %s dst (NKI 0.3)", value, dst.dtype)
    _write(dst, np.full(dst.shape, float(value)))


@_isa
def iota(dst, pattern, offset=0, channel_multiplier=0, name=None):
    _check_mem(dst, ("sbuf",), "dst", "iota")
    vals = _affine(pattern, offset, channel_multiplier, dst.shape)
    _write(dst, vals)


def _affine(pattern, offset, channel_multiplier, shape):
    pat = [(int(s), int(n)) for s, n in pattern]
    _require(len(pat) <= 4, "a pattern has at most 4 [step, num] pairs")
    per = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    _require(int(np.prod([n for _, n in pat])) == per, "pattern %r has %d elements, the tile %d per partition", pattern,
             int(np.prod([n for _, n in pat])), per)
    grids = np.meshgrid(*[np.arange(n) for _, n in pat], indexing="ij")
    free = sum(g * s for g, (s, _) in zip(grids, pat)).reshape(-1)
    ch = np.arange(shape[0])[:, None] * int(channel_multiplier)
    return (int(offset) + ch + free[None, :]).astype(np.float64).reshape(shape)


# --- Tensor Engine --------------------------------------------------------------

@_isa
def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              accumulate=None, tile_position=(), tile_size=(), perf_mode=matmul_perf_mode.none, name=None):
    _enum(perf_mode, matmul_perf_mode, "perf_mode")
    _check_mem(stationary, ("sbuf",), "stationary", "nc_matmul")
    _check_mem(moving, ("sbuf",), "moving", "nc_matmul")
    _check_mem(dst, ("psum",), "dst", "nc_matmul")
    s, m = _flat(_read(stationary)), _flat(_read(moving))
    k = s.shape[0]
    _require(m.shape[0] == k and k <= 128, "nc_matmul: partitions %d and %d (<= 128, equal)", k, m.shape[0])
    _require(s.shape[1] <= 128, "nc_matmul: stationary free size %d > 128", s.shape[1])
    _require(m.shape[1] <= 512, "nc_matmul: moving free size %d > 512 (NeuronCore-v2/v3)", m.shape[1])
    wide = {"float32", "tfloat32"}
    _require((stationary.dtype in wide) == (moving.dtype in wide), "nc_matmul: fp32/tf32 only with fp32/tf32")
    _require(dst.dtype == "float32", "nc_matmul: dst must be float32 on NeuronCore-v2/v3")
    if tile_position or tile_size:
        _require(bool(tile_position) and bool(tile_size), "nc_matmul: tile_position and tile_size go together")
    prod = _f32(s.T @ m)
    prod = _fit(prod, dst.shape, "dst")
    written = dst.storage.written[dst.idx]
    old = dst.storage.arr[dst.idx]
    if accumulate is None:
        acc = written
    elif accumulate:
        _require(bool(written.all()), "nc_matmul accumulate=True onto PSUM nothing wrote")
        acc = np.ones_like(written)
    else:
        acc = np.zeros_like(written)
    _write(dst, np.where(acc, _f32(old + prod), prod))


@_isa
def nc_transpose(dst, data, engine=engine.unknown, name=None):
    eng = _engine_ok(engine, (_engine_cls().tensor, _engine_cls().vector), "nc_transpose")
    v = _flat(_read(data))
    if eng == _engine_cls().unknown:
        eng = _engine_cls().vector if v.shape[0] <= 32 and v.shape[1] <= 32 else _engine_cls().tensor
    _require(dst.dtype == data.dtype, "nc_transpose: dst dtype must be data's")
    if eng == _engine_cls().tensor:
        _check_mem(data, ("sbuf",), "data", "nc_transpose (Tensor Engine)")
        _check_mem(dst, ("psum",), "dst", "nc_transpose (Tensor Engine)")
        _require(v.shape[0] <= 128 and v.shape[1] <= 128, "Tensor Engine transpose of %s > [128, 128]", list(v.shape))
    else:
        _require(v.shape[0] <= 32 and v.shape[1] <= 32, "Vector Engine transpose of %s > [32, 32]", list(v.shape))
    _write(dst, v.T)


# --- Scalar Engine ------------------------------------------------------------

def _act_regs_update(cmd, red, parts, reduce_op):
    if cmd in (reduce_cmd.reset, reduce_cmd.reset_reduce):
        regs = np.zeros(PARTITIONS)
    elif _State.act_regs is None:
        regs = np.full(PARTITIONS, np.nan)
    else:
        regs = _State.act_regs.copy()
    if cmd in (reduce_cmd.reduce, reduce_cmd.reset_reduce):
        _require(reduce_op is add, "activation: reduce_op must be nl.add")
        if cmd == reduce_cmd.reduce and np.isnan(regs[:parts]).any():
            raise UnwrittenRead("reduce_cmd.reduce on Scalar Engine registers nothing reset")
        regs[:parts] = _f32(regs[:parts] + red)
    _State.act_regs = regs


@_isa
def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=reduce_cmd.idle, name=None):
    op = _op(op, ("act",), "op")
    cmd = _enum(reduce_cmd, _reduce_cmd_cls(), "reduce_cmd")
    for t, what in ((dst, "dst"), (data, "data")):
        _check_mem(t, ("sbuf", "psum"), what, "activation")
    v = _read(data)
    z = v * _per_partition(scale, v.shape, "scale")
    if bias is not None:
        z = z + _per_partition(bias, v.shape, "bias")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = op.fn(z)
    _write(dst, _fit(out, dst.shape, "dst"))
    red = _f32(_flat(_f32(out)).sum(axis=1))
    _act_regs_update(cmd, red, v.shape[0], reduce_op)
    if reduce_res is not None:
        _require(reduce_res.idx.size == v.shape[0], "reduce_res must be [%d, 1]", v.shape[0])
        _write(reduce_res, _State.act_regs[:v.shape[0]].reshape(reduce_res.shape))


def _reduce_cmd_cls():
    return reduce_cmd


@_isa
def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None):
    activation.__wrapped__(dst, op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res,
                           reduce_cmd=reduce_cmd.reset_reduce)


# --- Vector Engine ------------------------------------------------------------

def _two_psum(a, b, name):
    _require(not (isinstance(a, Tensor) and isinstance(b, Tensor) and a.storage.kind == "psum" and b.storage.kind == "psum"),
             "%s: the two inputs cannot both be in PSUM", name)


@_isa
def tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None):
    eng = _engine_ok(engine, (_engine_cls().vector, _engine_cls().gpsimd), "tensor_tensor")
    op = _op(op, ("alu", "cmp"), "op")
    _two_psum(data1, data2, "tensor_tensor")
    a, b = _read(data1), _read(data2)
    _require(a.shape[0] == b.shape[0] and a.size == b.size, "tensor_tensor: %s and %s differ", list(a.shape), list(b.shape))
    if eng == _engine_cls().gpsimd:
        for t in (dst, data1, data2):
            _require(t.storage.kind == "sbuf", "tensor_tensor: GpSimd cannot access PSUM")
    _write(dst, _fit(_apply(op, a, b.reshape(a.shape), False), dst.shape, "dst"))


@_isa
def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  engine=engine.unknown, name=None):
    _engine_ok(engine, (_engine_cls().vector, _engine_cls().scalar, _engine_cls().gpsimd), "tensor_scalar")
    op0 = _op(op0, ("alu", "cmp"), "op0")
    v = _read(data)
    r = _apply(op0, v, _per_partition(operand0, v.shape, "operand0"), reverse0)
    if op1 is not None:
        op1 = _op(op1, ("alu", "cmp"), "op1")
        r = _apply(op1, r, _per_partition(operand1, v.shape, "operand1"), reverse1)
    else:
        _require(operand1 is None, "tensor_scalar: operand1 without op1")
    _write(dst, _fit(r, dst.shape, "dst"))


@_isa
def scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, name=None):
    op0 = _op(op0, ("alu",), "op0")
    op1 = _op(op1, ("alu",), "op1")
    _two_psum(data, operand1, "scalar_tensor_tensor")
    v = _read(data)
    t = _f32(_apply(op0, v, _per_partition(operand0, v.shape, "operand0"), reverse0))
    y = _read(operand1)
    _require(y.shape[0] == v.shape[0] and y.size == v.size, "scalar_tensor_tensor: operand1 must have data's size")
    _write(dst, _fit(_apply(op1, t, y.reshape(v.shape), reverse1), dst.shape, "dst"))


def _check_axes(axis, ndim):
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    axes = tuple(int(a) for a in axes)
    _require(0 not in axes, "the partition axis cannot be reduced")
    _require(axes == tuple(range(ndim - len(axes), ndim)), "reduce axes %s must be the last free dimensions of a %d-D tile", axes, ndim)
    return axes


@_isa
def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    op = _op(op, ("alu",), "op")
    v = _read(data)
    axes = _check_axes(axis, v.ndim)
    r = op.fn.reduce(v, axis=axes, keepdims=keepdims)
    if negate:
        r = -r
    _write(dst, _fit(r, dst.shape, "dst"))


@_isa
def tensor_partition_reduce(dst, op, data, name=None):
    op = _op(op, ("alu",), "op")
    _require(op.name in ("add", "maximum", "max"), "tensor_partition_reduce: add or max here")
    _check_mem(data, ("sbuf",), "data", "tensor_partition_reduce (GpSimd)")
    _check_mem(dst, ("sbuf",), "dst", "tensor_partition_reduce (GpSimd)")
    v = _read(data)
    _write(dst, _fit(op.fn.reduce(v, axis=0, keepdims=True), dst.shape, "dst"))


@_isa
def tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False, name=None):
    op0 = _op(op0, ("alu",), "op0")
    op1 = _op(op1, ("alu",), "op1")
    _two_psum(data0, data1, "tensor_tensor_scan")
    a, b = _flat(_read(data0)), _flat(_read(data1))
    prev = np.broadcast_to(_per_partition(initial, a.shape, "initial").reshape(-1) if isinstance(initial, Tensor)
                           else _vals(initial), (a.shape[0],)).astype(np.float64)
    out = np.empty_like(a)
    for i in range(a.shape[1]):
        prev = _f32(_apply(op1, _apply(op0, a[:, i], prev, reverse0), b[:, i], reverse1))
        out[:, i] = prev
    _write(dst, _fit(out, dst.shape, "dst"))


@_isa
def tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res, reverse0=False,
                         reduce_cmd=reduce_cmd.reset_reduce, reduce_init=None, name=None):
    op0 = _op(op0, ("alu",), "op0")
    rop = _op(reduce_op, ("alu",), "reduce_op")
    _require(rop.name in ("add", "multiply", "max", "min", "maximum", "minimum"), "tensor_scalar_reduce: reduce_op %s", rop.name)
    cmd = _enum(reduce_cmd, _reduce_cmd_cls(), "reduce_cmd")
    v = _read(data)
    r = _f32(_apply(op0, v, _per_partition(operand0, v.shape, "operand0"), reverse0))
    _write(dst, _fit(r, dst.shape, "dst"))
    acc = _vector_acc(cmd, rop.identity, reduce_init, v.shape[0])
    acc = _f32(rop.fn(acc, rop.fn.reduce(_flat(r), axis=1)))
    _keep_vector_acc(acc)
    _require(reduce_res.idx.size == v.shape[0], "reduce_res must be [%d, 1]", v.shape[0])
    _write(reduce_res, acc.reshape(reduce_res.shape))


@_isa
def tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None, reduce_cmd=reduce_cmd.reset_reduce, name=None):
    op0 = _op(op0, ("alu",), "op0")
    op1 = _op(op1, ("alu",), "op1")
    _require(op1.name in ("add", "subtract", "multiply", "maximum", "minimum", "max", "min"), "tensor_scalar_cumulative: op1 %s", op1.name)
    for t in (dst, src):
        _require(t.dtype not in ("int32", "uint32"), "tensor_scalar_cumulative: int32/uint32 are not supported")
    cmd = _enum(reduce_cmd, _reduce_cmd_cls(), "reduce_cmd")
    v = _flat(_read(src))
    ident = 0.0 if op1.name in ("add", "subtract") else op1.identity
    reg = _vector_acc(cmd, ident, imm1, v.shape[0])
    s = _per_partition(imm0, v.shape, "imm0")
    s = s.reshape(-1) if np.ndim(s) else s
    out = np.empty_like(v)
    for i in range(v.shape[1]):
        reg = _f32(op1.fn(_f32(_apply(op0, v[:, i], s, False)), reg))
        out[:, i] = reg
    _keep_vector_acc(reg)
    _write(dst, _fit(out, dst.shape, "dst"))


FP32_MIN = -3.4028235e+38


@_isa
def range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=reduce_cmd.reset_reduce,
                 reduce_res=None, reduce_op=maximum, range_start=0, on_false_value=FP32_MIN, name=None):
    c0 = _op(comp_op0, ("cmp",), "comp_op0")
    c1 = _op(comp_op1, ("cmp",), "comp_op1")
    _require(c0.name != "not_equal" and c1.name != "not_equal", "range_select: not_equal is not a range comparison")
    _require(reduce_op is maximum, "range_select: reduce_op must be nl.maximum")
    _require(float(on_false_value) == FP32_MIN, "range_select: on_false_value must be FP32_MIN")
    _require(isinstance(range_start, int), "range_select: range_start must be a compile-time integer")
    _require(on_true_tile.dtype in _FLOATS, "range_select: on_true_tile must be floating point")
    cmd = _enum(reduce_cmd, _reduce_cmd_cls(), "reduce_cmd")
    v = _flat(_read(on_true_tile))
    for b, what in ((bound0, "bound0"), (bound1, "bound1")):
        _require(isinstance(b, Tensor) and b.dtype == "float32" and b.idx.size == v.shape[0],
                 "range_select: %s must be a float32 [%d, 1] tile", what, v.shape[0])
    idx = np.float64(range_start) + np.arange(v.shape[1])[None, :]
    lo, hi = _read(bound0).reshape(-1, 1), _read(bound1).reshape(-1, 1)
    mask = (c0.fn(idx, lo) != 0) & (c1.fn(idx, hi) != 0)
    out = np.where(mask, v, FP32_MIN)
    _write(dst, _fit(out, dst.shape, "dst"))
    acc = _vector_acc(cmd, -np.inf, None, v.shape[0])
    acc = _f32(np.maximum(acc, out.max(axis=1)))
    _keep_vector_acc(acc)
    if reduce_res is not None:
        _write(reduce_res, acc.reshape(reduce_res.shape))


@_isa
def select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=reduce_cmd.idle, reduce_op=maximum,
                  reverse_pred=False, name=None):
    _require(reduce_op is maximum, "select_reduce: reduce_op must be nl.maximum")
    cmd = _enum(reduce_cmd, _reduce_cmd_cls(), "reduce_cmd")
    _require(predicate.dtype in ("int8", "uint8", "int16", "uint16"), "select_reduce: predicate dtype %s", predicate.dtype)
    _require(on_true.dtype not in ("tfloat32", "int32", "uint32"), "select_reduce: on_true dtype %s", on_true.dtype)
    _two_psum(on_true, predicate, "select_reduce")
    v = _read(on_true)
    p = _read(predicate).reshape(v.shape) != 0
    if reverse_pred:
        p = ~p
    if not isinstance(on_false, Tensor):
        _require(isinstance(on_false, float), "select_reduce: a scalar on_false must be float32")
    f = _per_partition(on_false, v.shape, "on_false")
    out = np.where(p, v, f)
    _write(dst, _fit(out, dst.shape, "dst"))
    if reduce_res is not None:
        _require(cmd in (_reduce_cmd_cls().reset_reduce, _reduce_cmd_cls().reduce), "select_reduce: reduce_res needs reduce_cmd reset_reduce or reduce")
        _require(reduce_res.dtype in _FLOATS, "select_reduce: reduce_res must be floating point")
        acc = _vector_acc(cmd, -np.inf, None, v.shape[0])
        acc = _f32(np.maximum(acc, _flat(_f32(out)).max(axis=1)))
        _keep_vector_acc(acc)
        _write(reduce_res, acc.reshape(reduce_res.shape))


@_isa
def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, name=None):
    _require(predicate.dtype in ("uint8", "uint16", "uint32"), "tensor_copy_predicated: predicate dtype %s", predicate.dtype)
    p = _read(predicate)
    _require(p.shape[0] == dst.shape[0] and p.size == dst.idx.size, "tensor_copy_predicated: predicate size")
    p = p.reshape(dst.shape) != 0
    if reverse_pred:
        p = ~p
    if isinstance(src, Tensor):
        _require(src.dtype == dst.dtype, "tensor_copy_predicated: src and dst must share a dtype")
        _two_psum(src, predicate, "tensor_copy_predicated")
        v = _fit(_read(src), dst.shape, "dst")
    else:
        v = np.full(dst.shape, float(_vals(src)))
    _write(dst, v, where=p)


def _rows_of(t, lo, hi, what):
    v = _flat(_read(t))
    _require(lo <= v.shape[1] <= hi, "%s: %d elements per partition, not in [%d, %d]", what, v.shape[1], lo, hi)
    return v


@_isa
def max8(dst, src, name=None):
    v = _rows_of(src, 8, 16384, "max8 src")
    _require(dst.shape == (v.shape[0], 8), "max8: dst must be [%d, 8]", v.shape[0])
    _write(dst, -np.sort(-_f32(v), axis=1)[:, :8])


@_isa
def nc_find_index8(dst, data, vals, name=None):
    v = _rows_of(data, 8, 16384, "nc_find_index8 data")
    w = _flat(_read(vals))
    _require(w.shape == (v.shape[0], 8), "nc_find_index8: vals must hold 8 values per partition")
    _require(dst.dtype in ("uint16", "uint32") and dst.shape == (v.shape[0], 8), "nc_find_index8: dst uint16/uint32 [P, 8]")
    out = np.zeros(w.shape)
    for p in range(v.shape[0]):
        for j in range(8):
            hit = np.nonzero(_f32(v[p]) == _f32(w[p, j]))[0]
            if hit.size == 0:
                raise NkiValidationError("nc_find_index8: value %r is not in partition %d (undefined)" % (w[p, j], p))
            out[p, j] = hit[0]
    _write(dst, out)


@_isa
def nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None):
    v = _flat(_read(data)).copy()
    _require(v.shape[1] <= 16384, "nc_match_replace8: at most 16384 elements per partition")
    w = _flat(_read(vals))
    _require(w.shape == (v.shape[0], 8), "nc_match_replace8: vals must hold 8 values per partition")
    idx = np.zeros(w.shape)
    for p in range(v.shape[0]):
        for j in range(8):
            hit = np.nonzero(_f32(v[p]) == _f32(w[p, j]))[0]
            if hit.size == 0:
                raise NkiValidationError("nc_match_replace8: value %r is not in partition %d (undefined)" % (w[p, j], p))
            idx[p, j] = hit[0]
            v[p, hit[0]] = imm
    _write(dst, _fit(v, dst.shape, "dst"))
    if dst_idx is not None:
        _require(dst_idx.dtype in ("uint16", "uint32"), "nc_match_replace8: dst_idx uint16/uint32")
        _write(dst_idx, _fit(idx, dst_idx.shape, "dst_idx"))


@_isa
def nc_stream_shuffle(dst, src, shuffle_mask, name=None):
    mask = [int(m) for m in shuffle_mask]
    _require(len(mask) == 32, "nc_stream_shuffle: shuffle_mask has 32 elements")
    _require(all(0 <= m < 32 or m == 255 for m in mask), "nc_stream_shuffle: mask values 0..31 or 255")
    _require(src.dtype == dst.dtype, "nc_stream_shuffle: dst must have src's dtype")
    v = _flat(_read(src))
    parts = v.shape[0]
    _require(dst.shape[0] == parts and dst.idx.size == v.size, "nc_stream_shuffle: dst must have src's partitions and elements")
    quads = (parts + 31) // 32
    rows = np.full(v.shape, np.nan)
    sel = np.zeros(v.shape, dtype=bool)
    for q in range(quads):
        for i, m in enumerate(mask):
            p = q * 32 + i
            if p >= parts or m == 255:
                continue
            rows[p] = v[q * 32 + m]
            sel[p] = True
    _write(dst, rows.reshape(dst.shape), where=sel.reshape(dst.shape))


@_isa
def local_gather(dst, src_buffer, index, num_elem_per_idx=1, num_valid_indices=None, name=None):
    _check_mem(src_buffer, ("sbuf",), "src_buffer", "local_gather (GpSimd)")
    _check_mem(dst, ("sbuf",), "dst", "local_gather (GpSimd)")
    _require(index.dtype == "uint16", "local_gather: index must be uint16")
    _require(dst.dtype == src_buffer.dtype, "local_gather: no dtype casting")
    _require(num_elem_per_idx in (1, 2, 4, 8, 16, 32), "local_gather: num_elem_per_idx %r", num_elem_per_idx)
    src = _flat(_read(src_buffer))
    ix = _flat(_read(index)).astype(np.int64)
    parts = src.shape[0]
    _require(parts == ix.shape[0] and parts % 16 == 0, "local_gather: src and index partitions equal, a multiple of 16")
    per_core = ix.size // (parts // 16)
    nvi = per_core if num_valid_indices is None else int(num_valid_indices)
    _require(nvi <= per_core and nvi <= 4096, "local_gather: num_valid_indices %d", nvi)
    out = np.empty((parts, nvi * num_elem_per_idx))
    for g in range(parts // 16):
        rows = slice(16 * g, 16 * g + 16)
        ids = ix[rows].flatten(order="F")[:nvi]
        for k, e in enumerate(ids):
            _require(0 <= e and e + num_elem_per_idx <= src.shape[1], "local_gather: index %d out of range (undefined)", e)
            out[rows, k * num_elem_per_idx:(k + 1) * num_elem_per_idx] = src[rows, e:e + num_elem_per_idx]
    _write(dst, _fit(out, dst.shape, "dst"))


@_isa
def sequence_bounds(dst, segment_ids, name=None):
    _check_mem(segment_ids, ("sbuf",), "segment_ids", "sequence_bounds (GpSimd)")
    _check_mem(dst, ("sbuf",), "dst", "sequence_bounds (GpSimd)")
    for t in (dst, segment_ids):
        _require(t.dtype in ("float32", "int32"), "sequence_bounds: float32 or int32, got %s", t.dtype)
    s = _read(segment_ids)
    _require(s.shape[0] == 1, "sequence_bounds: the partition dimension must be 1")
    s = s.reshape(-1)
    _require((s >= 0).all() and (s == np.round(s)).all(), "sequence_bounds: segment ids are non-negative integers")
    n = s.size
    start, end = np.empty(n), np.empty(n)
    for j, sid in enumerate(s):
        if sid == 0:
            start[j], end[j] = n, -1
        else:
            where = np.nonzero(s == sid)[0]
            start[j], end[j] = where[0], where[-1] + 1
    _require(dst.shape == (1, 2, n), "sequence_bounds: dst must be [1, 2, %d]", n)
    _write(dst, np.stack([start, end])[None])


@_isa
def bn_stats(dst, data, name=None):
    v = _flat(_read(data))
    _require(v.shape[1] <= 512, "bn_stats: at most 512 elements per partition")
    cols = []
    for part in (v[:, 0::2], v[:, 1::2]):
        n = part.shape[1]
        cols += [np.full(v.shape[0], float(n)), part.mean(axis=1), part.var(axis=1) * n]
    _write(dst, _fit(np.stack(cols, axis=1), dst.shape, "dst"))


@_isa
def bn_aggr(dst, data, name=None):
    v = _flat(_read(data))
    g = v.reshape(v.shape[0], -1, 3)
    n, m, m2 = g[:, :, 0], g[:, :, 1], g[:, :, 2]
    total = n.sum(axis=1)
    mean_all = (n * m).sum(axis=1) / total
    var_all = (m2 + n * (m - mean_all[:, None]) ** 2).sum(axis=1) / total
    _write(dst, _fit(np.stack([mean_all, var_all], axis=1), dst.shape, "dst"))


@_isa
def reciprocal(dst, data, name=None):
    with np.errstate(divide="ignore"):
        _write(dst, _fit(1.0 / _read(data), dst.shape, "dst"))


@_isa
def affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op=equal, offset=0, name=None):
    c = _op(cmp_op, ("cmp",), "cmp_op")
    _check_mem(dst, ("sbuf",), "dst", "affine_select")
    _check_mem(on_true_tile, ("sbuf",), "on_true_tile", "affine_select")
    v = _read(on_true_tile)
    a = _affine(pattern, offset, channel_multiplier, dst.shape)
    pred = c.fn(a, 0.0) != 0
    _write(dst, np.where(pred, _fit(v, dst.shape, "dst"), float(on_false_value)))


# --- registers --------------------------------------------------------------------

def register_alloc(x=None):
    _use("nisa.register_alloc")
    if x is not None and not isinstance(x, int):
        raise TypeError("register_alloc: an int initial value")
    return VirtualRegister(x)


def register_move(dst, src):
    _use("nisa.register_move")
    dst.value = src.get() if isinstance(src, VirtualRegister) else int(src)


def register_load(dst, src):
    _use("nisa.register_load")
    _require(isinstance(src, Tensor) and src.idx.size == 1, "register_load: the source holds exactly one element")
    dst.value = int(_read(src).reshape(-1)[0])


def register_store(dst, src):
    _use("nisa.register_store")
    _require(isinstance(dst, Tensor) and dst.idx.size == 1, "register_store: the destination holds exactly one element")
    _write(dst, np.full(dst.shape, float(src.get())))


# --- nki.collectives (one rank) --------------------------------------------------

class ReplicaGroup(NKIObject):
    def __init__(self, replica_groups):
        self.groups = [list(g) for g in replica_groups]


def _one_rank(rg, name):
    _use("nki.collectives")
    _use("ncc." + name)
    if not isinstance(rg, ReplicaGroup):
        raise TypeError("%s: replica_group must be a ReplicaGroup" % name)
    if any(len(g) != 1 for g in rg.groups):
        raise NotImplementedError("%s over %r needs several devices; the model runs one rank" % (name, rg.groups))


def _collective_copy(srcs, dsts, name):
    srcs, dsts = list(srcs), list(dsts)
    _require(len(srcs) == len(dsts) and srcs, "%s: as many srcs as dsts", name)
    kinds = {t.storage.kind for t in srcs + dsts}
    _require(len(kinds) == 1 and kinds <= {"hbm", "sbuf"}, "%s: all tensors in HBM or all in SBUF", name)
    for s, d in zip(srcs, dsts):
        _require(s.shape == d.shape, "%s: src %s and dst %s", name, list(s.shape), list(d.shape))
        _write(d, _read(s))


def all_reduce(srcs, dsts, replica_group, op, priority=None, name=None):
    _one_rank(replica_group, "all_reduce")
    _require(op in (add, minimum, maximum), "all_reduce: op nl.add, nl.minimum or nl.maximum")
    _collective_copy(srcs, dsts, "all_reduce")


def all_gather(srcs, dsts, replica_group, collective_dim, priority=None, name=None):
    _one_rank(replica_group, "all_gather")
    _collective_copy(srcs, dsts, "all_gather")


def reduce_scatter(srcs, dsts, replica_group, collective_dim, op, priority=None, name=None):
    _one_rank(replica_group, "reduce_scatter")
    _collective_copy(srcs, dsts, "reduce_scatter")


def all_to_all(srcs, dsts, replica_group, collective_dim, priority=None, name=None):
    _one_rank(replica_group, "all_to_all")
    _collective_copy(srcs, dsts, "all_to_all")


def rank_id(name=None):
    _use("nki.collectives")
    return VirtualRegister(0)


# --- nki ------------------------------------------------------------------------

def jit(func=None, mode="auto", **kwargs):
    if func is None:
        return lambda f: jit(f, mode=mode, **kwargs)
    func._nki_kernel = True
    return func


def simulate(kernel):
    raise NotImplementedError("the model runs kernels through run.py, not nki.simulate")


class _TensorType:
    def __getitem__(self, shape):
        return ("nki.typing.tensor", shape)


# --- running a kernel --------------------------------------------------------------

def hbm_input(name, dtype, values):
    st = _Storage(np.shape(values), _dt(dtype), shared_hbm, name)
    t = _tensor_of(st)
    _write(t, np.asarray(values, dtype=np.float64))
    return t


def run_grid(fn, args, grid):
    _Program.grid = tuple(grid or ())
    _Program.shared = []
    reset_state()
    result = None
    for ids in (itertools.product(*(range(g) for g in grid)) if grid else [()]):
        _Program.ids = ids
        _Program.made = 0
        result = fn(*args)
    return result


def values_of(t):
    """The values of a kernel output (a whole HBM tensor)."""
    if not isinstance(t, Tensor) or t.storage.kind != "hbm":
        raise TypeError("a kernel output must be an HBM tensor, got %r" % (t,))
    return t.storage.arr.reshape(t.storage.shape), t.dtype
