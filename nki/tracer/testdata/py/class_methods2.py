class Shape:
    count = 0
    def __init__(self, name):
        self.name = name
        Shape.count += 1
    @classmethod
    def from_dims(cls, *dims):
        obj = cls("x".join(map(str, dims)))
        obj.dims = dims
        return obj
    @staticmethod
    def numel(dims):
        n = 1
        for d in dims:
            n *= d
        return n
    def size(self):
        return self.numel(self.dims)
class Box(Shape):
    @classmethod
    def from_dims(cls, *dims):
        obj = super().from_dims(*dims)
        obj.kind = "box"
        return obj
b = Box.from_dims(2, 3, 4)
print(b.name, b.dims, b.size(), b.kind, type(b).__name__, Shape.count, Shape.numel((5, 5)), b.numel([2]))
s = Shape.from_dims(7)
print(s.name, s.size(), hasattr(s, "kind"), Shape.count, Box.count)
class WithLambda:
    transform = staticmethod(lambda v: v + 100)
    scale = lambda self, v: v * 3
w = WithLambda()
print(w.transform(1), WithLambda.transform(2), w.scale(4), WithLambda.scale(w, 5))
class Chain:
    def __init__(self):
        self.ops = []
    def add(self, n):
        self.ops.append(("add", n))
        return self
    def mul(self, n):
        self.ops.append(("mul", n))
        return self
    def run(self, v):
        for op, n in self.ops:
            v = v + n if op == "add" else v * n
        return v
print(Chain().add(2).mul(3).add(1).run(1))
class Outer:
    class Inner:
        def hello(self):
            return "inner hello"
    def make(self):
        return self.Inner()
print(Outer().make().hello(), Outer.Inner.__qualname__, type(Outer.Inner()).__name__)
