"""The NKI dtypes as test code sees them, and their form on the wire.

Test code outside kernels uses NKI's dtype names with numpy:
``np.random.rand(4, 8).astype(nl.float32)``, ``np.zeros(s, dtype=nl.bfloat16)``,
``assert out.dtype == nl.float16``. So every name is something numpy accepts
as a dtype:

* Where numpy has the type (bool_, int8 ... uint64, float16, float32) the
  name *is* numpy's scalar type: ``nl.float32 is np.float32``.
* bfloat16 and the fp8 formats: when ``ml_dtypes`` is importable (the
  library NKI's own simulator and JAX use) the names are its types, and an
  array of them is a real low-precision array.
* Without ``ml_dtypes`` (numpy only; this machine) they are a documented
  stand-in: a float32 dtype carrying numpy dtype metadata
  ``{'nkisim': NAME}``. Arrays made with it (``astype``, ``zeros``, slices,
  ``a + a``) keep the tag; their values are float32 in the caller. When such
  an array is a kernel argument it is rounded to NAME (round to nearest
  even, overflow to Inf or, for the fn format, NaN: narwhal's own rules,
  numeric/float.go) and sent in NAME's bits, so the kernel traces with the
  real dtype; a NAME output comes back decoded exactly into float32 values
  with the tag. The tag compares equal to float32 (``nl.bfloat16 ==
  np.float32`` is True) and is lost by operations that make a new dtype
  (``a.astype(np.float32)``, mixing with another dtype); such an array then
  goes to narwhal as float32. That is the stand-in's limit.
* tfloat32 is always the stand-in (numpy and ml_dtypes have none); narwhal
  reads its '<f4' data as float32.
* The x4-packed types (float8_e5m2_x4, float8_e4m3fn_x4, float4_e2m1fn_x4)
  are narwhal's own one-field structured dtypes ``[('NAME', '|V4')]``:
  opaque bytes, which is all test code can do with them.

The wire: narwhal's .npy reader (npy/npy.go) takes the standard descriptors,
'<V2' for bfloat16, and for the other narwhal-only dtypes a one-field
structured dtype whose field name is narwhal's dtype name.
"""

import numpy as np

try:  # optional: the real low-precision types
    import ml_dtypes as _ml
except ImportError:  # numpy only
    _ml = None

HAVE_ML_DTYPES = _ml is not None

# Minifloat formats narwhal knows (numeric/float.go): name -> (exponent bits,
# mantissa bits, bias, has Inf). Every one has NaN.
_MINIFLOATS = {
    "float8_e4m3": (4, 3, 7, True),
    "float8_e4m3fn": (4, 3, 7, False),
    "float8_e5m2": (5, 2, 15, True),
}

# The ml_dtypes attribute for each low-precision name, when it exists.
_ML_NAMES = {
    "bfloat16": "bfloat16",
    "float8_e4m3": "float8_e4m3",
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
}

_PACKED = {"float8_e5m2_x4": 4, "float8_e4m3fn_x4": 4, "float4_e2m1fn_x4": 2}


def standin(name):
    """The numpy-only stand-in dtype for NAME: float32 tagged {'nkisim': NAME}."""
    return np.dtype(np.float32, metadata={"nkisim": name})


def standin_name(dtype):
    """NAME if dtype is a stand-in dtype, else None."""
    md = getattr(dtype, "metadata", None)
    if md:
        return md.get("nkisim")
    return None


def _low_precision(name):
    if _ml is not None and hasattr(_ml, _ML_NAMES[name]):
        return getattr(_ml, _ML_NAMES[name])
    return standin(name)


def dtype_names():
    """The NKI dtype names and their values (one dict per call)."""
    d = {
        "bool_": np.bool_,
        "int8": np.int8,
        "int16": np.int16,
        "int32": np.int32,
        "int64": np.int64,
        "uint8": np.uint8,
        "uint16": np.uint16,
        "uint32": np.uint32,
        "uint64": np.uint64,
        "float16": np.float16,
        "float32": np.float32,
        "tfloat32": standin("tfloat32"),
    }
    for name in _ML_NAMES:
        d[name] = _low_precision(name)
    for name, size in _PACKED.items():
        d[name] = np.dtype([(name, "V%d" % size)])
    return d


# ---------------------------------------------------------------------------
# Encoding and decoding (numpy only).


def bfloat16_bits(x):
    """float values -> bfloat16 bit patterns (uint16), round to nearest even;
    NaN stays a quiet NaN of its sign, overflow becomes Inf."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        sign = ((u >> 16) & 0x8000).astype(np.uint16)
        rounded = np.where(nan, sign | np.uint16(0x7FC0), rounded)
    return rounded.astype(np.uint16)


def bfloat16_values(bits):
    """bfloat16 bit patterns (uint16) -> float32 values (exact)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.view(np.float32)


def _minifloat_table(name):
    """The value of every code of the format, as float64 (NaN codes NaN)."""
    ebits, mbits, bias, has_inf = _MINIFLOATS[name]
    codes = np.arange(1 << (1 + ebits + mbits), dtype=np.int64)
    sign = np.where(codes >> (ebits + mbits) & 1, -1.0, 1.0)
    e = (codes >> mbits) & ((1 << ebits) - 1)
    m = codes & ((1 << mbits) - 1)
    emax = (1 << ebits) - 1
    normal = (1.0 + m / float(1 << mbits)) * np.exp2(e - bias)
    sub = (m / float(1 << mbits)) * np.exp2(1 - bias)
    v = sign * np.where(e == 0, sub, normal)
    if has_inf:
        v = np.where((e == emax) & (m == 0), sign * np.inf, v)
        v = np.where((e == emax) & (m != 0), np.nan, v)
    else:
        v = np.where((e == emax) & (m == (1 << mbits) - 1), np.nan, v)
    return v


def minifloat_values(name, codes):
    """fp8 codes (uint8) of format name -> float32 values (exact)."""
    table = _minifloat_table(name).astype(np.float32)
    return table[np.asarray(codes, dtype=np.uint8)]


def minifloat_codes(name, x):
    """float values -> codes (uint8) of format name: round to nearest even
    as if the exponent range were unbounded; overflow is Inf (IEEE-style
    formats) or NaN (fn), as narwhal's numeric package does."""
    ebits, mbits, bias, has_inf = _MINIFLOATS[name]
    table = _minifloat_table(name)
    half = 1 << (ebits + mbits)  # the sign bit's code offset
    pos = table[:half]
    finite = np.isfinite(pos)
    nmax = int(np.nonzero(finite)[0].max())  # code of the largest finite value
    vals = pos[: nmax + 1]
    ulp = vals[nmax] - vals[nmax - 1]
    limit = vals[nmax] + ulp / 2  # the rounding boundary of the largest value

    f = np.asarray(x, dtype=np.float64)
    neg = np.signbit(f)
    a = np.abs(f)
    idx = np.clip(np.searchsorted(vals, a, side="left"), 1, nmax)
    lo, hi = vals[idx - 1], vals[idx]
    code = np.where(a - lo < hi - a, idx - 1, idx)
    tie = (a - lo) == (hi - a)
    code = np.where(tie, np.where((idx - 1) % 2 == 0, idx - 1, idx), code)
    code = np.where(a <= vals[0], 0, code)
    over_code = half - (1 << mbits) if has_inf else half - 1  # Inf, or the NaN code
    over = (a > limit) | ((a == limit) & (nmax % 2 == 1))
    code = np.where(over | np.isinf(a), over_code, code)
    nan_code = half - 1 if not has_inf else half - (1 << mbits) + (1 << (mbits - 1))
    code = np.where(np.isnan(f), nan_code, code)
    code = code + np.where(neg, half, 0)
    return code.astype(np.uint8)


# ---------------------------------------------------------------------------
# The wire form of an argument, and back.


def _wire_name(dtype):
    """The narwhal-only dtype NAME an argument array's dtype stands for,
    or None for a standard numpy dtype that goes as it is."""
    name = standin_name(dtype)
    if name is not None:
        return name
    if _ml is not None:
        for n, attr in _ML_NAMES.items():
            t = getattr(_ml, attr, None)
            if t is not None and dtype == np.dtype(t):
                return n
    return None


def to_wire(arr):
    """An argument array as narwhal's .npy reader takes it."""
    name = _wire_name(arr.dtype)
    if name is None:
        if arr.dtype.metadata:  # a foreign tag: drop it (np.save would warn)
            return arr.astype(np.dtype(arr.dtype.str))
        return arr
    if name == "tfloat32":
        return np.ascontiguousarray(arr, dtype=np.float32).astype(np.dtype("<f4"))
    if standin_name(arr.dtype) is not None:
        if name == "bfloat16":
            bits = bfloat16_bits(arr)
            return bits.view(np.dtype("<V2"))
        codes = minifloat_codes(name, np.asarray(arr, dtype=np.float32))
        return codes.view(np.dtype([(name, "V1")]))
    # an ml_dtypes array: its bits, in narwhal's descriptor
    c = np.ascontiguousarray(arr)
    if name == "bfloat16":
        return c.view(np.uint16).view(np.dtype("<V2"))
    return c.view(np.uint8).view(np.dtype([(name, "V1")]))


def from_wire(arr):
    """An output array as narwhal wrote it -> what test code gets: numpy's
    own dtypes as they are, bfloat16 and fp8 as ml_dtypes arrays or
    stand-in arrays."""
    dt = arr.dtype
    if dt.names is not None and len(dt.names) == 1:
        name = dt.names[0]
        if name in _MINIFLOATS:
            codes = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.shape)
            return _low_precision_array(name, codes)
        return arr  # a packed type: opaque
    if dt.kind == "V" and dt.itemsize == 2:
        bits = np.ascontiguousarray(arr).view(np.uint16).reshape(arr.shape)
        return _low_precision_array("bfloat16", bits)
    return arr


def _low_precision_array(name, bits):
    t = _low_precision(name)
    if standin_name(np.dtype(t)) is None:  # ml_dtypes
        return bits.view(t)
    if name == "bfloat16":
        return bfloat16_values(bits).astype(t)
    return minifloat_values(name, bits).astype(t)


def same_kind(caller, out):
    """Whether an output array can be written into the caller's array: same
    dtype (stand-ins by their tag), or a bool caller array and narwhal's
    uint8 (narwhal stores bool_ as uint8)."""
    if caller.dtype == np.bool_ and out.dtype == np.uint8:
        return True
    if standin_name(caller.dtype) != standin_name(out.dtype):
        return False
    return caller.dtype == out.dtype
