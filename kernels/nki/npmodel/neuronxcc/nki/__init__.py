"""neuronxcc.nki of the numpy model (kernels/nki/npmodel/model.py)."""
from neuronxcc.nki._model import jit, trace, simulate_kernel  # noqa: F401
from neuronxcc.nki import language, isa, compiler, typing  # noqa: F401
