import math
P = 128
FREE = 512
def tiles(n, size):
    return [(i * size, min(size, n - i * size)) for i in range(math.ceil(n / size))]
def plan_matmul(M, K, N, dtype_bytes=2):
    plan = []
    for m0, mt in tiles(M, P):
        for n0, nt in tiles(N, FREE):
            acc = 0
            for k0, kt in tiles(K, P):
                acc += mt * kt * nt
            plan.append({"m": m0, "n": n0, "flops": 2 * acc, "bytes": (mt * K + K * nt + mt * nt) * dtype_bytes})
    return plan
plan = plan_matmul(300, 256, 1100)
print(len(plan), plan[0], plan[-1], sum(p["flops"] for p in plan))
def softmax_stats(rows):
    out = []
    for r in rows:
        m = max(r)
        e = [math.exp(v - m) for v in r]
        s = sum(e)
        out.append([round(v / s, 6) for v in e])
    return out
print(softmax_stats([[1.0, 2.0, 3.0], [0.0, 0.0]]))
class Alloc:
    def __init__(self, cap):
        self.cap, self.used, self.blocks = cap, 0, {}
    def alloc(self, name, size):
        size = (size + 63) // 64 * 64
        if self.used + size > self.cap:
            raise MemoryError(f"{name}: {size} bytes do not fit ({self.cap - self.used} free)")
        self.blocks[name] = (self.used, size)
        self.used += size
        return self.blocks[name]
a = Alloc(1 << 12)
print(a.alloc("x", 100), a.alloc("y", 2000), a.used)
try:
    a.alloc("z", 3000)
except MemoryError as e:
    print("MemoryError:", e)
shape = (256, 1024)
par, free = shape
assert par % P == 0, f"partition dim {par} not a multiple of {P}"
print(f"{par // P} x {free // FREE} tiles of {P}x{FREE}", [f"{i:03d}" for i in range(3)])
