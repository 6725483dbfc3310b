"""Statements: every compound and simple statement."""
import a
import a.b.c
import a as b, c.d as e
from a import b
from a.b import c as d, e
from . import x
from .. import y
from ... import z
from .... import w
from .a import b
from ...a.b import (c, d as e)
from a import (b)
from a import *
from . import (a, b,)
global g1, g2
nonlocal n1


@decorator
@decorator.attr(1, x=2)
@(lambda f: f)
@a[0].b
def f(a, b: int, c=1, d: str = "x", *args: int, e, f: float = 2.0, **kwargs: dict) -> "ret":
    """Docstring."""
    return


def g(a, /, b, *, c):
    return a, b


def h(a=1, /, b=2, *c, d, **e):
    return


def i(a, b, /):
    pass


def j(*, a=1, b):
    pass


def k(*args: *Ts):
    pass


async def coro(x):
    await x
    async for i in x:
        pass
    else:
        pass
    async with a as b, c:
        pass
    return [i async for i in x]


@dec
class A:
    x: int = 0

    def m(self):
        return self.x


class B(A, metaclass=M, **kw):
    pass


class C():
    pass


class D(*bases):
    pass


if a:
    pass
elif b:
    pass
elif c:
    pass
else:
    pass

if a: pass
if a: pass; pass
if a:
    pass
else:
    if b:
        pass

for x in y:
    pass
for x, y in z:
    pass
for (x, y) in z:
    pass
for [x, y] in z:
    pass
for x.y in z:
    pass
for x[0] in z:
    pass
for *x, y in z:
    pass
for x, in z:
    break
else:
    continue
for x in y, z:
    pass
for x in *y, z:
    pass

while a:
    pass
while a:
    break
else:
    pass

with a:
    pass
with a as b:
    pass
with a as (b, c):
    pass
with a as [b, c]:
    pass
with a as b.c, d as e[0]:
    pass
with a, b:
    pass
with (a, b):
    pass
with (a, b) as c:
    pass
with (a as b, c as d):
    pass
with (a as b, c as d,):
    pass
with (a):
    pass
with (a) as b:
    pass
with (yield):
    pass
with (a, b), c:
    pass
with (
    open("x") as f,
    open("y") as g,
):
    pass

try:
    pass
except:
    pass

try:
    pass
except E:
    pass
except (E, F) as e:
    pass
except E as e:
    pass
else:
    pass
finally:
    pass

try:
    pass
finally:
    pass

try:
    pass
except* E:
    pass
except* (E, F) as g:
    pass
else:
    pass
finally:
    pass

raise
raise E
raise E("x")
raise E from e
raise E from None
assert x
assert x, y
assert (x, y)
return
return x
return x, y
return *x, y
pass; pass;
x = 1; y = 2
del x
with (a := 1) as b:
    pass
with (a, *b) as c:
    pass
with (a for a in b) as c:
    pass
with (a, b), c as d:
    pass
with (yield x) as y:
    pass
