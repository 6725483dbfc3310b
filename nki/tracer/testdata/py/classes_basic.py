class Point:
    dims = 2
    def __init__(self, x, y=0):
        self.x = x
        self.y = y
    def norm2(self):
        return self.x ** 2 + self.y ** 2
    def __repr__(self):
        return f"Point({self.x}, {self.y})"
    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)
    def __add__(self, other):
        return Point(self.x + other.x, self.y + other.y)
    def __mul__(self, k):
        return Point(self.x * k, self.y * k)
    __rmul__ = __mul__
p = Point(3, 4)
print(p, p.norm2(), p.dims, Point.dims, p == Point(3, 4), p != Point(0), p + Point(1, 1), p * 2, 3 * p)
p.z = 5
print(p.z, hasattr(p, "z"), getattr(p, "w", None), vars(p), type(p).__name__, isinstance(p, Point))
Point.dims = 3
print(p.dims, Point(1).dims)
class Base:
    kind = "base"
    def __init__(self):
        self.log = ["Base"]
    def who(self):
        return "Base.who"
    def call(self):
        return self.who()
class Derived(Base):
    kind = "derived"
    def __init__(self):
        super().__init__()
        self.log.append("Derived")
    def who(self):
        return "Derived.who+" + super().who()
d = Derived()
print(d.log, d.call(), d.kind, Base.kind, isinstance(d, Base), issubclass(Derived, Base), Derived.__mro__)
print(Derived.__name__, Derived.__bases__, type(d) is Derived, Base.who(d))
try:
    hash(p)
except TypeError as e:
    print("TypeError:", e)
