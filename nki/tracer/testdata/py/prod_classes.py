class KernelBase:
    engine = "vector"
    def __init__(self, name, **params):
        self.name = name
        self.params = dict(params)
        self._validate()
    def _validate(self):
        for k, v in self.params.items():
            if v is None:
                raise ValueError(f"{self.name}: parameter {k} is None")
    def cost(self):
        return sum(v for v in self.params.values() if isinstance(v, (int, float)))
    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"{type(self).__name__}({self.name!r}, {args})"
class MatmulKernel(KernelBase):
    engine = "tensor"
    def cost(self):
        p = self.params
        return 2 * p["m"] * p["k"] * p["n"]
class FusedKernel(MatmulKernel):
    def __init__(self, name, activation="relu", **params):
        super().__init__(name, **params)
        self.activation = activation
    def cost(self):
        return super().cost() + self.params["m"] * self.params["n"]
ks = [KernelBase("add", n=4, m=2), MatmulKernel("mm", m=2, k=3, n=4), FusedKernel("ff", m=1, k=1, n=2, activation="gelu")]
for k in ks:
    print(k, k.engine, k.cost(), type(k).__mro__[1].__name__)
print(sorted(ks, key=lambda k: k.cost())[0].name, max(ks, key=KernelBase.cost).name, ks[2].activation)
try:
    KernelBase("bad", x=None)
except ValueError as e:
    print("ValueError:", e)
class Pool:
    def __init__(self):
        self.free = list(range(4))
        self.used = {}
    def take(self, owner):
        if not self.free:
            raise RuntimeError(f"no buffer left for {owner}")
        b = self.free.pop(0)
        self.used[b] = owner
        return b
    def give(self, b):
        self.free.append(self.used.pop(b))
        self.free[-1] = b
pool = Pool()
bs = [pool.take(f"t{i}") for i in range(4)]
pool.give(bs[1])
print(bs, pool.free, pool.used, pool.take("again"))
try:
    pool.take("x")
except RuntimeError as e:
    print("RuntimeError:", e)
