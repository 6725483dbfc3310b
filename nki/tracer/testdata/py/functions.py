def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, kw)
print(f(1, c=3), f(1, 5, 6, 7, c=8, e=9), f(*[1, 2, 3], c=0, **{"d": 5, "z": 6}))
def pos_only(a, b, /, c, *, d):
    return a + b + c + d
print(pos_only(1, 2, 3, d=4), pos_only(1, 2, c=3, d=4))
def defaults(x, acc=[]):
    acc.append(x)
    return acc
print(defaults(1), defaults(2), defaults(3, []))
def varkw(**opts):
    return sorted(opts.items())
print(varkw(b=2, a=1), varkw())
def star_only(*, key="k"):
    return key
print(star_only(), star_only(key="v"))
def rec(n):
    return 1 if n <= 1 else n * rec(n - 1)
print(rec(20), rec(1))
def fib(n, memo={}):
    if n < 2:
        return n
    if n not in memo:
        memo[n] = fib(n - 1) + fib(n - 2)
    return memo[n]
print(fib(80))
sq = lambda v: v * v
print(sq(7), (lambda *a, **k: (a, k))(1, x=2), f.__name__, sq.__name__, rec.__qualname__)
def doc():
    "the doc"
    return None
print(doc.__doc__, doc(), f.__defaults__)
def outer():
    def inner():
        return "inner"
    return inner
print(outer()(), outer().__qualname__)
