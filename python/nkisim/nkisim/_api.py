"""The contents of the shadow modules (neuronxcc.nki.* and nki.*).

Each shadow module calls one builder here with its own name and merges the
result into its globals; module_getattr (package _names) covers any public
name not listed. What plain Python gets from them:

* dtypes (package _dtypes): numpy types, ml_dtypes types or the stand-in;
* nl.tile_size: pmax 128, psum_fmax 512, gemm_stationary_fmax 128,
  gemm_moving_fmax 512, bn_stats_fmax 512, psum_min_align 4,
  sbuf_min_align 32, total_available_sbuf_size 180224 (narwhal's
  nki/api values; the constants NKI documents for trn1/trn2 tiles);
* nl.fp32.min, nl.bfp16.min (the most negative finite values);
* nl.par_dim(n): n, an int;
* nl.NKIObject: a class kernels' helper objects subclass;
* the isa enums (current API: engine, reduce_cmd, dge_mode, oob_mode,
  matmul_perf_mode, nc_version, dma_engine) as enum.Enum classes with the
  members NKI lists, and the engine names (nisa.tensor_engine, ...);
* nki.typing names as annotations, ncc's decorators as pass-throughs;
* everything else (nl.load, nl.add, nl.affine_range, nisa.nc_matmul, the
  buffers nl.sbuf/psum/hbm/shared_hbm/private_hbm, nl.mgrid, ...) as
  KernelOnly names: importable, passable as arguments (by name), an error
  when plain Python calls them.
"""

import enum

from . import _dtypes
from ._names import Annotation, Namespace, kernel_only, par_dim, passthrough

# nl names that only run inside kernels (legacy and current API).
LANGUAGE_OPS = """
load store load_transpose2d atomic_rmw ndarray zeros zeros_like ones full empty_like
rand random_seed shared_constant shared_identity_matrix
add subtract multiply divide power maximum minimum max min mean var sum prod all any
abs negative sign trunc floor ceil exp log cos sin tan tanh arctan sqrt rsqrt
sigmoid relu gelu gelu_dx gelu_apprx_tanh gelu_apprx_sigmoid silu silu_dx erf erf_dx
softplus mish square softmax rms_norm dropout matmul transpose reciprocal copy
bitwise_and bitwise_or bitwise_xor invert left_shift right_shift
equal not_equal greater greater_equal less less_equal
logical_and logical_or logical_xor logical_not
mod fmod static_cast arange mgrid expand_dims where ds broadcast_to gather_flattened
affine_range sequential_range static_range dynamic_range tile_range
program_id num_programs program_ndim spmd_dim nc device_print loop_reduce all_reduce
finfo gemm_grid gemm_stationary_grid
sbuf psum hbm shared_hbm private_hbm
""".split()

# nisa instructions (legacy and current API).
ISA_OPS = """
nc_matmul nc_matmul_mx nc_transpose activation activation_reduce tensor_reduce
tensor_partition_reduce tensor_tensor tensor_tensor_scan scalar_tensor_tensor tensor_scalar
tensor_scalar_reduce tensor_scalar_cumulative tensor_copy tensor_copy_dynamic_src
tensor_copy_dynamic_dst tensor_copy_predicated iota memset dropout affine_select
range_select select_reduce bn_stats bn_aggr local_gather nc_find_index8 max8
nc_match_replace8 nc_stream_shuffle nc_n_gather dma_copy dma_transpose dma_compute
reciprocal exponential sequence_bounds register_alloc register_load register_store
register_move builtin_custom_op get_nc_version quantize_mx
""".split()

TILE_SIZE = dict(pmax=128, psum_fmax=512, gemm_stationary_fmax=128, gemm_moving_fmax=512,
                 bn_stats_fmax=512, psum_min_align=4, sbuf_min_align=32,
                 total_available_sbuf_size=192 * 1024 - 16 * 1024)


class NKIObject:
    """nl.NKIObject: the base class of kernels' helper objects."""


def language(modname):
    d = kernel_only(modname, LANGUAGE_OPS)
    d.update(_dtypes.dtype_names())
    d["tile_size"] = Namespace("nl.tile_size", **TILE_SIZE)
    d["fp32"] = Namespace("nl.fp32", min=-3.4028234663852886e38)
    d["bfp16"] = Namespace("nl.bfp16", min=-3.3895313892515355e38)
    d["par_dim"] = par_dim
    d["NKIObject"] = NKIObject
    return d


def _enum(modname, name, members):
    e = enum.Enum(name, [(m, i) for i, m in enumerate(members)], module=modname,
                  qualname=name)
    return e


def isa(modname, current):
    d = kernel_only(modname, ISA_OPS)
    engines = ["tensor", "vector", "scalar", "gpsimd", "dma", "sync", "unknown"]
    eng = _enum(modname, "engine", engines)
    d["reduce_cmd"] = _enum(modname, "reduce_cmd", ["idle", "reset", "reduce", "reset_reduce", "load_reduce"])
    d["dge_mode"] = _enum(modname, "dge_mode", ["unknown", "swdge", "hwdge", "none"])
    d["oob_mode"] = _enum(modname, "oob_mode", ["error", "skip"])
    d["matmul_perf_mode"] = _enum(modname, "matmul_perf_mode", ["none", "double_row"])
    d["nc_version"] = _enum(modname, "nc_version", ["gen2", "gen3", "gen4"])
    for e in ("tensor", "vector", "scalar", "gpsimd", "unknown"):
        d[e + "_engine"] = eng[e]
    if current:
        d["engine"] = eng
        d["dma_engine"] = _enum(modname, "dma_engine", ["dma", "gpsimd_dma"])
        d["NkiValidationError"] = type("NkiValidationError", (Exception,), {"__module__": modname})
        d["VirtualRegister"] = type("VirtualRegister", (NKIObject,), {"__module__": modname})
    else:
        d["dma_engine"] = eng["dma"]
    return d


def compiler(modname):
    d = kernel_only(modname, ["sbuf", "psum"])
    for n in ("skip_middle_end_transformations", "enable_stack_allocator", "force_auto_alloc"):
        d[n] = passthrough("ncc." + n)
    return d


def typing(modname):
    return {n: Annotation("nt." + n) for n in ("tensor", "mutable_tensor", "shared", "private", "scalar")}
