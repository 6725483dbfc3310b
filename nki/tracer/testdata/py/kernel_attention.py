import math
def softmax(xs):
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    s = sum(e)
    return [v / s for v in e]
def attention(q, k, v, causal=False):
    d = len(q[0])
    scale = 1 / math.sqrt(d)
    out = []
    for i, qi in enumerate(q):
        scores = []
        for j, kj in enumerate(k):
            s = sum(a * b for a, b in zip(qi, kj)) * scale
            if causal and j > i:
                s = -math.inf
            scores.append(s)
        p = softmax(scores)
        out.append([round(sum(p[j] * v[j][c] for j in range(len(v))), 6) for c in range(len(v[0]))])
    return out
q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
k = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
v = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
print(attention(q, k, v))
print(attention(q, k, v, causal=True))
def flash_blocks(seq, block):
    blocks = []
    for qb in range(0, seq, block):
        for kb in range(0, qb + block, block):
            blocks.append((qb // block, kb // block, "diag" if kb == qb else "full"))
    return blocks
b = flash_blocks(512, 128)
print(len(b), b[:4], sum(1 for x in b if x[2] == "diag"))
