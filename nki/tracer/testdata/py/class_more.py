class Shape:
    registry = {}
    def __init_subclass_hook(cls):
        pass
    def area(self):
        raise NotImplementedError(f"{type(self).__name__}.area")
    def describe(self):
        return f"{type(self).__name__} with area {self.area():.2f}"
class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h
    def area(self):
        return self.w * self.h
class Square(Rect):
    def __init__(self, s):
        super().__init__(s, s)
class Circle(Shape):
    def __init__(self, r):
        self.r = r
    def area(self):
        import math
        return math.pi * self.r ** 2
shapes = [Rect(2, 3), Square(2), Circle(1)]
print([s.describe() for s in shapes], [isinstance(s, Rect) for s in shapes])
try:
    Shape().describe()
except NotImplementedError as e:
    print("NotImplementedError:", e)
class Num:
    def __init__(self, v):
        self.v = v
    def __add__(self, o):
        if isinstance(o, Num):
            return Num(self.v + o.v)
        if isinstance(o, int):
            return Num(self.v + o)
        return NotImplemented
    def __radd__(self, o):
        return Num(o + self.v)
    def __iadd__(self, o):
        self.v += o.v if isinstance(o, Num) else o
        return self
    def __repr__(self):
        return f"Num({self.v})"
    def __eq__(self, o):
        return isinstance(o, Num) and self.v == o.v
    def __hash__(self):
        return hash(self.v)
    def __index__(self):
        return self.v
    def __float__(self):
        return float(self.v)
    def __int__(self):
        return self.v
n = Num(1)
print(n + Num(2), n + 3, 4 + n, sum([Num(1), Num(2)]), [10, 20, 30][Num(1)], float(Num(3)), int(Num(4)), range(Num(3)))
n += 5
print(n, n == Num(6), {Num(6): "six"}[Num(6)])
try:
    n + "x"
except TypeError as e:
    print("TypeError:", e)
class Cmp:
    def __init__(self, v):
        self.v = v
    def __lt__(self, o):
        return self.v < o.v
    def __repr__(self):
        return f"C{self.v}"
print(sorted([Cmp(3), Cmp(1), Cmp(2)]), min(Cmp(5), Cmp(4)), Cmp(1) < Cmp(2), Cmp(3) > Cmp(2))
