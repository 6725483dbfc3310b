"""neuronxcc.nki (the legacy NKI API) for test code, from nkisim: @nki.jit
kernels called with numpy arrays run through `narwhal run`
(docs/nki-simulator.md)."""

from nkisim._kernel import Kernel, baremetal, benchmark, jit, profile, simulate, simulate_kernel, trace
from nkisim._names import module_getattr as _module_getattr

from . import compiler, isa, language, typing

__all__ = ["jit", "baremetal", "benchmark", "profile", "trace", "simulate_kernel", "simulate",
           "language", "isa", "compiler", "typing"]

__getattr__ = _module_getattr(__name__, globals())
