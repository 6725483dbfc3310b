import math
def rmsnorm_ref(rows, eps=1e-6):
    out = []
    for r in rows:
        ms = sum(v * v for v in r) / len(r)
        inv = 1.0 / math.sqrt(ms + eps)
        out.append([round(v * inv, 6) for v in r])
    return out
def layernorm_ref(rows, gamma, beta, eps=1e-5):
    out = []
    for r in rows:
        mean = sum(r) / len(r)
        var = sum((v - mean) ** 2 for v in r) / len(r)
        out.append([round((v - mean) / math.sqrt(var + eps) * g + b, 5) for v, g, b in zip(r, gamma, beta)])
    return out
rows = [[1.0, 2.0, 3.0, 4.0], [0.5, -0.5, 0.25, -0.25]]
print(rmsnorm_ref(rows))
print(layernorm_ref(rows, [1, 1, 2, 2], [0, 0.5, 0, 0.5]))
def chunks(n, size):
    return [range(i, min(i + size, n)) for i in range(0, n, size)]
print([list(c) for c in chunks(10, 4)], [len(c) for c in chunks(1000, 128)])
stats = {"mean": 0.0, "count": 0}
for c in chunks(50, 16):
    stats["count"] += len(c)
    stats["mean"] += sum(c) / 50
print(stats, f"{stats['mean']:.3f}")
