"""@nki.jit and friends: kernels that run through `narwhal run`.

Kernel wraps a kernel function. Calling it with numpy arrays (positional or
keyword, bound by inspect.signature as Python binds them):

1. writes every numpy.ndarray argument to a temporary in.npz under its
   parameter name, and turns every other argument into ``--arg
   NAME=EXPR`` (_marshal.arg_expr); parameters left out keep their Python
   defaults, which narwhal applies itself;
2. runs ``narwhal run FILE --kernel NAME --inputs in.npz --outputs out.npz
   [--arg ...] [--grid A,B] [--path DIR]...``, where FILE is the source
   file of the function and NAME its name. When FILE imports modules the
   kernel does not need (a test file's unittest or pytest), FILE is
   instead a copy holding only the kernel's slice of the top level
   (_slice), same name and same line numbers, in the call's temporary
   directory, and the original's directory is a --path (its helper
   modules); narwhal's error positions are mapped back to the original.
   The package root is a --path when the kernel's module is inside a
   package (module a.b.c: the directory holding a/), so the kernel
   file's own package imports resolve;
3. copies each written parameter's output into the caller's array in
   place (np.copyto; a different shape or dtype is an OutputError) and
   returns ``return``, the tuple of ``return0``, ``return1``, ..., or None.

``kernel[2, 2]`` (or ``kernel[4]``) is the same kernel launched on that
SPMD grid: ``--grid 2,2``.

Extra narwhal flags: NEURON_PLATFORM_TARGET_OVERRIDE (NKI's variable for
the target) becomes ``--arch VALUE``; NKISIM_FLAGS (split like a shell
line) is appended to every run (``--arch trn2``, ``--max-instructions
N``). NKISIM_KEEP=1 keeps each call's temporary directory and prints its
path and the command on standard error.

Modes: jit's mode= is one of NKI's (auto, simulation, baremetal, benchmark,
profile, jax, torchxla, trace); every one runs the kernel the same way,
with numpy arrays. benchmark and profile run it once and return its
outputs as jit does; the kernel's benchmark_result then exists but has no
latency (narwhal does not measure a device): asking for one raises
NotImplementedError. Other jit/benchmark keyword arguments
(additional_compile_opt, warmup, iters, save_neff_name, ...) are accepted
and ignored.

Kernels must be module-level functions of a .py file. What narwhal traces
of that file is the kernel's slice of its top level (see 2.), so a kernel
may live in its test file beside unittest or pytest.
"""

import functools
import inspect
import os
import shlex
import shutil
import sys
import tempfile

import numpy as np

from . import _marshal, _runner, _slice

MODES = ("auto", "simulation", "baremetal", "benchmark", "profile", "jax", "torchxla", "trace")


class LatencyUnavailable:
    """benchmark_result.nc_latency: narwhal runs kernels in its reference
    interpreter and measures no device latency."""

    def get_latency_percentile(self, percentile):
        raise NotImplementedError(
            "nkisim runs kernels in narwhal's interpreter and measures no device latency "
            "(`narwhal compile FILE.py --kernel NAME --report` gives narwhal's modelled estimate)")


class BenchmarkResult:
    def __init__(self):
        self.nc_latency = LatencyUnavailable()


class Kernel:
    """A kernel function that runs through `narwhal run` when called."""

    def __init__(self, func, mode="auto", options=None, grid=None):
        if isinstance(func, Kernel):
            func = func.func
        if not callable(func) or not hasattr(func, "__code__"):
            raise TypeError("nki.jit decorates a Python function, not %r" % (func,))
        if mode not in MODES:
            raise ValueError("nki.jit: mode=%r is not one of %s" % (mode, ", ".join(MODES)))
        self.func = func
        self.mode = mode
        self.options = dict(options or {})
        self.grid = grid
        self.benchmark_result = None
        functools.update_wrapper(self, func)

    def __repr__(self):
        g = "" if self.grid is None else "[%s]" % ", ".join(map(str, self.grid))
        return "<nki kernel %s%s (nkisim: runs with narwhal)>" % (self.func.__name__, g)

    def __getitem__(self, grid):
        if not isinstance(grid, tuple):
            grid = (grid,)
        for g in grid:
            if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or g < 1:
                raise TypeError("kernel %s[...]: the SPMD grid takes positive ints, not %r"
                                % (self.func.__name__, g))
        return Kernel(self.func, self.mode, self.options, tuple(int(g) for g in grid))

    def __call__(self, *args, **kwargs):
        result = self._launch(args, kwargs)
        if self.mode in ("benchmark", "profile"):
            self.benchmark_result = BenchmarkResult()
        return result

    # ------------------------------------------------------------------

    def _source(self):
        func = self.func
        name = func.__name__
        if func.__qualname__ != name:
            raise TypeError("kernel %s: narwhal traces module-level functions of a file; this one "
                            "is defined inside %s" % (name, func.__qualname__.rsplit(".", 1)[0]))
        file = inspect.getsourcefile(func) or func.__code__.co_filename
        if not file or not file.endswith(".py") or not os.path.isfile(file):
            raise TypeError("kernel %s: narwhal runs kernels from a .py file; this one comes from %r"
                            % (name, func.__code__.co_filename))
        return os.path.abspath(file), name

    def _package_root(self, file):
        mod = getattr(self.func, "__module__", None) or ""
        if "." not in mod or mod == "__main__":
            return None
        up = mod.count(".") + (1 if os.path.basename(file) == "__init__.py" else 0)
        root = os.path.dirname(file)
        for _ in range(up):
            root = os.path.dirname(root)
        return root

    def command(self, args, kwargs, tmp):
        """The narwhal argv (without the binary), the bound arguments, the
        tensor arguments by parameter name, and the traced file's path
        with the original's (they differ when narwhal gets the kernel's
        slice of a test file, _slice)."""
        file, name = self._source()
        sig = inspect.signature(self.func)
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError("kernel %s: narwhal binds parameters by name; *%s is not supported"
                                % (name, p.name))
        bound = sig.bind(*args, **kwargs).arguments  # a TypeError as Python gives
        tensors = {}
        arg_flags = []
        roots = set()
        g = self.func.__globals__
        for param, value in bound.items():
            if isinstance(value, np.ndarray):
                tensors[param] = value
            elif (hasattr(value, "__array__") and hasattr(value, "shape")
                  and not isinstance(value, (type, np.generic))):
                raise TypeError("kernel %s, argument %s: nkisim takes tensors as numpy.ndarray, not %s "
                                "(convert it with np.asarray, or .numpy() for a torch tensor)"
                                % (name, param, type(value).__name__))
            else:
                expr, dotted = _marshal.arg_expr(name, param, value, g, self.func.__module__)
                if dotted:
                    roots.add(expr.split(".", 1)[0])
                arg_flags += ["--arg", "%s=%s" % (param, expr)]
        traced = file
        paths = []
        with open(file, encoding="utf-8") as f:
            sliced = _slice.slice_source(f.read(), name, roots)
        if sliced is not None:
            src_dir = os.path.join(tmp, "src")
            os.makedirs(src_dir, exist_ok=True)
            traced = os.path.join(src_dir, os.path.basename(file))
            with open(traced, "w", encoding="utf-8") as f:
                f.write(sliced)
            paths.append(os.path.dirname(file))  # the kernel's helper modules
        root = self._package_root(file)
        if root:
            paths.append(root)
        argv = ["run", traced, "--kernel", name,
                "--inputs", os.path.join(tmp, "in.npz"), "--outputs", os.path.join(tmp, "out.npz")]
        argv += arg_flags
        if self.grid is not None:
            argv += ["--grid", ",".join(str(n) for n in self.grid)]
        for p in paths:
            argv += ["--path", p]
        target = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
        if target:
            argv += ["--arch", target]
        extra = os.environ.get("NKISIM_FLAGS")
        if extra:
            argv += shlex.split(extra)
        return argv, bound, tensors, (traced, file)

    def _launch(self, args, kwargs):
        tmp = tempfile.mkdtemp(prefix="nkisim-")
        keep = bool(os.environ.get("NKISIM_KEEP"))
        try:
            argv, bound, tensors, (traced, file) = self.command(args, kwargs, tmp)
            in_path, out_path = argv[argv.index("--inputs") + 1], argv[argv.index("--outputs") + 1]
            _marshal.write_npz(in_path, tensors)
            if keep:
                sys.stderr.write("nkisim: %s: narwhal %s\n" % (tmp, " ".join(shlex.quote(a) for a in argv)))
            try:
                _runner.run(argv)
            except _runner.NarwhalError as e:
                if traced != file:
                    _runner.rename_file(e, traced, file)
                raise
            outputs = _marshal.read_npz(out_path) if os.path.exists(out_path) else {}
            return _marshal.collect(self.func.__name__, outputs, bound, tensors)
        finally:
            if not keep:
                shutil.rmtree(tmp, ignore_errors=True)


def _decorator(name, default_mode):
    def deco(func=None, mode=None, **options):
        m = default_mode if mode is None else mode
        if func is None:
            return lambda f: Kernel(f, m, options)
        return Kernel(func, m, options)

    deco.__name__ = deco.__qualname__ = name
    deco.__doc__ = "nki.%s: wraps a kernel that runs through `narwhal run` (nkisim)." % name
    return deco


jit = _decorator("jit", "auto")
baremetal = _decorator("baremetal", "baremetal")
benchmark = _decorator("benchmark", "benchmark")
profile = _decorator("profile", "profile")
trace = _decorator("trace", "trace")


def as_kernel(kernel):
    return kernel if isinstance(kernel, Kernel) else Kernel(kernel, "simulation")


def simulate_kernel(kernel, *args, **kwargs):
    """nki.simulate_kernel(kernel, *args, **kwargs): runs the kernel (an
    @nki.jit kernel, a grid launch kernel[A, B], or a plain function) with
    numpy arrays and returns its outputs."""
    return as_kernel(kernel)(*args, **kwargs)


def simulate(kernel):
    """nki.simulate(kernel) (the current API): a callable that runs it."""
    k = as_kernel(kernel)

    @functools.wraps(k.func)
    def run(*args, **kwargs):
        return k(*args, **kwargs)

    return run
