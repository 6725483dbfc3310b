from typing import Callable, Dict
import operator
OPS: Dict[str, Callable] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "max": max,
    "min": min,
}
ACTS = {"relu": lambda v: max(v, 0.0), "identity": lambda v: v, "square": lambda v: v * v}
def apply(op_name, act_name, a, b):
    try:
        op = OPS[op_name]
    except KeyError:
        raise ValueError(f"unknown op {op_name!r}; choose from {sorted(OPS)}") from None
    act = ACTS.get(act_name)
    if act is None:
        raise ValueError(f"unknown activation {act_name!r}")
    return act(op(a, b))
print([apply(o, a, 3.0, -5.0) for o in OPS for a in ACTS])
for args in [("div", "relu", 1, 2), ("add", "tanh", 1, 2)]:
    try:
        apply(*args)
    except ValueError as e:
        print("ValueError:", e)
class Registry:
    def __init__(self):
        self._kernels = {}
    def register(self, name=None):
        def deco(fn):
            key = name or fn.__name__
            if key in self._kernels:
                raise KeyError(f"duplicate kernel {key}")
            self._kernels[key] = fn
            return fn
        return deco
    def __getitem__(self, key):
        return self._kernels[key]
    def __contains__(self, key):
        return key in self._kernels
    def __len__(self):
        return len(self._kernels)
    def names(self):
        return sorted(self._kernels)
reg = Registry()
@reg.register()
def tensor_add(a, b):
    return a + b
@reg.register("mm")
def matmul(a, b):
    return a * b
print(reg.names(), len(reg), "mm" in reg, reg["tensor_add"](1, 2), reg["mm"](3, 4))
try:
    @reg.register("mm")
    def other(a, b):
        return 0
except KeyError as e:
    print("KeyError:", e)
