"""ncc.sbuf of the numpy model: every placement means "SBUF"."""
from neuronxcc.nki._model import Placement, _use


def mod_alloc(*, base_addr, base_partition=0, num_par_tiles=(), num_free_tiles=()):
    _use("ncc.sbuf.mod_alloc")
    return Placement("sbuf")


def alloc(func):
    _use("ncc.sbuf.alloc")
    return Placement("sbuf", func)


def auto_alloc():
    return Placement("sbuf")
