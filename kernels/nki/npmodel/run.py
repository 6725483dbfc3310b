#!/usr/bin/env python3
"""Runs every case of kernels/nki/golden/manifest.json in the numpy model of
its API (neuronxcc/nki/_model.py for the legacy cases, nki/_model.py for
the current ones, beside this file) and compares the outputs with the
goldens, as the Go harness does with narwhal; then requires every
current-API twin's outputs equal, value for value, to its legacy case's.

This checks the suites themselves, without narwhal: that each kernel does
what its docstring says (refgen.py computes the goldens from the
docstrings), that every element a kernel returns was written (the models
read unwritten memory as NaN, and reading it is an error), that the
documented operand rules hold, and that the tolerances are not too tight
for a float32 evaluation. It is not the reference (refgen.py is) and not a
simulator of the machine (see the models' module comments). A package
case is imported by its dotted module name under its path roots, so that
its package imports resolve.

  /usr/bin/python3 kernels/nki/npmodel/run.py [CASE...]
  /usr/bin/python3 kernels/nki/npmodel/run.py --readme check|update

Exit status 1 when a case or a twin comparison fails; one line per case.
With --readme, after running every case, the case and coverage tables of
kernels/nki/README.md (between its coverage markers: every name of issue
24 item 3 for the legacy suite, of issue 25 items 1 and 2 for the current
one, and the kernels that use it) are checked against what the run
recorded, or rewritten; a name no kernel uses fails the check.
"""
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from neuronxcc.nki import _model  # noqa: E402
from nki import _model as _cmodel  # noqa: E402  (the current API's model)


def load_module(path, name, roots=None):
    """The kernel file as a module: a file of a package (under one of the
    --path roots) by its dotted name, so that its relative and absolute
    package imports resolve; any other file by its location."""
    for root in roots or ():
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            if root not in sys.path:
                sys.path.insert(0, root)
            return importlib.import_module(rel[:-3].replace(os.sep, "."))
    spec = importlib.util.spec_from_file_location("npmodel_case_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Out:
    """A kernel output of the current-API model, shaped like the legacy
    model's tensors for the comparison below."""

    def __init__(self, t):
        self.arr, self._dtype = _cmodel.values_of(t)


def run_case(c, golden_dir, results=None):
    """Returns (ok, message); results[c["name"]] gets the outputs' values."""
    g = np.load(os.path.join(golden_dir, os.path.basename(c["golden"])))
    current = c.get("api") == "current"
    _model.CASE[0] = c["kernel"]
    _cmodel.CASE[0] = c["kernel"]
    roots = [os.path.join(SUITE, p) for p in (c.get("path") or [])]
    mod = load_module(os.path.join(SUITE, c["file"]), c["name"], roots)
    fn = getattr(mod, c["kernel"])
    tensors = {}
    for inp in c["inputs"]:
        vals = np.asarray(g["in." + inp["name"]], dtype=np.float64)
        if current:
            tensors[inp["name"]] = _cmodel.hbm_input(inp["name"], inp["dtype"], vals)
        else:
            tensors[inp["name"]] = _model.T(_model.rnd(inp["dtype"], vals), inp["dtype"], "hbm")
    call = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in tensors:
            call.append(tensors[p.name])
        elif p.name in c["args"]:
            call.append(eval(c["args"][p.name], vars(mod)))
        elif p.default is not inspect.Parameter.empty:
            call.append(p.default)
        else:
            return False, "parameter %s has no input, --arg or default" % p.name
    result = (_cmodel if current else _model).run_grid(fn, call, c["grid"])
    got = {}
    if isinstance(result, tuple):
        for i, t in enumerate(result):
            got["return%d" % i] = t
    elif result is not None:
        got["return"] = result
    for o in c["outputs"]:
        if o["key"] in tensors:
            got[o["key"]] = tensors[o["key"]]
    if current:
        got = {k: _Out(t) for k, t in got.items()}
    if results is not None:
        results[c["name"]] = {k: t.arr for k, t in got.items()}
    notes = []
    tol = c["tolerance"]
    for o in c["outputs"]:
        t = got.get(o["key"])
        if t is None:
            return False, "no output %s (have %s)" % (o["key"], ", ".join(sorted(got)))
        if t._dtype != o["dtype"]:
            return False, "output %s: dtype %s, want %s" % (o["key"], t._dtype, o["dtype"])
        if list(t.arr.shape) != o["shape"]:
            return False, "output %s: shape %s, want %s" % (o["key"], list(t.arr.shape), o["shape"])
        want = np.asarray(g["out." + o["key"]], dtype=np.float64)
        have = t.arr
        if np.isnan(have).any():
            idx = np.argwhere(np.isnan(have))[0]
            return False, "output %s: element %s never written (%d such)" % (o["key"], list(idx), np.isnan(have).sum())
        err = np.abs(have - want)
        bound = tol["abs"] + tol["rel"] * np.abs(want)
        if (err > bound).any():
            idx = np.argwhere(err > bound)[0]
            return False, "output %s: element %s = %r, want %r (%d outside abs %g rel %g)" % (
                o["key"], list(idx), have[tuple(idx)], want[tuple(idx)], (err > bound).sum(), tol["abs"], tol["rel"])
        rel = np.max(err / np.maximum(np.abs(want), 1e-30)) if err.size else 0.0
        notes.append("%s max abs %.3g rel %.3g" % (o["key"], err.max() if err.size else 0.0, rel))
    return True, "; ".join(notes)


def same_outputs(a, b):
    """(ok, message): the twin b gives the legacy kernel a's outputs, value
    for value (the model's float64 values; NaN nowhere)."""
    if sorted(a) != sorted(b):
        return False, "outputs %s, the legacy twin has %s" % (sorted(b), sorted(a))
    for k in sorted(a):
        if a[k].shape != b[k].shape:
            return False, "output %s: shape %s, the legacy twin's %s" % (k, b[k].shape, a[k].shape)
        diff = np.argwhere(~((a[k] == b[k]) | (np.isnan(a[k]) & np.isnan(b[k]))))
        if diff.size:
            i = tuple(diff[0])
            return False, "output %s differs at %s: %r, the legacy twin %r (%d elements)" % (k, list(i), b[k][i], a[k][i], len(diff))
    return True, "identical to the legacy twin: " + ", ".join(sorted(a))


# --- coverage -----------------------------------------------------------------

# The names of issue 24 item 3, in its order, each with the key the model
# records it under (a str) or a static check of the kernel's source (a
# function of (kernel info) -> bool). The README table lists every one.
def _static(pattern):
    rx = re.compile(pattern)
    return lambda k: bool(rx.search(k["body"]))


REQUIRED = [
    ("kernel parameters as HBM tensors", lambda k: k["has_tensor_params"]),
    ("nl.ndarray", "nl.ndarray"), ("nl.zeros", "nl.zeros"), ("nl.ones", "nl.ones"), ("nl.full", "nl.full"),
    ("nl.zeros_like", "nl.zeros_like"), ("nl.empty_like", "nl.empty_like"),
    ("buffer=nl.sbuf", "buffer=nl.sbuf"), ("buffer=nl.psum", "buffer=nl.psum"), ("buffer=nl.hbm", "buffer=nl.hbm"),
    ("buffer=nl.shared_hbm", "buffer=nl.shared_hbm"), ("buffer=nl.private_hbm", "buffer=nl.private_hbm"),
    ("nl.par_dim", "nl.par_dim"),
    (".shape", ".shape"), (".dtype", ".dtype"), (".reshape", ".reshape"), (".broadcast_to", ".broadcast_to"),
    (".view", ".view"),
    ("indexing by ints", "indexing by ints"), ("indexing by slices", "indexing by slices"),
    ("indexing by ...", "indexing by ..."),
    ("nl.arange(n)[:, None] grids", _static(r"nl\.arange\([^()]*\)\[:, None\]")),
    ("nl.mgrid", "nl.mgrid"), ("nl.mgrid .p/.x/.y", "nl.mgrid fields .p/.x/.y"),
    ("affine index arithmetic with loop iterators and program ids",
     _static(r"\w+ \* \w+ \+ (nl\.arange|i_\w+|\w+\.[pxy]\b)")),
    ("nl.ds", "nl.ds"), ("mask=", "mask="),
    ("tile operator +", "tile operator +"), ("tile operator -", "tile operator -"),
    ("tile operator *", "tile operator *"), ("tile operator /", "tile operator /"),
    ("tile operator unary -", "tile operator unary -"),
    ("nl.load", "nl.load"), ("nl.store", "nl.store"), ("nl.load_transpose2d", "nl.load_transpose2d"),
    ("nl.copy", "nl.copy"),
] + [("nl." + n, "nl." + n) for n in (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "exp", "log", "sqrt", "rsqrt", "square",
    "abs", "negative", "tanh", "sigmoid", "relu", "gelu", "silu", "reciprocal", "equal", "greater", "less",
    "where", "bitwise_and")] + [
    ("type promotion of mixed dtypes", "type promotion of mixed dtypes"),
    ("weakly typed scalars", "weakly typed scalar operand"),
] + [("nl.%s (axis=)" % n, "nl.%s" % n) for n in ("sum", "mean", "max", "min", "prod")] + [
    ("reductions with keepdims=True", lambda k: any(("nl.%s keepdims=True" % n) in k["uses"] for n in ("sum", "mean", "max", "min", "prod"))),
    ("nl.matmul", "nl.matmul"), ("nl.matmul transpose_x=True", "nl.matmul transpose_x=True"),
    ("nl.transpose", "nl.transpose"),
] + [("nisa." + n, "nisa." + n) for n in (
    "nc_matmul", "nc_transpose", "activation", "tensor_tensor", "tensor_scalar", "tensor_reduce", "tensor_copy",
    "tensor_partition_reduce", "tensor_tensor_scan", "memset", "iota", "affine_select", "bn_stats", "bn_aggr",
    "reciprocal", "dma_copy", "dma_transpose")] + [
    ("nisa.activation bias=", "nisa.activation bias="), ("nisa.activation scale=", "nisa.activation scale="),
    ("numpy ufuncs as ops (np.add, ...)", "numpy ufuncs as ops"),
    ("nl.affine_range", "nl.affine_range"), ("nl.sequential_range", "nl.sequential_range"),
    ("nl.static_range", "nl.static_range"), ("range", _static(r"\bin range\(")),
    ("nl.program_id", "nl.program_id"), ("nl.num_programs", "nl.num_programs"),
    ("nl.program_ndim", "nl.program_ndim"), ("--grid", lambda k: bool(k["grid"])),
] + [("nl.tile_size." + n, "nl.tile_size." + n) for n in (
    "pmax", "psum_fmax", "gemm_stationary_fmax", "gemm_moving_fmax", "bn_stats_fmax")] + [
    ("ncc.sbuf.mod_alloc", "ncc.sbuf.mod_alloc"), ("ncc.psum.mod_alloc", "ncc.psum.mod_alloc"),
    ("ncc.sbuf.alloc", "ncc.sbuf.alloc"),
    ("@nki.jit", lambda k: k["style"] == "@nki.jit"),
    ("@nki.jit(mode=...)", lambda k: k["style"] == "@nki.jit(...)"),
    ("nki.jit(f) wrapping", lambda k: k["style"] == "nki.jit(f)"),
    ("plain function", lambda k: k["style"] == "plain"),
    ("nki.trace", lambda k: k["style"] == "nki.trace"),
    ("nki.simulate_kernel", lambda k: k["simulated"]),
    ("neuronxcc.nki.typing", _static(r": tensor\[")),
    ("non-tensor parameters from --arg", lambda k: k["args"]),
    ("non-tensor parameters with defaults", lambda k: k["has_defaults"]),
    ("helper functions of the file", lambda k: k["calls_helper"]),
]


def kernel_info(c, uses):
    """What the static checks look at for case c's kernel."""
    path = os.path.join(SUITE, c["file"])
    src = open(path).read()
    lines = src.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("def %s(" % c["kernel"]))
    end = start + 1
    while end < len(lines) and (not lines[end] or lines[end][0] in " \t)"):
        end += 1
    body = "\n".join(lines[start:end])
    deco = lines[start - 1] if start else ""
    if re.search(r"^%s = nki\.jit\(%s\)" % (c["kernel"], c["kernel"]), src, re.M):
        style = "nki.jit(f)"
    elif deco.startswith("@nki.jit("):
        style = "@nki.jit(...)"
    elif deco.startswith("@nki.jit"):
        style = "@nki.jit"
    elif deco.startswith("@trace") or deco.startswith("@nki.trace"):
        style = "nki.trace"
    else:
        style = "plain"
    helpers = re.findall(r"^def (_\w+)\(", src, re.M)
    header = lines[start]
    return {
        "body": body, "style": style, "uses": uses, "grid": c["grid"], "args": bool(c["args"]),
        "has_tensor_params": bool(c["inputs"]),
        "has_defaults": "=" in header,
        "simulated": bool(re.search(r"simulate_kernel\(nki\.jit\(%s\)" % c["kernel"], src)),
        "calls_helper": any(re.search(r"\b%s\(" % h, body) for h in helpers),
    }


def coverage_table(cases):
    kernels = {}
    for c in cases:
        uses = {name for name, who in _model.COVER.items() if c["kernel"] in who}
        info = kernel_info(c, uses)
        k = kernels.setdefault(c["kernel"], info)
        k["uses"] |= uses
        k["args"] = k["args"] or info["args"]
        k["grid"] = k["grid"] or info["grid"]
    rows, missing = [], []
    for name, how in REQUIRED:
        who = [k for k, info in kernels.items() if (how in info["uses"] if isinstance(how, str) else how(info))]
        if not who:
            missing.append(name)
        rows.append("| `%s` | %s |" % (name, _kernel_list(who)))
    masked = sorted(n[len("mask= on "):] for n in _model.COVER if n.startswith("mask= on "))
    case_rows = []
    for c in cases:
        args = ", ".join("%s=%s" % kv for kv in sorted(c["args"].items())) or "-"
        grid = ",".join(map(str, c["grid"])) if c["grid"] else "-"
        tol = c["tolerance"]
        case_rows.append("| %s | %s `%s` | %s | %s | %s | %g / %g |" % (
            c["name"], c["file"], c["kernel"], "`%s`" % args if args != "-" else "-", grid,
            ", ".join(o["key"] for o in c["outputs"]), tol["abs"], tol["rel"]))
    table = ("### Cases (%d, %d kernels)\n\n" % (len(cases), len(kernels))
             + "| case | kernel | --arg | --grid | outputs | abs / rel |\n|---|---|---|---|---|---|\n"
             + "\n".join(case_rows) + "\n\n### Coverage\n\n"
             + "| name (issue 24 item 3) | kernels |\n|---|---|\n" + "\n".join(rows) + "\n\n"
             + "APIs called with `mask=`: " + ", ".join("`%s`" % n for n in masked) + ".\n")
    return table, missing


# --- coverage of the current API (issue 25 item 1, and item 2 for the package) ---

def _file_static(pattern):
    rx = re.compile(pattern, re.M)
    return lambda k: any(rx.search(src) for src in k["sources"])


def _body_static(pattern):
    rx = re.compile(pattern, re.M)
    return lambda k: bool(rx.search(k["body"]))


REQUIRED_CURRENT = [
    ("import nki", _file_static(r"^import nki$")),
    ("nki.language as nl", _file_static(r"^import nki\.language as nl$")),
    ("nki.isa as nisa", _file_static(r"^import nki\.isa as nisa$")),
    ("nki.typing (nt.tensor[...] annotations)", _body_static(r"nt\.tensor\[")),
    ("nki.collectives (one rank)", "nki.collectives"),
    ("nisa.*(dst, ...): destination first, positional", "dst positional"),
    ("nisa.*(dst=..., ...): keyword forms", "dst keyword"),
    ("slices", "slices"), ("nl.ds", "nl.ds"), ("indexing by ints", "indexing by ints"),
    (".ap(pattern=[[step, num], ...])", ".ap(pattern)"), (".ap offset=", ".ap offset="),
    (".ap scalar_offset=", ".ap scalar_offset="), (".ap vector_offset=", ".ap vector_offset="),
    (".ap indirect_dim=", ".ap indirect_dim="), (".reshape", ".reshape"),
] + [("nl.ndarray(shape, dtype, buffer=nl.%s)" % b, "buffer=nl." + b) for b in
     ("sbuf", "psum", "hbm", "private_hbm", "shared_hbm")] + [
    ("nl.ndarray(..., address=(partition, byte))", "address=(partition, byte)"),
] + [("nisa." + n, "nisa." + n) for n in (
    "scalar_tensor_tensor", "tensor_scalar_reduce", "activation_reduce", "range_select", "select_reduce",
    "tensor_copy_predicated", "max8", "nc_find_index8", "nc_match_replace8", "nc_stream_shuffle", "local_gather",
    "dma_compute", "sequence_bounds", "tensor_scalar_cumulative", "register_alloc", "register_load",
    "register_store")] + [
    ("nl.dynamic_range (a runtime loop)", "nl.dynamic_range"),
    ("nl.dynamic_range with register bounds", "dynamic_range with register bounds"),
    ("while on a register (a runtime loop)", "while on a register"),
    ("nisa.get_nc_version", "nisa.get_nc_version"),
    ("nisa.reduce_cmd", "nisa.reduce_cmd"), ("nisa.oob_mode", "nisa.oob_mode"), ("nisa.dge_mode", "nisa.dge_mode"),
    ("nisa.dma_engine", _file_static(r"nisa\.dma_engine\.")),
    ("engine selectors (nisa.engine.*, nisa.*_engine)", "engine selectors"),
    ("nl.shared_identity_matrix", "nl.shared_identity_matrix"), ("nl.shared_constant", "nl.shared_constant"),
    ("Python-consistent loop semantics", _body_static(r"# python-loop:")),
] + [("nisa." + n, "nisa." + n) for n in (
    "dma_copy", "dma_transpose", "tensor_copy", "memset", "iota", "nc_matmul", "nc_transpose", "activation",
    "tensor_tensor", "tensor_scalar", "tensor_reduce", "tensor_partition_reduce", "tensor_tensor_scan",
    "bn_stats", "bn_aggr", "reciprocal", "affine_select")] + [
    ("nl.affine_range", "nl.affine_range"), ("nl.sequential_range", "nl.sequential_range"),
    ("nl.static_range", "nl.static_range"), ("range", _body_static(r"\bin range\(")),
    ("nl.program_id / nl.num_programs / nl.program_ndim (--grid)", lambda k: bool(k["grid"]) and "nl.program_id" in k["uses"]),
    ("non-tensor parameters from --arg (literals and dotted names)", lambda k: k["args"]),
    ("@nki.jit", lambda k: k["style"] == "@nki.jit"),
    ("plain function", lambda k: k["style"] == "plain"),
]

# Issue 25 item 2, over the package modules a package kernel imports.
REQUIRED_PACKAGE = [
    ("from pkg.mod import name (absolute)", _file_static(r"^from narwhal_kernels\.[\w.]+ import ")),
    ("from .mod import name (relative)", _file_static(r"^from \.+[\w.]* import ")),
    ("classes with methods", _file_static(r"^class \w+(\(.*\))?:\n(    .*\n|\n)*?    def \w+\(self")),
    ("@dataclass (fields, defaults)", _file_static(r"^@dataclass\nclass \w+.*:\n(    .*\n|\n)*?    \w+: [\w.\[\], ]+ = ")),
    ("__post_init__", _file_static(r"def __post_init__\(self\)")),
    ("enum.Enum", _file_static(r"^class \w+\(Enum\):")),
    ("nl.NKIObject subclasses", _file_static(r"^class \w+\(nl\.NKIObject\):")),
    ("@staticmethod", _file_static(r"^    @staticmethod$")),
    ("@property", _file_static(r"^    @property$")),
    ("isinstance", _file_static(r"\bisinstance\(")),
    ("is / is not", _file_static(r" is not |\bis (ActivationKind|NormKind|MaskKind|nisa)\.")),
    ("list methods (append, ...)", _file_static(r"\.append\(")),
    ("dict methods (get, items, ...)", _file_static(r"\.(get|items)\(")),
    ("exceptions with messages", _file_static(r"raise \w+\(f?\"")),
    ("typing annotations", _file_static(r"-> (List|Optional|Dict|Tuple|str|int|bool|float)\b|: (List|Optional|Dict|Tuple)\[")),
]


def _package_sources(c):
    """The sources of c's kernel file and of every package module it imports,
    transitively (a package kernel), or just its file."""
    path = os.path.join(SUITE, c["file"])
    roots = [os.path.join(SUITE, p) for p in (c.get("path") or [])]
    seen, todo, out = set(), [path], []
    while todo:
        p = todo.pop()
        if p in seen or not os.path.exists(p):
            continue
        seen.add(p)
        src = open(p).read()
        out.append(src)
        for root in roots:
            pkg_dir = os.path.dirname(p)
            for m in re.finditer(r"^from (\.*)([\w.]*) import ([\w, ]+)", src, re.M):
                dots, mod, names = m.group(1), m.group(2), m.group(3)
                if dots:
                    base = pkg_dir
                    for _ in range(len(dots) - 1):
                        base = os.path.dirname(base)
                elif mod.startswith("narwhal_kernels"):
                    base = root
                else:
                    continue
                target = os.path.join(base, *mod.split(".")) if mod else base
                cands = [target + ".py"] + [os.path.join(target, n.strip() + ".py") for n in names.split(",")]
                todo += [q for q in cands if os.path.exists(q)]
    return out


def kernel_info_current(c, uses):
    info = kernel_info(c, uses)
    info["sources"] = _package_sources(c)
    info["package"] = bool(c.get("path"))
    return info


def current_tables(cases):
    kernels = {}
    for c in cases:
        uses = {name for name, who in _cmodel.COVER.items() if c["kernel"] in who}
        info = kernel_info_current(c, uses)
        k = kernels.setdefault(c["kernel"], info)
        k["uses"] |= uses
        k["args"] = k["args"] or info["args"]
        k["grid"] = k["grid"] or info["grid"]
    missing = []

    def rows_of(required, pool):
        rows = []
        for name, how in required:
            who = [k for k, info in pool.items() if (how in info["uses"] if isinstance(how, str) else how(info))]
            if not who:
                missing.append(name)
            rows.append("| `%s` | %s |" % (name, _kernel_list(who)))
        return rows
    item1 = rows_of(REQUIRED_CURRENT, kernels)
    item2 = rows_of(REQUIRED_PACKAGE, {k: v for k, v in kernels.items() if v["package"]})
    case_rows = []
    for c in cases:
        args = ", ".join("%s=%s" % kv for kv in sorted(c["args"].items())) or "-"
        grid = ",".join(map(str, c["grid"])) if c["grid"] else "-"
        tol = c["tolerance"]
        case_rows.append("| %s | %s `%s` | %s | %s | %s | %s | %g / %g |" % (
            c["name"], c["file"], c["kernel"], "`%s`" % args if args != "-" else "-", grid,
            ", ".join(o["key"] for o in c["outputs"]), c.get("twin") or "-", tol["abs"], tol["rel"]))
    twins = sum(1 for c in cases if c.get("twin"))
    table = ("### Cases (%d, %d kernels, %d twins of legacy cases)\n\n" % (len(cases), len(kernels), twins)
             + "| case | kernel | --arg | --grid | outputs | legacy twin | abs / rel |\n|---|---|---|---|---|---|---|\n"
             + "\n".join(case_rows) + "\n\n### Coverage of the current API\n\n"
             + "| name (issue 25 item 1) | kernels |\n|---|---|\n" + "\n".join(item1) + "\n\n"
             + "### Coverage of the package (pkg/narwhal_kernels)\n\n"
             + "| name (issue 25 item 2) | package kernels |\n|---|---|\n" + "\n".join(item2) + "\n")
    return table, missing


def _kernel_list(who, shown=8):
    who = sorted(who)
    if not who:
        return "**none**"
    if len(who) <= shown:
        return ", ".join(who)
    return "%s and %d more (%d kernels)" % (", ".join(who[:shown]), len(who) - shown, len(who))


BEGIN, END = "<!-- coverage:begin (npmodel/run.py --readme update) -->", "<!-- coverage:end -->"
BEGIN_CURRENT = "<!-- coverage-current:begin (npmodel/run.py --readme update) -->"
END_CURRENT = "<!-- coverage-current:end -->"


def _splice(text, begin, end, table):
    if begin not in text or end not in text:
        return None
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + table + end + tail


def readme(mode, cases):
    path = os.path.join(SUITE, "README.md")
    text = open(path).read()
    table, missing = coverage_table([c for c in cases if c.get("api", "legacy") == "legacy"])
    table_cur, missing_cur = current_tables([c for c in cases if c.get("api") == "current"])
    missing += missing_cur
    new = _splice(text, BEGIN, END, table)
    new = new and _splice(new, BEGIN_CURRENT, END_CURRENT, table_cur)
    if new is None:
        print("README.md has no coverage markers")
        return 1
    status = 0
    if missing:
        print("names no kernel uses: " + ", ".join(missing))
        status = 1
    if mode == "update":
        with open(path, "w") as f:
            f.write(new)
        print("README.md coverage table rewritten")
    elif new != text:
        print("README.md's coverage table is out of date: run npmodel/run.py --readme update")
        status = 1
    return status


def main(argv):
    golden_dir = os.path.join(SUITE, "golden")
    with open(os.path.join(golden_dir, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    mode = None
    if argv[:1] == ["--readme"]:
        mode, argv = argv[1], argv[2:]
    if argv:
        cases = [c for c in cases if c["name"] in argv]
    failed = 0
    results = {}
    for c in cases:
        try:
            ok, msg = run_case(c, golden_dir, results)
        except Exception:  # a kernel bug: report and go on
            tb = traceback.extract_tb(sys.exc_info()[2])
            where = ["%s:%d" % (os.path.basename(fr.filename), fr.lineno) for fr in tb[-4:]]
            ok, msg = False, "%s: %s (at %s)" % (type(sys.exc_info()[1]).__name__, str(sys.exc_info()[1])[:200], " < ".join(reversed(where)))
        failed += not ok
        print("%s %-32s %s" % ("ok  " if ok else "FAIL", c["name"], msg))
    for c in cases:
        if c.get("twin") and c["name"] in results and c["twin"] in results:
            ok, msg = same_outputs(results[c["twin"]], results[c["name"]])
            failed += not ok
            print("%s %-32s %s" % ("ok  " if ok else "FAIL", "twin " + c["name"], msg + " (vs " + c["twin"] + ")"))
    print("%d cases, %d failed" % (len(cases), failed))
    if mode and not failed:
        return readme(mode, cases)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
