"""nki.isa of the numpy model (kernels/nki/npmodel/nki/_model.py)."""
from nki._model import (  # noqa: F401
    engine, reduce_cmd, dge_mode, oob_mode, matmul_perf_mode, nc_version, dma_engine,
    tensor_engine, vector_engine, scalar_engine, gpsimd_engine, unknown_engine,
    NkiValidationError, VirtualRegister, get_nc_version,
    dma_copy, dma_transpose, dma_compute, tensor_copy, memset, iota, nc_matmul, nc_transpose,
    activation, activation_reduce, tensor_tensor, tensor_scalar, scalar_tensor_tensor, tensor_reduce,
    tensor_partition_reduce, tensor_tensor_scan, tensor_scalar_reduce, tensor_scalar_cumulative,
    range_select, select_reduce, tensor_copy_predicated, max8, nc_find_index8, nc_match_replace8,
    nc_stream_shuffle, local_gather, sequence_bounds, bn_stats, bn_aggr, reciprocal, affine_select,
    register_alloc, register_move, register_load, register_store,
)
