"""neuronxcc.nki.language of the numpy model (see _model.py)."""
from neuronxcc.nki._model import *  # noqa: F401,F403
from neuronxcc.nki._model import LANGUAGE_NAMES as _names

__all__ = list(_names)
