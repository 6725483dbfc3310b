"""Kernels for nkisim's unit tests: the fake narwhal never traces them, so
their bodies only need to be valid Python; what matters is their
signatures and this module's namespace (the dotted-name search)."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki.language import multiply as mul_op

SCALE = 2.0


@nki.jit
def add_out(a, b, c):
    nl.store(c, nl.add(nl.load(a), nl.load(b)))


@nki.jit()
def two_results(x, y):
    return x, y


@nki.jit(mode="simulation")
def with_options(x, scale=1.0, op=nl.add, shape=(2, 2), cmd=nisa.reduce_cmd.idle, dtype=None,
                 name=None):
    return x


def plain(x):
    return x


wrapped = nki.jit(plain)


@nki.baremetal
def bare(x):
    return x


@nki.benchmark(warmup=2, iters=3)
def bench(x):
    return x


@nki.profile
def prof(x):
    return x


@nki.jit
def varargs(*xs):
    return xs


def make_nested():
    @nki.jit
    def inner(x):
        return x

    return inner


def helper_fn(x):
    return x


@nki.jit
def file(file, out):
    """A parameter named like np.savez's own first parameter."""
    nl.store(out, nl.load(file))


_ = (np, mul_op, SCALE)
