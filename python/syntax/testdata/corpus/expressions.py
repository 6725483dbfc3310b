# Expressions: every precedence level, associativity and context.
a = b or c or d and e and not f
a = not not x
a = x if y else z if w else v
a = lambda: 0
a = lambda x, /, y=1, *args, z, w=2, **kw: (x, y, z)
a = lambda *, k: k
a = lambda *a: a
a = -x ** -y
a = (-x) ** y
a = x ** y ** z
a = ~x + +y - -z
a = x | y ^ z & w << 2 >> 3
a = x + y * z / w // v % u @ t
a = (x + y) * z
a = ((x))
a = (x).y
a = (x)(y)
a = (x)[y]
a = x < y > z == w != v <= u >= t
a = x is y is not z in w not in v
a = await_ = 1
a = x.y.z(1)(2)[3][4:5]
a = x[1:2, ::3, ...]
a = x[:]
a = x[::]
a = x[1:]
a = x[:2]
a = x[::2]
a = x[1,]
a = x[()]
a = x[*y]
a = x[1, *y]
a = x[a:=1]
a = f(*args, **kwargs)
a = f(a, *b, c=1, *d, **e, f=2)
a = f(x for x in y)
a = f((x for x in y), z)
a = f(a)(b)(c)
a = f(
    a,
    b,
)
a = [*x, *y, z]
a = {**x, 'a': 1, **y}
a = {*x, 1}
a = (*x, *y)
a = *x, *y
a = 1,
a = x, y,
a = [x for x in y for z in w if z if w]
a = {x for x in y}
a = {x: y for x, y in z}
a = (x for x in y)
a = [x async for x in y]
a = [(yield)]
a = (yield x)
a = [y := 1, y ** 2]
if (n := len(a)) > 10:
    pass
while chunk := f.read():
    pass
a = 0x1F + 0o17 + 0b1010 + 1_000_000 + 0_0 + 00
a = 1.5 + 1e10 + 1E-5 + .5 + 5. + 1_0.0_1 + 1e+16 + 1e15 + 1e400 + 0.1 + 123456789012345678.0
a = 1j + 1.5J + 1e3j + 0j
a = 123456789012345678901234567890
a = None, True, False, ...
a = x.y, x.y.z
a = x[0].y[1](2).z
a.b = 1
a[0] = 1
a.b[c].d = 1
(a) = 1
(a, b) = 1, 2
[a, b] = 1, 2
[a, [b, c]] = x
a, = x
a, *b, c = x
(*a,) = x
[*a] = x
() = x
[] = x
a = b = c = d
a += 1; b -= 1; c *= 1; d /= 1; e //= 1; f %= 1; g **= 1
h @= 1; i &= 1; j |= 1; k ^= 1; l <<= 1; m >>= 1
a.b += 1
a[1] += 1
(a) += 1
a: int
a: int = 1
(a): int = 1
a.b: int
a[0]: int = 1
a: tuple[int, ...] = ()
x = yield
x = yield 1, 2
x = yield from y
x = await y
del a
del a, b
del a,
del (a, b)
del [a, b]
del a.b, a[0], (a)
del (a), [b]
print(a if b else c, end='')
x = a.if_ if a else b
x = [1, 2, 3,]
x = {1: 2, 3: 4,}
x = f(**{'a': 1})
x = not a == b
x = -1
x = - 1
x = +-~1
x = a if not b else c
x = a and (b or c)
x = (a and b) or c
x = lambda: (yield)
x = [i for i in range(10) if i % 2 if i % 3]
x = [[j for j in range(i)] for i in range(3)]
x = {i: {j for j in i} for i in x}
x = (a for b in c for d in e)
x = sorted(a, key=lambda t: t[1], reverse=True)
x = a[b][c:d][e, f:g:h]
x = x [ 1 ] . y
x = 1 .real
x = 1.0.real
x = 1j.imag
x = 0xff.real
x = ...
