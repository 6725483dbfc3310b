"""neuronxcc.nki.isa of the numpy model (see _model.py)."""
from neuronxcc.nki._model import (  # noqa: F401
    nc_matmul, nc_transpose, activation, tensor_tensor, tensor_scalar, tensor_reduce,
    tensor_copy, tensor_partition_reduce, tensor_tensor_scan, memset, iota, affine_select,
    bn_stats, bn_aggr, isa_reciprocal as reciprocal, dma_copy, dma_transpose,
    vector_engine, scalar_engine, gpsimd_engine, tensor_engine, unknown_engine)
