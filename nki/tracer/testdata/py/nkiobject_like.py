class NKIObjectLike:
    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)
    def fields(self):
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}
    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields().items())
        return f"{type(self).__name__}({inner})"
class TileSpec(NKIObjectLike):
    def __init__(self, p, f, dtype="bf16"):
        super().__init__(p=p, f=f, dtype=dtype)
        self._numel = p * f
    @property
    def numel(self):
        return self._numel
    def split(self, n):
        assert self.f % n == 0, f"cannot split {self.f} into {n}"
        return [TileSpec(self.p, self.f // n, self.dtype) for _ in range(n)]
t = TileSpec(128, 512)
print(t, t.numel, t.fields(), t.split(4), len(t.split(2)))
try:
    t.split(3)
except AssertionError as e:
    print("AssertionError:", e)
class Accum(NKIObjectLike):
    def __init__(self):
        super().__init__(values=[])
    def __iadd__(self, v):
        self.values.append(v)
        return self
    def __len__(self):
        return len(self.values)
acc = Accum()
for i in range(3):
    acc += i * 10
print(acc, len(acc), bool(acc), bool(Accum()))
