"""ncc.psum of the numpy model: every placement means "PSUM"."""
from neuronxcc.nki._model import Placement, _use


def mod_alloc(*, base_bank, base_addr=0, base_partition=0, num_bank_tiles=(), num_par_tiles=(), num_free_tiles=()):
    _use("ncc.psum.mod_alloc")
    return Placement("psum")


def alloc(func):
    _use("ncc.psum.alloc")
    return Placement("psum", func)


def auto_alloc():
    return Placement("psum")
