from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass
@dataclass
class Tile:
    rows: int
    cols: int = 128
    name: str = "t"
    tags: list = field(default_factory=list)
    def size(self):
        return self.rows * self.cols
t = Tile(4)
print(t, t.size(), t == Tile(4), t == Tile(5), t.tags, Tile(1, 2, "x", ["a"]))
print([f.name for f in fields(t)], asdict(t), astuple(Tile(2, 3)), replace(t, rows=9), is_dataclass(t), is_dataclass(3))
@dataclass(frozen=True)
class Config:
    dtype: str
    tile: int = 512
    def with_tile(self, n):
        return replace(self, tile=n)
c = Config("bf16")
print(c, c.with_tile(128), hash(c) == hash(Config("bf16")), {c: 1}[Config("bf16", 512)])
try:
    c.tile = 3
except Exception as e:
    print(type(e).__name__, e)
@dataclass
class Post:
    a: int
    b: int = 0
    total: int = field(init=False, default=0)
    def __post_init__(self):
        self.total = self.a + self.b
p = Post(3, 4)
print(p, p.total)
@dataclass(order=True)
class Ver:
    major: int
    minor: int = 0
print(sorted([Ver(1, 2), Ver(0, 9), Ver(1, 0)]), Ver(1) < Ver(1, 1), max(Ver(2), Ver(1, 5)))
@dataclass
class Child(Post):
    c: int = 10
print(Child(1, 2), Child(1, c=5).total)
@dataclass
class KW:
    x: int
    y: int = field(default=5, repr=False)
    z: int = field(default=6, compare=False)
print(KW(1), KW(1, 2, 3) == KW(1, 2, 4), KW(x=7, z=1))
try:
    Tile()
except TypeError as e:
    print("TypeError:", e)
try:
    Tile(1, 2, 3, [], 5)
except TypeError as e:
    print("TypeError:", e)
try:
    @dataclass
    class Bad:
        items: list = []
except ValueError as e:
    print("ValueError:", e)
