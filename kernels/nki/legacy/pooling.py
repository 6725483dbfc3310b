"""Pooling with nl.mgrid access patterns: 2-D average and max pooling over
[C, H, W] tensors (C on the partitions, each window a pair of extra free
axes reduced away), and 1-D pooling through an mgrid's .p/.x/.y fields.

Part of narwhal's own legacy-API NKI suite (kernels/nki/README.md): written
here for the neuronxcc.nki API, checked against kernels/nki/refgen.py.
The kernels use the older nki.trace decorator through an alias, as the
Neuron SDK's API tests do.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

trace = nki.trace


def _windows(tile, channels, out_h, out_w, k):
    """The [C, out_h, out_w, k, k] view of a [C, H, W] tile whose last two
    axes run over each k x k window (stride k)."""
    i_c, i_h, i_w, i_kh, i_kw = nl.mgrid[0:channels, 0:out_h, 0:out_w, 0:k, 0:k]
    return tile[i_c, i_h * k + i_kh, i_w * k + i_kw]


@trace
def avg_pool2d(in_tensor, pool_size=2):
    """For a [C, H, W] float32 tensor (C <= 128, H and W multiples of
    pool_size) returns the [C, H/k, W/k] means over the non-overlapping
    k x k windows (k = pool_size), with nl.mean over the two window axes."""
    c, h, w = in_tensor.shape
    oh, ow = h // pool_size, w // pool_size
    out = nl.ndarray((c, oh, ow), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    t = nl.load(in_tensor)
    pooled = nl.mean(_windows(t, c, oh, ow, pool_size), axis=[3, 4])
    nl.store(out, value=pooled)
    return out


@trace
def max_pool2d(in_tensor, pool_size=3):
    """For a [C, H, W] float32 tensor (C <= 128, H and W multiples of
    pool_size) returns the [C, H/k, W/k] maxima over the non-overlapping
    k x k windows (k = pool_size), with nl.max over the two window axes."""
    c, h, w = in_tensor.shape
    oh, ow = h // pool_size, w // pool_size
    out = nl.ndarray((c, oh, ow), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    t = nl.load(in_tensor)
    pooled = nl.max(_windows(t, c, oh, ow, pool_size), axis=(3, 4))
    nl.store(out, value=pooled)
    return out


@trace
def pool1d_min_prod(x, window=4):
    """For a [128, W] float32 tensor (W a multiple of window) returns
    (min, prod), the [128, W/window] minimum and product of each run of
    window consecutive columns, through an nl.mgrid whose .p, .x and .y
    fields index partition, window and position in the window."""
    parts, w = x.shape
    n = w // window
    t = nl.load(x)
    g = nl.mgrid[0:parts, 0:n, 0:window]
    win = t[g.p, g.x * window + g.y]
    mn = nl.min(win, axis=[2])
    pr = nl.prod(win, axis=[2], keepdims=True)
    min_out = nl.ndarray((parts, n), dtype=x.dtype, buffer=nl.shared_hbm)
    prod_out = nl.ndarray((parts, n, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(min_out, value=mn)
    nl.store(prod_out, value=pr)
    return min_out, prod_out
