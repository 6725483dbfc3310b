"""nkisim: a drop-in stand-in for NKI's simulator that runs kernels with narwhal.

Put the directory holding this package (python/nkisim of a narwhal
checkout) on PYTHONPATH and the shadow packages beside it, neuronxcc
(neuronxcc.nki, .language, .isa, .compiler, .typing: the legacy API) and
nki (nki.language, .isa, .compiler, .typing, .collectives: the current
API), take the place of NKI's. An @nki.jit kernel called with numpy
arrays, kernel[grid](...), nki.simulate_kernel(kernel, *args),
nki.simulate(kernel)(...), nki.jit(mode="simulation"), nki.baremetal,
nki.benchmark and nki.profile then run the kernel through `narwhal run`
(the contract of ../shared/docs/nki-frontend.md), return numpy arrays and
write output parameters in place. docs/nki-simulator.md is the user's
guide; each module's header says what it does and decides:

    _kernel   the Kernel wrapper, the decorators, the run of one call
    _marshal  arguments -> --inputs/--arg, outputs -> return values and
              in-place writes, the dotted-name search
    _runner   finding narwhal, running it, its errors as exceptions
    _dtypes   the dtype names, the bfloat16/fp8 stand-in, the wire form
    _names    kernel-side names as plain Python sees them
    _api      what each shadow module holds

Python 3 and numpy only (ml_dtypes is used when importable).
"""

from ._dtypes import HAVE_ML_DTYPES
from ._kernel import Kernel, baremetal, benchmark, jit, profile, simulate, simulate_kernel, trace
from ._marshal import OutputError, dotted_name
from ._names import KernelOnly, KernelOnlyError
from ._runner import NarwhalError, NarwhalInternalError, NarwhalNotFoundError, find_narwhal

__all__ = [
    "HAVE_ML_DTYPES", "Kernel", "KernelOnly", "KernelOnlyError", "NarwhalError",
    "NarwhalInternalError", "NarwhalNotFoundError", "OutputError", "baremetal", "benchmark",
    "dotted_name", "find_narwhal", "jit", "profile", "simulate", "simulate_kernel", "trace",
]
