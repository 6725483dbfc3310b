from typing import NamedTuple, Optional
class Dims(NamedTuple):
    p: int
    f: int = 1
    name: Optional[str] = None
    def numel(self):
        return self.p * self.f
d = Dims(128, 4)
print(d, d.numel(), d.p, d[1], d._replace(name="x"), Dims._fields, d == (128, 4, None), tuple(d))
p, f, n = d
print(p, f, n, d._asdict(), Dims(1), sorted([Dims(3), Dims(1, 9)]), isinstance(d, tuple), len(d))
try:
    Dims()
except TypeError as e:
    print("TypeError:", e)
