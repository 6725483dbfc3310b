"""Finding narwhal, running it, and turning its errors into exceptions.

Finding the binary (find_narwhal), first match wins:

1. the environment variable NARWHAL: the path of a narwhal binary (an
   error if it names no executable file);
2. ``narwhal`` on PATH;
3. built once from the narwhal repository this package lives in
   (python/nkisim/ of a checkout: the directory two levels above the
   package holding go.mod of module github.com/narwhal-compiler/narwhal):
   ``go build -o CACHE/narwhal ./cmd/narwhal``, where CACHE is
   $NKISIM_CACHE_DIR, else $XDG_CACHE_HOME/nkisim, else ~/.cache/nkisim,
   with a subdirectory per checkout. It is built on the first kernel call
   of a Python process and reused for the rest of the process; the next
   process runs go build again, which Go's build cache makes cheap when
   nothing changed, so the binary never lags the checkout.

Errors: narwhal exits 1 for a mistake in the kernel or its inputs and
prints one line ``narwhal run: error[NWxxx]: FILE:LINE:COL: MESSAGE
(narwhal explain NWxxx)`` (docs/errors.md); the position is there when the
mistake has one. Exit 2 is narwhal's own fault (``internal error[NW900]``).
run() raises NarwhalError (a RuntimeError) carrying code, file, line,
column and message as data. For NW420, a Python exception raised while
tracing the kernel (``AssertionError: ...``), the raised exception is also
an instance of that builtin exception class, as NKI's simulator raises it
from the kernel: ``pytest.raises(AssertionError)`` around a kernel call
whose assert fails works unchanged.
"""

import builtins
import hashlib
import os
import re
import shutil
import subprocess
import sys


class NarwhalError(RuntimeError):
    """narwhal rejected the kernel or its inputs (exit status 1).

    Attributes: code ('NW420'), file, line, column (None when the error has
    no source position), message (the text after the position), kind (the
    Python exception class name for NW420, else None), command (the argv
    run), stderr (all of narwhal's standard error)."""

    def __init__(self, text, code=None, file=None, line=None, column=None, message=None,
                 kind=None, command=None, stderr=""):
        super().__init__(text)
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message if message is not None else text
        self.kind = kind
        self.command = command
        self.stderr = stderr


class NarwhalInternalError(NarwhalError):
    """narwhal failed through its own fault (exit status 2, NW900)."""


class NarwhalNotFoundError(RuntimeError):
    """No narwhal binary: see find_narwhal."""


_ERROR_LINE = re.compile(r"error\[(NW\d+)\][:,] (.*)$")
_POSITION = re.compile(r"^(?:.*?: )??(\S+?\.py):(\d+):(\d+): (.*)$")
_KIND = re.compile(r"^([A-Z][A-Za-z0-9_]*): (.*)$")
_EXPLAIN = re.compile(r" \(narwhal explain NW\d+\)$")

# Builtin exceptions whose class can be combined with RuntimeError (same
# instance layout); others (OSError's family, ...) stay plain NarwhalError.
_mixed = {}


def _error_class(base, kind):
    if kind is None:
        return base
    exc = getattr(builtins, kind, None)
    if not (isinstance(exc, type) and issubclass(exc, Exception)) or issubclass(exc, base):
        return base
    key = (base, exc)
    if key not in _mixed:
        try:
            _mixed[key] = type("Kernel" + kind, (base, exc), {"__module__": __name__})
        except TypeError:  # instance lay-out conflict
            _mixed[key] = base
    return _mixed[key]


def parse_error(stderr, returncode, command=None):
    """The exception for a failed narwhal run (its stderr and exit status)."""
    line = None
    for text in stderr.splitlines():
        if _ERROR_LINE.search(text):
            line = text
            break
    base = NarwhalInternalError if returncode == 2 else NarwhalError
    cmd = " ".join(command) if command else "narwhal"
    if line is None:
        tail = stderr.strip().splitlines()[-1:] or ["(no message)"]
        return base("%s exited with status %d: %s" % (cmd, returncode, tail[0]),
                    command=command, stderr=stderr)
    m = _ERROR_LINE.search(line)
    code, rest = m.group(1), _EXPLAIN.sub("", m.group(2))
    file = lineno = col = None
    msg = rest
    p = _POSITION.match(rest)
    if p:
        file, lineno, col, msg = p.group(1), int(p.group(2)), int(p.group(3)), p.group(4)
    kind = None
    if code == "NW420":
        k = _KIND.match(msg)
        if k:
            kind = k.group(1)
    cls = _error_class(base, kind)
    return cls(line.strip(), code=code, file=file, line=lineno, column=col, message=msg,
               kind=kind, command=command, stderr=stderr)


def rename_file(err, traced, original):
    """Rewrites a NarwhalError about the traced copy of a kernel file to
    name the original (same lines: the copy keeps every line in place)."""
    if err.file is not None and os.path.abspath(err.file) == os.path.abspath(traced):
        err.file = original
    err.message = err.message.replace(traced, original)
    err.stderr = err.stderr.replace(traced, original)
    err.args = tuple(a.replace(traced, original) if isinstance(a, str) else a for a in err.args)


# ---------------------------------------------------------------------------
# Finding the binary.

_MODULE_LINE = "module github.com/narwhal-compiler/narwhal"
_built = {}  # repository root -> built binary, for this process


def repository_root():
    """The narwhal checkout this package lives in, or None."""
    here = os.path.dirname(os.path.abspath(__file__))  # .../python/nkisim/nkisim
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    gomod = os.path.join(root, "go.mod")
    try:
        with open(gomod) as f:
            first = f.readline().strip()
    except OSError:
        return None
    return root if first == _MODULE_LINE else None


def cache_dir():
    d = os.environ.get("NKISIM_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "nkisim")
    return d


def find_narwhal():
    """The narwhal binary to run: $NARWHAL, else narwhal on PATH, else one
    built from this package's checkout (see the module comment)."""
    env = os.environ.get("NARWHAL")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise NarwhalNotFoundError("NARWHAL=%s is not an executable file" % env)
        return env
    on_path = shutil.which("narwhal")
    if on_path:
        return on_path
    root = repository_root()
    if root is None:
        raise NarwhalNotFoundError(
            "no narwhal binary: set NARWHAL to its path or put narwhal on PATH "
            "(this nkisim is not inside a narwhal checkout, so it cannot build one)")
    if root in _built:
        return _built[root]
    go = shutil.which("go")
    if go is None:
        raise NarwhalNotFoundError(
            "no narwhal binary: NARWHAL is unset, narwhal is not on PATH, and go is not "
            "installed to build it from %s" % root)
    tag = hashlib.sha256(root.encode()).hexdigest()[:12]
    out_dir = os.path.join(cache_dir(), tag)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "narwhal.exe" if os.name == "nt" else "narwhal")
    proc = subprocess.run([go, "build", "-o", out, "./cmd/narwhal"], cwd=root,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise NarwhalNotFoundError("building narwhal (go build -o %s ./cmd/narwhal in %s) failed:\n%s"
                                   % (out, root, proc.stderr.strip()))
    _built[root] = out
    return out


# The lines `narwhal run` prints for each input and output tensor
# (cmd/narwhal/run.go: "input  NAME  DTYPE [SHAPE]  ORIGIN", "output NAME
# DTYPE [SHAPE]  sha256:...  PATH"); the rest of its standard output is the
# kernel's own print() output.
_SUMMARY = re.compile(r"^(?:input  |output )\S+  \S+ \[[0-9 ]*\]  ")


def kernel_output(stdout):
    """narwhal run's standard output less its tensor summary lines, unless
    NKISIM_VERBOSE is set."""
    if os.environ.get("NKISIM_VERBOSE"):
        return stdout
    return "".join(line for line in stdout.splitlines(True) if not _SUMMARY.match(line))


def run(argv):
    """Runs narwhal with argv (without the binary); the kernel's print()
    output goes to sys.stdout, and a failure raises NarwhalError."""
    binary = find_narwhal()
    command = [binary] + list(argv)
    proc = subprocess.run(command, capture_output=True, text=True)
    out = kernel_output(proc.stdout)
    if out:
        sys.stdout.write(out)
    if proc.returncode != 0:
        raise parse_error(proc.stderr, proc.returncode, command)
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    return proc
