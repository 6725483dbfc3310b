import sys
g = dict(globals())
print("sys" in g, g["__name__"], sorted(k for k in g if not k.startswith("_"))[:3], "g" in globals())
def f(a, b=2):
    c = a + b
    return sorted(locals().items())
print(f(1))
T = type("T", (object,), {"x": 1, "double": lambda self: self.x * 2})
t = T()
print(T.__name__, t.x, t.double(), isinstance(t, T), type(t) is T, T.__bases__)
print(sys.version_info >= (3, 8), sys.version_info[0], sys.version_info.major, sys.maxsize > 2 ** 31, type(sys.platform).__name__)
print(getattr(t, "x"), setattr(t, "y", 5), t.y, delattr(t, "y"), hasattr(t, "y"))
print(callable(T), callable(t), callable(t.double), type(t.double).__name__, type(f).__name__, type(len).__name__)
print(f.__name__, f.__defaults__, f.__module__, T.__module__, int.__module__ if hasattr(int, "__module__") else "builtins")
class P:
    def __init__(self):
        self.q = 1
print(vars(P()), P().__dict__, "q" in dir(P()), type(P.__dict__).__name__ if False else "mappingproxy-skipped")
