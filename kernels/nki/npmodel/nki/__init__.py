"""nki of the numpy model (kernels/nki/npmodel/nki/_model.py): the current
NKI API, for checking narwhal's kernel suite only. Not the Neuron SDK."""
from nki._model import jit, simulate  # noqa: F401
from nki import language, isa, typing, collectives  # noqa: F401
