"""A numpy model of the legacy neuronxcc.nki API, written for narwhal's NKI
kernel suite (kernels/nki/README.md), from the API documentation only.

It exists to check the suite's own kernels against refgen.py's goldens
without narwhal: run.py imports each kernel file with this package on
sys.path and executes the kernel eagerly. It models values, not the machine:
tensors are float64 numpy arrays whose values are rounded to their dtype
after every operation (bfloat16 by round-to-nearest-even on the float32
bits), unwritten elements are NaN (so a read of memory nothing wrote, such
as a row a mask left out, poisons the result), masks restrict reads and
writes to the elements they select, index grids are integer numpy arrays
(nl.arange(n)[:, None] broadcasts as numpy does), loops are Python ranges,
and placements (buffers, ncc.*.alloc) are recorded but not modelled. SPMD
programs run one after the other, and a shared_hbm tensor a kernel makes is
the same tensor in every program (allocations are matched by their order).

Decisions where the documentation is silent, each also an assumption of
the suite's kernels: reductions and tensor_reduce with keepdims=False drop
the reduced axes; a comparison's default dtype bool is stored as 0/1; the
scalar engine's float32 math is modelled as exact math rounded once to the
output dtype.
"""
import itertools
import math

import numpy as np

# --- coverage -----------------------------------------------------------------

# COVER[name] is the set of cases (run.py sets CASE) in which the API name
# was used: run.py --coverage prints the table of kernels/nki/README.md.
COVER = {}
CASE = [None]


def _use(name):
    COVER.setdefault(name, set()).add(CASE[0])


# --- dtypes -------------------------------------------------------------------

float32, float16, bfloat16, tfloat32 = "float32", "float16", "bfloat16", "tfloat32"
int8, int16, int32, uint8, uint16, uint32 = "int8", "int16", "int32", "uint8", "uint16", "uint32"
bool_ = "bool"
float8_e4m3, float8_e5m2 = "float8_e4m3", "float8_e5m2"

_FLOAT_RANK = {"float8_e4m3": 0, "float8_e5m2": 0, "bfloat16": 1, "float16": 1, "tfloat32": 2, "float32": 3}
_INT_BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "bool": 8}


def dtname(d):
    """The model's name of a dtype given as a name, a numpy type or dtype."""
    if d is None:
        return None
    if isinstance(d, str):
        return d
    if d is bool:
        return "bool"
    return np.dtype(d).name


def _is_float(d):
    return d in _FLOAT_RANK


def _round_bf16(a):
    b = np.asarray(a, dtype=np.float64).astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def rnd(d, a):
    """a (float64) rounded to dtype d; NaN (unwritten) stays NaN."""
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        if d == "float32":
            return a.astype(np.float32).astype(np.float64)
        if d == "float16":
            return a.astype(np.float16).astype(np.float64)
        if d == "bfloat16":
            return _round_bf16(a)
        if d == "bool":
            return np.where(np.isnan(a), np.nan, (a != 0) * 1.0)
        if d in _INT_BITS:
            bits = _INT_BITS[d]
            lo, hi = (0, 2 ** bits - 1) if d.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            return np.where(np.isnan(a), np.nan, np.clip(np.round(a), lo, hi))
    raise TypeError("the model has no dtype %r" % d)


def promote(a, b):
    """The documented type promotion (nki.api.shared.rst, NKI Type Promotion)."""
    if a == b:
        return a
    _use("type promotion of mixed dtypes")
    fa, fb = _is_float(a), _is_float(b)
    if fa and fb:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        if {a, b} == {"float8_e4m3", "float8_e5m2"}:
            return "bfloat16"
        return a if _FLOAT_RANK[a] >= _FLOAT_RANK[b] else b
    if fa:
        return a
    if fb:
        return b
    sa, sb = not a.startswith("u"), not b.startswith("u")
    ba, bb = _INT_BITS[a], _INT_BITS[b]
    if sa == sb:
        return a if ba >= bb else b
    signed, sbits, ubits = (a, ba, bb) if sa else (b, bb, ba)
    if sbits > ubits:
        return signed
    if ubits == 32:
        return "float32"
    return {8: "int16", 16: "int32"}[ubits]


def _weak(v):
    """The dtype of a weakly typed scalar."""
    if isinstance(v, bool):
        return "uint8"
    if isinstance(v, int):
        return "int32"
    return "float32"


# --- tensors and views ------------------------------------------------------

class Placement:
    """A buffer: "hbm", "sbuf", "psum" (ncc allocations are only recorded)."""

    def __init__(self, kind, func=None):
        self.kind, self.func = kind, func


sbuf, psum = Placement("sbuf"), Placement("psum")
hbm, private_hbm, shared_hbm = Placement("hbm"), Placement("hbm"), Placement("shared_hbm")


def par_dim(n):
    return n


class T:
    """A tensor or tile: values (float64, NaN where unwritten), dtype, buffer."""

    def __init__(self, arr, dtype, buffer="sbuf"):
        self.arr, self._dtype, self.buffer = arr, dtname(dtype), buffer

    @property
    def dtype(self):
        _use(".dtype")
        return self._dtype

    @property
    def shape(self):
        _use(".shape")
        return tuple(self.arr.shape)

    def __getitem__(self, key):
        return V(self, key)

    def __setitem__(self, key, value):
        _use("t[...] = value (assignment into a tensor)")
        V(self, key).write(value)

    def reshape(self, shape):
        _use(".reshape")
        return T(self.arr.reshape(shape), self._dtype, self.buffer)

    def view(self, dtype):
        _use(".view")
        d = dtname(dtype)
        raw = self.arr.astype(np.dtype(self._dtype)).view(np.dtype(d))
        return T(raw.astype(np.float64), d, self.buffer)

    def broadcast_to(self, shape):
        _use(".broadcast_to")
        return _broadcast(self, tuple(shape))

    def __iadd__(self, other):
        _use("+= (in-place accumulation)")
        self.arr[...] = rnd(self._dtype, self.arr + _vals(other))
        return self

    # tile operators
    def __add__(self, o): return _operator("+", _add, self, o)
    def __radd__(self, o): return _operator("+", _add, o, self)
    def __sub__(self, o): return _operator("-", _subtract, self, o)
    def __rsub__(self, o): return _operator("-", _subtract, o, self)
    def __mul__(self, o): return _operator("*", _multiply, self, o)
    def __rmul__(self, o): return _operator("*", _multiply, o, self)
    def __truediv__(self, o): return _operator("/", _divide, self, o)
    def __rtruediv__(self, o): return _operator("/", _divide, o, self)
    def __neg__(self): return _operator("unary -", lambda a: _negative(a), self)


class V:
    """A lazy view t[key]: read with an optional mask, or written."""

    def __init__(self, t, key, record=True):
        self.t = t
        self.key = key if isinstance(key, tuple) else (key,)
        for k in (self.key if record else ()):
            if isinstance(k, np.ndarray):
                _use("indexing by index grids")
            elif k is Ellipsis:
                _use("indexing by ...")
            elif isinstance(k, (slice, DS)):
                _use("indexing by slices")
            elif isinstance(k, (int, np.integer)):
                _use("indexing by ints")

    @property
    def dtype(self):
        return self.t._dtype

    @property
    def shape(self):
        _use(".shape")
        return self.read().shape

    def _index(self, mask):
        """(numpy key, selected-elements mask or None)."""
        key = tuple(k.slice() if isinstance(k, DS) else k for k in self.key)
        if not any(isinstance(k, np.ndarray) for k in key):
            return key, None
        if any(not isinstance(k, np.ndarray) for k in key):
            raise IndexError("the model does not mix index arrays with ints or slices: %r" % (self.key,))
        arrs = np.broadcast_arrays(*key)
        ok = np.ones(arrs[0].shape, dtype=bool)
        if mask is not None:
            ok &= np.broadcast_to(mask, ok.shape)
        shape = self.t.arr.shape
        clipped = []
        for d, a in enumerate(arrs):
            inside = (a >= 0) & (a < shape[d])
            if np.any(ok & ~inside):
                raise IndexError("index out of range on axis %d (size %d) where the mask selects" % (d, shape[d]))
            clipped.append(np.clip(a, 0, shape[d] - 1))
        return tuple(clipped), ok

    def read(self, mask=None):
        key, ok = self._index(mask)
        v = np.array(self.t.arr[key], dtype=np.float64)
        if ok is None and mask is not None:
            ok = np.broadcast_to(mask, v.shape)
        if ok is not None:
            v = np.where(ok, v, np.nan)
        return v

    def write(self, value, mask=None):
        key, ok = self._index(mask)
        target = self.t.arr[key]
        v = rnd(self.t._dtype, np.broadcast_to(_vals(value), np.shape(target)))
        if ok is None and mask is not None:
            ok = np.broadcast_to(mask, np.shape(target))
        if ok is None:
            self.t.arr[key] = v
            return
        if isinstance(key[0], np.ndarray):
            self.t.arr[tuple(k[ok] for k in key)] = v[ok]
        else:
            sub = self.t.arr[key]
            sub[ok] = v[ok]

    def __getitem__(self, key):
        return V(T(self.read(), self.t._dtype, self.t.buffer), key)

    def __iadd__(self, other):
        _use("+= (in-place accumulation)")
        return _add(self, other, dtype=self.t._dtype)

    def broadcast_to(self, shape):
        _use(".broadcast_to")
        return _broadcast(self, tuple(shape))

    def __add__(self, o): return _operator("+", _add, self, o)
    def __radd__(self, o): return _operator("+", _add, o, self)
    def __sub__(self, o): return _operator("-", _subtract, self, o)
    def __rsub__(self, o): return _operator("-", _subtract, o, self)
    def __mul__(self, o): return _operator("*", _multiply, self, o)
    def __rmul__(self, o): return _operator("*", _multiply, o, self)
    def __truediv__(self, o): return _operator("/", _divide, self, o)
    def __rtruediv__(self, o): return _operator("/", _divide, o, self)
    def __neg__(self): return _operator("unary -", lambda a: _negative(a), self)


class UnwrittenRead(Exception):
    """An instruction read elements that nothing wrote (NaN in the model)."""


def _checked(v):
    if np.isnan(v).any():
        idx = np.argwhere(np.isnan(v))[0]
        raise UnwrittenRead("reads %d elements nothing wrote, the first at %s of a %s tile"
                            % (np.isnan(v).sum(), list(idx), list(v.shape)))
    return v


def _vals(x, mask=None):
    """The float64 values of a tile, view or scalar. Reading an element of a
    tile or view that nothing wrote (where the mask, if any, selects) is an
    error, as in narwhal's interpreter; the masked-out elements read as NaN."""
    if isinstance(x, V):
        key, ok = x._index(mask)
        v = np.array(x.t.arr[key], dtype=np.float64)
        if ok is None and mask is not None:
            v, ok = np.broadcast_arrays(v, mask)
        if ok is None:
            return _checked(v)
        _checked(v[ok])
        return np.where(ok, v, np.nan)
    if isinstance(x, T):
        v = x.arr
        if mask is None:
            return _checked(v)
        v, m = np.broadcast_arrays(v, mask)
        _checked(v[m])
        return np.where(m, v, np.nan)
    if isinstance(x, np.ndarray):
        v = x.astype(np.float64)
        if mask is not None:
            v, m = np.broadcast_arrays(v, mask)
            v = np.where(m, v, np.nan)
        return v
    if isinstance(x, (int, float, bool, np.number)):
        return np.float64(x)
    raise TypeError("not a tile: %s" % type(x).__name__)


def _dt_of(x):
    """A tile's or view's dtype, without recording a use of .dtype."""
    return x.t._dtype if isinstance(x, V) else x._dtype


def _shape_of(x):
    return tuple(x.read().shape) if isinstance(x, V) else tuple(x.arr.shape)


def _dt(x):
    if isinstance(x, (T, V)):
        return _dt_of(x)
    _use("weakly typed scalar operand")
    return _weak(x)


def _result(vals, dtype, mask=None):
    v = np.array(vals, dtype=np.float64)
    if mask is not None:
        v = np.where(np.broadcast_to(mask, v.shape), v, np.nan)
    return T(rnd(dtype, v), dtype)


class DS:
    def __init__(self, start, size):
        self.start, self.size = start, size

    def slice(self):
        return slice(self.start, self.start + self.size)


def ds(start, size):
    return DS(start, size)


def arange(*args):
    return np.arange(*args)


class _Grid:
    def __init__(self, arrays):
        self.arrays = arrays

    def __getattr__(self, name):
        fields = ("p", "x", "y", "z", "w")
        if name in fields[:len(self.arrays)]:
            _use("nl.mgrid fields .p/.x/.y")
            return self.arrays[fields.index(name)]
        raise AttributeError(name)

    def __iter__(self):
        return iter(self.arrays)


class _MGrid:
    def __getitem__(self, key):
        _use("nl.mgrid")
        return _Grid(list(np.mgrid[key]))


mgrid = _MGrid()


class _TileSize:
    _values = dict(pmax=128, psum_fmax=512, gemm_stationary_fmax=128, gemm_moving_fmax=512,
                   bn_stats_fmax=512, psum_min_align=4, sbuf_min_align=32,
                   total_available_sbuf_size=24 * 1024 * 1024)

    def __getattr__(self, name):
        if name not in self._values:
            raise AttributeError(name)
        _use("nl.tile_size." + name)
        return self._values[name]


tile_size = _TileSize()


# --- loops and the SPMD grid -------------------------------------------------

def affine_range(*args, **kwargs):
    return range(*args)


sequential_range = affine_range


def static_range(*args):
    return range(*args)


class _Program:
    grid = ()
    ids = ()
    shared = []     # shared_hbm tensors made so far, in allocation order
    made = 0        # how many this program made


def program_id(axis):
    return _Program.ids[axis]


def num_programs(axes=None):
    if axes is None:
        return math.prod(_Program.grid) if _Program.grid else 1
    if isinstance(axes, (tuple, list)):
        return math.prod(_Program.grid[a] for a in axes)
    return _Program.grid[axes]


def program_ndim():
    return len(_Program.grid)


def run_grid(fn, args, grid):
    """Runs fn(*args) once per program of grid; returns the last result."""
    _Program.grid = tuple(grid or ())
    _Program.shared = []
    result = None
    for ids in (itertools.product(*(range(g) for g in grid)) if grid else [()]):
        _Program.ids = ids
        _Program.made = 0
        result = fn(*args)
    return result


# --- creation ---------------------------------------------------------------

_BUFFER_NAMES = {}


def _kind(buffer):
    if buffer is None:
        return "sbuf"
    name = _BUFFER_NAMES.get(id(buffer))
    if name:
        _use("buffer=" + name)
    return buffer.kind if isinstance(buffer, Placement) else str(buffer)


def ndarray(shape, dtype, *, buffer=None, name="", **kwargs):
    return _ndarray(shape, dtype, buffer)


def _ndarray(shape, dtype, buffer):
    kind = _kind(buffer)
    if kind == "shared_hbm":
        i = _Program.made
        _Program.made += 1
        if i < len(_Program.shared):
            return _Program.shared[i]
        t = T(np.full(tuple(shape), np.nan), dtype, "hbm")
        _Program.shared.append(t)
        return t
    return T(np.full(tuple(shape), np.nan), dtype, kind)


def _full(shape, fill_value, dtype, buffer):
    t = _ndarray(shape, dtype, buffer)
    t.arr[...] = rnd(t._dtype, np.full(t.arr.shape, fill_value, dtype=np.float64))
    return t


def full(shape, fill_value, dtype, *, buffer=None, name="", **kwargs):
    return _full(shape, fill_value, dtype, buffer)


def zeros(shape, dtype, *, buffer=None, name="", **kwargs):
    return _full(shape, 0.0, dtype, buffer)


def ones(shape, dtype, *, buffer=None, name="", **kwargs):
    return _full(shape, 1.0, dtype, buffer)


def zeros_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return _full(_shape_of(a), 0.0, dtype or _dt_of(a), buffer)


def empty_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return _ndarray(_shape_of(a), dtype or _dt_of(a), buffer)


# --- data movement ------------------------------------------------------------

def load(src, *, mask=None, dtype=None, **kwargs):
    d = dtname(dtype) or _dt_of(src)
    return _result(_vals(src, mask), d)


def store(dst, value, *, mask=None, **kwargs):
    (dst if isinstance(dst, V) else V(dst, (Ellipsis,), record=False)).write(_vals(value, mask), mask)


def load_transpose2d(src, *, mask=None, dtype=None, **kwargs):
    return _result(_vals(src, mask).T, dtname(dtype) or _dt_of(src))


def copy(src, *, mask=None, dtype=None, **kwargs):
    return _result(_vals(src, mask), dtname(dtype) or _dt_of(src))


def _broadcast(src, shape):
    return _result(np.broadcast_to(_vals(src), shape).copy(), _dt_of(src))


def broadcast_to(src, *, shape, **kwargs):
    return _broadcast(src, tuple(shape))


def transpose(x, *, dtype=None, mask=None, **kwargs):
    return _result(_vals(x, mask).T, dtname(dtype) or _dt_of(x))


def matmul(x, y, *, transpose_x=False, mask=None, **kwargs):
    a = _vals(x)
    return _result((a if transpose_x else a.T).T @ _vals(y), "float32")


# --- element-wise ---------------------------------------------------------------

def _binary(npfn):
    def op(x, y, *, dtype=None, mask=None, **kwargs):
        d = dtname(dtype) or promote(_dt(x), _dt(y))
        with np.errstate(invalid="ignore", divide="ignore"):
            return _result(npfn(_vals(x, mask), _vals(y, mask)), d, mask)
    op._np = npfn
    return op


def _compare(npfn):
    def op(x, y, *, dtype=bool, mask=None, **kwargs):
        with np.errstate(invalid="ignore"):
            a, b = _vals(x, mask), _vals(y, mask)
            v = np.where(np.isnan(a) | np.isnan(b), np.nan, npfn(a, b) * 1.0)
        return _result(v, dtname(dtype), mask)
    op._np = lambda a, b: npfn(a, b) * 1.0
    return op


def _bitwise(npfn):
    def op(x, y, *, dtype=None, mask=None, **kwargs):
        d = dtname(dtype) or promote(_dt(x), _dt(y))
        a, b = _vals(x, mask), _vals(y, mask)
        bad = np.isnan(a) | np.isnan(b)
        v = npfn(np.nan_to_num(a).astype(np.int64), np.nan_to_num(b).astype(np.int64)).astype(np.float64)
        return _result(np.where(bad, np.nan, v), d, mask)
    op._np = lambda a, b: npfn(a.astype(np.int64), b.astype(np.int64)).astype(np.float64)
    return op


def _unary(npfn):
    def op(x, *, dtype=None, mask=None, **kwargs):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return _result(npfn(_vals(x, mask)), dtname(dtype) or _dt_of(x), mask)
    op._np = npfn
    return op


add, subtract, multiply, divide = _binary(np.add), _binary(np.subtract), _binary(np.multiply), _binary(np.divide)
maximum, minimum, power = _binary(np.maximum), _binary(np.minimum), _binary(np.power)
equal, not_equal = _compare(np.equal), _compare(np.not_equal)
greater, greater_equal = _compare(np.greater), _compare(np.greater_equal)
less, less_equal = _compare(np.less), _compare(np.less_equal)
bitwise_and, bitwise_or, bitwise_xor = _bitwise(np.bitwise_and), _bitwise(np.bitwise_or), _bitwise(np.bitwise_xor)
left_shift, right_shift = _bitwise(np.left_shift), _bitwise(np.right_shift)

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


exp, log, sqrt, tanh = _unary(np.exp), _unary(np.log), _unary(np.sqrt), _unary(np.tanh)
rsqrt = _unary(lambda a: 1.0 / np.sqrt(a))
square, abs, negative = _unary(np.square), _unary(np.abs), _unary(np.negative)  # noqa: A001
sigmoid = _unary(_sigmoid)
relu = _unary(lambda a: np.maximum(a, 0.0))
gelu = _unary(lambda a: 0.5 * a * (1.0 + _erf(a / math.sqrt(2.0))))
silu = _unary(lambda a: a * _sigmoid(a))
sin, cos, arctan, sign = _unary(np.sin), _unary(np.cos), _unary(np.arctan), _unary(np.sign)


def reciprocal(x, *, dtype=None, mask=None, engine=None, **kwargs):
    with np.errstate(divide="ignore"):
        return _result(1.0 / _vals(x, mask), dtname(dtype) or _dt_of(x), mask)


reciprocal._np = lambda a: 1.0 / a
isa_reciprocal = reciprocal


def where(condition, x, y, *, dtype=None, mask=None, **kwargs):
    c = _vals(condition, mask)
    d = dtname(dtype) or promote(_dt(x), _dt(y))
    v = np.where(np.isnan(c), np.nan, np.where(c != 0, _vals(x, mask), _vals(y, mask)))
    return _result(v, d, mask)


# --- reductions -----------------------------------------------------------------

def _axes(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)


def _reduce(npfn):
    def op(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
        v = _vals(x, mask)
        return _result(npfn(v, axis=_axes(axis), keepdims=keepdims), dtname(dtype) or _dt_of(x),
                       None if mask is None else _reduced_mask(mask, v.shape, _axes(axis), keepdims))
    return op


def _reduced_mask(mask, shape, axes, keepdims):
    m = np.broadcast_to(mask, shape)
    return np.all(m, axis=axes, keepdims=keepdims)


sum = _reduce(np.sum)  # noqa: A001
max = _reduce(np.max)  # noqa: A001
min = _reduce(np.min)  # noqa: A001
prod = _reduce(np.prod)
mean = _reduce(np.mean)

# --- ISA ----------------------------------------------------------------------

vector_engine, scalar_engine, gpsimd_engine, tensor_engine, unknown_engine = 1, 2, 3, 4, 0


def _npop(op):
    """The numpy function of an operator given as an nl function or a numpy ufunc."""
    if isinstance(op, np.ufunc) or op is np.copy:
        _use("numpy ufuncs as ops")
        _use("numpy op np.%s" % op.__name__)
    elif hasattr(op, "_nki_name"):
        _use("nl functions as ops")
    return getattr(op, "_np", op)


def nc_matmul(stationary, moving, *, mask=None, **kwargs):
    return _result(_vals(stationary).T @ _vals(moving), "float32")


def nc_transpose(data, *, mask=None, dtype=None, engine=0, **kwargs):
    return _result(_vals(data, mask).T, dtname(dtype) or _dt_of(data))


def activation(op, data, *, bias=None, scale=1.0, mask=None, dtype=None, **kwargs):
    z = _vals(data, mask) * _vals(scale)
    if bias is not None:
        z = z + _vals(bias)
    with np.errstate(over="ignore", invalid="ignore"):
        return _result(_npop(op)(z), dtname(dtype) or _dt_of(data), mask)


def tensor_tensor(data1, data2, op, *, dtype=None, mask=None, **kwargs):
    d = dtname(dtype) or promote(_dt_of(data1), _dt_of(data2))
    return _result(_npop(op)(_vals(data1, mask), _vals(data2, mask)), d, mask)


def _apply(op, a, b, reverse):
    return _npop(op)(b, a) if reverse else _npop(op)(a, b)


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, *,
                  dtype=None, mask=None, engine=0, **kwargs):
    v = _apply(op0, _vals(data, mask), _vals(operand0), reverse0)
    if op1 is not None:
        v = _apply(op1, v, _vals(operand1), reverse1)
    return _result(v, dtname(dtype) or _dt_of(data), mask)


def tensor_reduce(op, data, axis, *, mask=None, dtype=None, negate=False, keepdims=False, **kwargs):
    v = _npop(op).reduce(_vals(data, mask), axis=_axes(axis), keepdims=keepdims)
    return _result(-v if negate else v, dtname(dtype) or _dt_of(data))


def tensor_copy(src, *, mask=None, dtype=None, engine=0, **kwargs):
    return _result(_vals(src, mask), dtname(dtype) or _dt_of(src))


def tensor_partition_reduce(op, data, *, mask=None, dtype=None, **kwargs):
    return _result(_npop(op).reduce(_vals(data, mask), axis=0, keepdims=True), dtname(dtype) or _dt_of(data))


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, *,
                       dtype=None, mask=None, **kwargs):
    a, b = _vals(data0, mask), _vals(data1, mask)
    d = dtname(dtype) or promote(_dt_of(data0), _dt_of(data1))
    prev = np.broadcast_to(_vals(initial), (a.shape[0], 1))[:, 0]
    out = np.empty_like(a)
    for i in range(a.shape[1]):
        prev = rnd("float32", _apply(op1, _apply(op0, a[:, i], prev, reverse0), b[:, i], reverse1))
        out[:, i] = prev
    return _result(out, d)


def memset(shape, value, dtype, *, mask=None, engine=0, **kwargs):
    return _full(shape, value, dtype, None)


def iota(expr, dtype, *, mask=None, **kwargs):
    return _result(np.asarray(expr, dtype=np.float64), dtname(dtype))


def affine_select(pred, on_true_tile, on_false_value, *, mask=None, dtype=None, **kwargs):
    v = _vals(on_true_tile, mask)
    p = np.broadcast_to(pred, v.shape)
    return _result(np.where(p, v, on_false_value), dtname(dtype) or _dt_of(on_true_tile))


def bn_stats(data, *, mask=None, dtype=None, **kwargs):
    v = _vals(data, mask)
    v = v.reshape(v.shape[0], -1)
    cols = []
    for part in (v[:, 0::2], v[:, 1::2]):
        n = part.shape[1]
        cols += [np.full(v.shape[0], float(n)), part.mean(axis=1), part.var(axis=1) * n]
    return _result(np.stack(cols, axis=1), dtname(dtype) or _dt_of(data))


def bn_aggr(data, *, mask=None, dtype=None, **kwargs):
    v = _vals(data, mask)
    g = v.reshape(v.shape[0], -1, 3)
    n, m, m2 = g[:, :, 0], g[:, :, 1], g[:, :, 2]
    total = n.sum(axis=1)
    mean_all = (n * m).sum(axis=1) / total
    var_all = (m2 + n * (m - mean_all[:, None]) ** 2).sum(axis=1) / total
    return _result(np.stack([mean_all, var_all], axis=1), dtname(dtype) or _dt_of(data))


def dma_copy(*args, dst=None, src=None, **kwargs):
    if args:
        raise TypeError("the model takes dma_copy's dst and src by keyword")
    store(dst, src)


def dma_transpose(src, *, mask=None, dtype=None, **kwargs):
    return _result(_vals(src, mask).T, dtname(dtype) or _dt_of(src))


# --- nki -----------------------------------------------------------------------

def jit(fn=None, **kwargs):
    """The decorator in both forms, @nki.jit and @nki.jit(mode=...): the
    function itself, marked as a kernel."""
    if fn is None:
        return lambda f: jit(f)
    fn._nki_kernel = True
    return fn


trace = jit


def simulate_kernel(kernel, *args):
    raise NotImplementedError("the model runs kernels through run.py, not simulate_kernel")


def _operator(symbol, fn, *args):
    _use("tile operator " + symbol)
    return fn(*args)


_add, _subtract, _multiply, _divide, _negative = add, subtract, multiply, divide, negative


def _recording(fn, name):
    """fn, recording its use (and a mask= passed to it) under name."""
    def wrapper(*args, **kwargs):
        _use(name)
        if kwargs.get("mask") is not None:
            _use("mask=")
            _use("mask= on " + name)
        for kw in ("keepdims", "transpose_x", "negate", "reverse0", "reverse1"):
            if kwargs.get(kw):
                _use("%s %s=True" % (name, kw))
        for kw in ("bias", "scale", "dtype", "engine", "axis", "initial"):
            if kwargs.get(kw) is not None:
                _use("%s %s=" % (name, kw))
        return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    for k, v in vars(fn).items():
        setattr(wrapper, k, v)
    wrapper._nki_name = name
    return wrapper


ISA_NAMES = ["nc_matmul", "nc_transpose", "activation", "tensor_tensor", "tensor_scalar", "tensor_reduce",
             "tensor_copy", "tensor_partition_reduce", "tensor_tensor_scan", "memset", "iota", "affine_select",
             "bn_stats", "bn_aggr", "dma_copy", "dma_transpose"]

LANGUAGE_NAMES = [
    "float32", "float16", "bfloat16", "tfloat32", "int8", "int16", "int32", "uint8", "uint16", "uint32",
    "bool_", "float8_e4m3", "float8_e5m2", "sbuf", "psum", "hbm", "private_hbm", "shared_hbm", "par_dim",
    "ds", "arange", "mgrid", "tile_size", "affine_range", "sequential_range", "static_range", "program_id",
    "num_programs", "program_ndim", "ndarray", "full", "zeros", "ones", "zeros_like", "empty_like",
    "load", "store", "load_transpose2d", "copy", "broadcast_to", "transpose", "matmul",
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift", "exp", "log", "sqrt", "tanh", "rsqrt", "square", "abs", "negative",
    "sigmoid", "relu", "gelu", "silu", "sin", "cos", "arctan", "sign", "reciprocal", "where",
    "sum", "max", "min", "prod", "mean",
]

for _n in [n for n in LANGUAGE_NAMES if callable(globals()[n]) and not isinstance(globals()[n], type)
           and globals()[n].__class__.__name__ == "function"]:
    globals()[_n] = _recording(globals()[_n], "nl." + _n)
for _n in ISA_NAMES:
    globals()[_n] = _recording(globals()[_n], "nisa." + _n)
isa_reciprocal = _recording(reciprocal.__wrapped__, "nisa.reciprocal")
for _n, _b in (("sbuf", sbuf), ("psum", psum), ("hbm", hbm), ("private_hbm", private_hbm),
               ("shared_hbm", shared_hbm)):
    _BUFFER_NAMES[id(_b)] = "nl." + _n
