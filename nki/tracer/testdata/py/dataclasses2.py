from dataclasses import dataclass, field, InitVar, fields
@dataclass
class Tensor:
    shape: tuple
    dtype: str = "fp32"
    scale: InitVar[float] = 1.0
    numel: int = field(init=False)
    def __post_init__(self, scale):
        n = 1
        for s in self.shape:
            n *= s
        self.numel = int(n * scale)
t = Tensor((2, 3))
print(t, t.numel, Tensor((4,), scale=0.5).numel, [f.name for f in fields(Tensor)])
@dataclass(kw_only=True)
class Opts:
    a: int
    b: int = 2
print(Opts(a=1), Opts(b=3, a=4))
try:
    Opts(1)
except TypeError as e:
    print("TypeError:", e)
@dataclass
class Node:
    val: int
    children: list = field(default_factory=list)
    def add(self, v):
        self.children.append(Node(v))
        return self
root = Node(1).add(2).add(3)
print(root, len(root.children), root.children[0] == Node(2), Node(1) == 1)
@dataclass(eq=False)
class Ident:
    x: int
print(Ident(1) == Ident(1), hash(Ident(1)) != 0)
@dataclass(unsafe_hash=True)
class H:
    x: int
print(hash(H(3)) == hash(H(3)), {H(1), H(1), H(2)} == {H(1), H(2)})
@dataclass
class Point:
    x: float
    y: float
    def __add__(self, o):
        return Point(self.x + o.x, self.y + o.y)
print(Point(1, 2) + Point(0.5, 0.5), repr(Point(1, 2)), str(Point(3, 4)))
try:
    @dataclass
    class Bad:
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError:", e)
