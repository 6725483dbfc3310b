"""neuronxcc.nki.compiler of the numpy model: placements are recorded, not modelled."""
from neuronxcc.nki.compiler import sbuf, psum  # noqa: F401
