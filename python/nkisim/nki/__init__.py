"""nki (the current NKI API, NKI 0.2+) for test code, from nkisim: @nki.jit
kernels called with numpy arrays, nki.simulate(kernel)(...) and
nki.simulate_kernel run through `narwhal run` (docs/nki-simulator.md)."""

from nkisim._kernel import Kernel, baremetal, benchmark, jit, profile, simulate, simulate_kernel, trace
from nkisim._names import module_getattr as _module_getattr

from . import collectives, compiler, isa, language, typing

__all__ = ["jit", "simulate", "simulate_kernel", "baremetal", "benchmark", "profile", "trace",
           "language", "isa", "compiler", "typing", "collectives"]

__getattr__ = _module_getattr(__name__, globals())
