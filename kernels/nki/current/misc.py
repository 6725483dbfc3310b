"""The rest of the current `nki` API the suite covers: nl.shared_constant,
nki.collectives on one rank, enum-typed kernel parameters given as --arg
dotted names, and nki.typing annotations.

Part of narwhal's own current-API NKI suite (kernels/nki/README.md):
written here for the `nki` package, checked against kernels/nki/refgen.py.
"""
import numpy as np

import nki
import nki.collectives as ncc
import nki.isa as nisa
import nki.language as nl
import nki.typing as nt


@nki.jit
def shared_constant_scale(x):
    """For a [128, F] float32 x returns x * (p / 8) row by row (p the row):
    the [128, 1] column p / 8 is a trace-time numpy array made an HBM
    tensor by nl.shared_constant (NKI 0.3's signature takes the array
    alone; see kernels/nki/README.md on the 0.2 form), copied to SBUF and
    used as tensor_scalar's vector operand."""
    parts, free = x.shape
    scales = nl.shared_constant(np.arange(parts, dtype=np.float32).reshape(parts, 1) / 8)
    col = nl.ndarray((parts, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=col, src=scales)
    xt = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    nisa.tensor_scalar(dst=xt, data=xt, op0=nl.multiply, operand0=col)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=xt)
    return out


@nki.jit
def collectives_single_rank(x):
    """nki.collectives on a replica group of one rank, which one core runs:
    for a [R, C] float32 x returns (all_reduce with nl.add, all_gather along
    dimension 0, reduce_scatter with nl.maximum along dimension 0), each of
    x alone, so each equal to x. The collective tensors are named
    shared_hbm tensors, as the collectives' examples make them. A group of
    several ranks needs several devices: narwhal refuses it."""
    group = ncc.ReplicaGroup([[0]])
    src = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm, name="cc_src")
    nisa.dma_copy(dst=src, src=x)
    reduced = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm, name="cc_reduced")
    gathered = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm, name="cc_gathered")
    scattered = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm, name="cc_scattered")
    ncc.all_reduce(srcs=[src], dsts=[reduced], replica_group=group, op=nl.add)
    ncc.all_gather(srcs=[src], dsts=[gathered], replica_group=group, collective_dim=0)
    ncc.reduce_scatter(srcs=[src], dsts=[scattered], replica_group=group, collective_dim=0, op=nl.maximum)
    return reduced, gathered, scattered


# The multiplier engine_selectors applies for each copy engine: keyed by the
# member's name (the current API's dicts take string keys only: migration
# guide, "Dictionaries support only string keys").
ENGINE_FACTOR = {"vector": 1.0, "scalar": 2.0, "gpsimd": 3.0}


@nki.jit
def engine_selectors(x, copy_engine=nisa.engine.vector, dge=nisa.dge_mode.unknown):
    """Enum members as kernel parameters: for a [128, F] float32 x returns x *
    ENGINE_FACTOR[copy_engine.name]. copy_engine (a nisa.engine member, --arg
    copy_engine=nisa.engine.gpsimd) runs the tensor_copy; dge (a
    nisa.dge_mode member) the input's dma_copy. Both are checked at trace
    time with isinstance and `is`."""
    assert isinstance(copy_engine, nisa.engine) and isinstance(dge, nisa.dge_mode)
    assert copy_engine is not nisa.engine.tensor, "tensor_copy does not run on the Tensor Engine"
    parts, free = x.shape
    xt = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x, dge_mode=dge)
    work = nl.ndarray((parts, free), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=work, src=xt, engine=copy_engine)
    nisa.tensor_scalar(dst=work, data=work, op0=nl.multiply, operand0=ENGINE_FACTOR[copy_engine.name])
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=work)
    return out


@nki.jit
def typed_scale(x: nt.tensor[128, 256], w: nt.tensor[128, 1]) -> nl.NkiTensor:
    """nki.typing annotations on the tensor parameters (nt.tensor[shape], the
    NKI 0.3 update guide) and a return annotation, ignored at run time as
    Python ignores them: returns x * w (w one column, broadcast along the
    free axis) for [128, 256] float32 x and [128, 1] w."""
    xt = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    wt = nl.ndarray(w.shape, dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    nisa.dma_copy(dst=wt, src=w)
    nisa.tensor_scalar(dst=xt, data=xt, op0=nl.multiply, operand0=wt)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=xt)
    return out
