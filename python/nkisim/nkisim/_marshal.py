"""Arguments to `narwhal run` flags, and its outputs back to Python values.

The contract (../shared/docs/nki-frontend.md, "What a user does"):

* every tensor parameter's data goes in ``--inputs FILE.npz`` under the
  parameter's name; a tensor here is a numpy.ndarray (written parameters
  too: the kernel reads the caller's buffer, older kernels take their
  output as a parameter);
* any other parameter is ``--arg NAME=EXPR``: a Python literal, or a
  dotted name resolved in the kernel file's module namespace;
* ``--outputs FILE.npz`` holds a returned tensor as ``return``, a returned
  tuple's items as ``return0``, ``return1``, ..., and every tensor
  parameter the kernel wrote under its parameter name.

arg_expr decides an argument's EXPR: a literal by repr (int, float, bool,
str, None, numpy scalars by their Python value, and tuples, lists and
dicts of those), else the shortest dotted path by which the kernel
module's globals reach the very object (``nl.add``; ``np.add``;
``nisa.reduce_cmd.reset``; ``add`` after ``from ... import add``),
searched breadth first to three names deep; a dtype that is no global's
object (``a.dtype``) is matched by equality among the dtype names found
the same way. Anything else is a TypeError that says what narwhal takes.
Non-finite floats have no literal and are refused.
"""

import enum
import math
import types
import zipfile

import numpy as np

from . import _dtypes
from ._names import KernelOnly, Namespace


def _literal(value):
    """repr of value if it is a Python literal narwhal takes, else None."""
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, np.generic) and not isinstance(value, np.void):
        value = value.item()
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, enum.Enum):
        return repr(int(value))
    if isinstance(value, float) and not isinstance(value, enum.Enum):
        if not math.isfinite(value):
            return None
        return repr(float(value))
    if isinstance(value, (tuple, list)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            ks, vs = _literal(k), _literal(v)
            if ks is None or vs is None:
                return None
            parts.append(ks + ": " + vs)
        return "{" + ", ".join(parts) + "}"
    return None


def _shadow_module(m):
    name = getattr(m, "__name__", "") or ""
    return name == "nki" or name.startswith(("nki.", "neuronxcc"))


def _members(obj):
    """(name, value) pairs one step below obj, for the dotted-name search;
    None if the search does not look inside obj."""
    if isinstance(obj, KernelOnly):
        return list(object.__getattribute__(obj, "_children").items())
    if isinstance(obj, Namespace):
        return list(vars(obj).items())
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return list(obj.__members__.items())
    if isinstance(obj, type):
        return list(vars(obj).items())
    if isinstance(obj, types.ModuleType):
        return list(vars(obj).items())
    return None


def _search(globals_, match):
    """The shortest dotted path (by breadth) from globals_ to a value for
    which match(value) is true, else None."""
    frontier = []
    for name, v in list(globals_.items()):
        if name.startswith("_"):
            continue
        if match(v):
            return name
        frontier.append((name, v))
    for depth in (2, 3):
        nxt = []
        for prefix, obj in frontier:
            if depth == 3 and isinstance(obj, types.ModuleType) and not _shadow_module(obj):
                continue  # only the NKI modules' submodules are searched three deep
            members = _members(obj)
            if members is None:
                continue
            for name, v in members:
                if not isinstance(name, str) or name.startswith("_"):
                    continue
                path = prefix + "." + name
                if match(v):
                    return path
                nxt.append((path, v))
        frontier = nxt
    return None


def _dtype_key(v):
    """(dtype, stand-in tag) of a dtype-like value, else None."""
    if isinstance(v, np.dtype):
        dt = v
    elif isinstance(v, type) and issubclass(v, np.generic):
        dt = np.dtype(v)
    else:
        return None
    return (dt, _dtypes.standin_name(dt))


def dotted_name(value, globals_):
    """The dotted path by which the kernel module's globals reach value, or
    None."""
    path = _search(globals_, lambda v: v is value)
    if path is not None:
        return path
    key = _dtype_key(value)
    if key is not None:
        return _search(globals_, lambda v: _dtype_key(v) == key)
    return None


def arg_expr(kernel_name, param, value, globals_, module_name):
    """The --arg EXPR for a non-tensor argument and whether it is a dotted
    name (else a literal), or a TypeError."""
    lit = _literal(value)
    if lit is not None:
        return lit, False
    path = dotted_name(value, globals_)
    if path is not None:
        return path, True
    raise TypeError(
        "kernel %s, argument %s=%r: narwhal takes a non-tensor argument as a Python literal "
        "(int, finite float, bool, str, None, or a tuple/list/dict of them) or as a dotted "
        "name of the kernel module's namespace (nl.add, np.add, nisa.reduce_cmd.reset); "
        "this value is neither: make it a name of module %s, or pass a literal"
        % (kernel_name, param, value, module_name))


def write_npz(path, arrays):
    """Writes arrays (name -> ndarray) to an .npz archive, each in its wire
    form. (np.savez takes the names as keyword arguments, so a parameter
    named `file` would clash; this writes the archive itself.)"""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, arr in arrays.items():
            wire = _dtypes.to_wire(np.asarray(arr))
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.ascontiguousarray(wire), allow_pickle=False)


def read_npz(path):
    """name -> array (test code's form) of an .npz narwhal wrote."""
    out = {}
    with np.load(path, allow_pickle=False) as z:
        for name in z.files:
            out[name] = _dtypes.from_wire(z[name])
    return out


class OutputError(RuntimeError):
    """narwhal's outputs do not fit the call (a key the contract does not
    name, or a written parameter of another shape or dtype)."""


def collect(kernel_name, outputs, bound, tensor_params):
    """Writes the written parameters into the caller's arrays in place and
    returns the kernel's return value: outputs['return'], the tuple of
    return0, return1, ..., or None."""
    returns = {}
    for key, arr in outputs.items():
        if key in tensor_params:
            dst = bound[key]
            if dst.shape != arr.shape:
                raise OutputError(
                    "kernel %s wrote parameter %s with shape %s, but the array passed has shape %s"
                    % (kernel_name, key, arr.shape, dst.shape))
            if not _dtypes.same_kind(dst, arr):
                raise OutputError(
                    "kernel %s wrote parameter %s as %s, but the array passed is %s"
                    % (kernel_name, key, _dtype_label(arr.dtype), _dtype_label(dst.dtype)))
            np.copyto(dst, arr.astype(dst.dtype, copy=False) if dst.dtype == np.bool_ else arr)
        elif key == "return" or (key.startswith("return") and key[6:].isdigit()):
            returns[key] = arr
        else:
            raise OutputError(
                "narwhal wrote output %r for kernel %s: neither a return value (return, return0, "
                "...) nor a tensor parameter (%s)" % (key, kernel_name, ", ".join(tensor_params)))
    if not returns:
        return None
    if "return" in returns:
        if len(returns) > 1:
            raise OutputError("kernel %s: outputs hold both `return` and tuple items %s"
                              % (kernel_name, sorted(returns)))
        return returns["return"]
    n = len(returns)
    want = ["return%d" % i for i in range(n)]
    if sorted(returns, key=lambda k: int(k[6:])) != want:
        raise OutputError("kernel %s: tuple outputs %s are not return0 .. return%d"
                          % (kernel_name, sorted(returns), n - 1))
    return tuple(returns[k] for k in want)


def _dtype_label(dt):
    tag = _dtypes.standin_name(dt)
    return tag if tag else str(dt)
