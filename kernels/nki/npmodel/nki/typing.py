"""nki.typing of the numpy model: nt.tensor[shape] annotations (NKI 0.3 update guide)."""
from nki._model import _TensorType

tensor = _TensorType()
