"""A kernel-like module: the grammar ordinary kernels use."""
import numpy as np
import neuronxcc.nki.language as nl
from neuronxcc import nki
from . import sibling
from ..pkg.mod import (a, b as c,)


@nki.jit
def tensor_add(a_input, b_input, *, scale: float = 1.0) -> None:
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.arange(128)[:, None]
    iy = nl.arange(512)[None, :]
    for i in nl.affine_range(a_input.shape[0] // 128):
        a_tile = nl.load(a_input[i * 128 + ix, iy], mask=(i * 128 + ix < a_input.shape[0]))
        b_tile = nl.load(b_input[i * 128:(i + 1) * 128, :])
        c_tile = a_tile + b_tile * scale - -1 ** 2
        nl.store(c_output[i, ...], value=c_tile)
    x = y = 3
    x += 1
    x, *rest = [1, 2, 3]
    z: int = 5
    w = {"a": 1, **kw}
    s = {1, 2}
    t = (1,)
    u = ()
    v = f"x={x!r:>10} {y}"
    lam = lambda q, r=2, *a, k, **kw: q + r
    comp = [i * j for i in range(3) if i for j in range(i)]
    gen = sum(i for i in range(10))
    d = {k: v for k, v in zip(a, b)}
    if x < y <= z and not w or x is not None:
        pass
    elif x in y and x not in z:
        x = 1 if y else 2
    else:
        del x, y[0], z.w
    while True:
        break
    else:
        continue
    assert x, "message"
    return c_output @ w
