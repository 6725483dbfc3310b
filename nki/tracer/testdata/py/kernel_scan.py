def scan(xs, op, init):
    out = []
    acc = init
    for x in xs:
        acc = op(acc, x)
        out.append(acc)
    return out
print(scan([1, 2, 3, 4], lambda a, b: a + b, 0), scan([1, 2, 3], lambda a, b: a * b, 1))
def mamba_step(state, a, b, x):
    return [s * ai + bi * xi for s, ai, bi, xi in zip(state, a, b, x)]
state = [0.0] * 4
a = [0.9, 0.8, 0.7, 0.6]
b = [1.0, 0.5, 0.25, 0.125]
history = []
for t in range(3):
    x = [t + 1.0] * 4
    state = mamba_step(state, a, b, x)
    history.append([round(s, 4) for s in state])
print(history)
def chunked_scan(xs, chunk):
    carry = 0
    out = []
    for start in range(0, len(xs), chunk):
        part = scan(xs[start:start + chunk], lambda p, q: p + q, carry)
        carry = part[-1]
        out.extend(part)
    return out
data = list(range(1, 11))
print(chunked_scan(data, 4) == scan(data, lambda p, q: p + q, 0), chunked_scan(data, 3)[-1])
