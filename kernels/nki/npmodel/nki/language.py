"""nki.language of the numpy model (kernels/nki/npmodel/nki/_model.py)."""
from nki._model import (  # noqa: F401
    bool_, int8, int16, int32, uint8, uint16, uint32, float16, float32, bfloat16, tfloat32,
    float8_e4m3, float8_e5m2, float8_e4m3fn,
    sbuf, psum, hbm, private_hbm, shared_hbm, tile_size, NKIObject,
    ndarray, zeros, shared_constant, shared_identity_matrix, ds, device_print,
    affine_range, sequential_range, static_range, dynamic_range, program_id, num_programs, program_ndim,
    add, subtract, multiply, divide, maximum, minimum, power, max, min, equal, not_equal, greater,
    greater_equal, less, less_equal, exp, log, sqrt, rsqrt, tanh, sigmoid, relu, gelu, silu, square, copy,
    abs, bypass,
)
from nki._model import _reciprocal_op as reciprocal  # noqa: F401,E402
from nki._model import Tensor as NkiTensor  # noqa: F401
