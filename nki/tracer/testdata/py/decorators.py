import functools
calls = []
def trace(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        calls.append(fn.__name__)
        return fn(*args, **kwargs)
    return wrapper
@trace
def add(a, b=1):
    "adds"
    return a + b
print(add(1), add(2, b=3), add.__name__, add.__doc__, add.__wrapped__(5), calls)
def repeat(n):
    def deco(fn):
        def w(*a):
            return [fn(*a) for _ in range(n)]
        return w
    return deco
@repeat(3)
def hello(x):
    return "hi " + x
print(hello("you"))
def register(registry):
    def deco(fn):
        registry[fn.__name__] = fn
        return fn
    return deco
REG = {}
@register(REG)
def k1(): return 1
@register(REG)
def k2(): return 2
print(sorted(REG), REG["k2"]())
class Deco:
    def __init__(self, fn):
        self.fn = fn
        self.n = 0
    def __call__(self, *a):
        self.n += 1
        return self.fn(*a) * 10
@Deco
def f(x):
    return x
print(f(1), f(2), f.n)
def class_deco(cls):
    cls.extra = "added"
    return cls
@class_deco
class C:
    pass
print(C.extra)
@functools.lru_cache(maxsize=None)
def slow_fib(n):
    calls.append(n)
    return n if n < 2 else slow_fib(n - 1) + slow_fib(n - 2)
calls.clear()
print(slow_fib(30), len(calls))
@functools.cache
def sq(n):
    calls.append(n)
    return n * n
calls.clear()
print(sq(3), sq(3), sq(4), calls)
