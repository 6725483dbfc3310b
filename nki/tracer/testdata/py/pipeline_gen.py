def read(n):
    for i in range(n):
        yield {"id": i, "v": i * 1.5}
def keep(rows, pred):
    for r in rows:
        if pred(r):
            yield r
def project(rows, *keys):
    for r in rows:
        yield tuple(r[k] for k in keys)
def batched(it, size):
    batch = []
    for x in it:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
rows = project(keep(read(10), lambda r: r["id"] % 3), "id", "v")
print(list(batched(rows, 3)))
def gen_finally():
    try:
        for i in range(3):
            yield i
    finally:
        print("generator done")
for v in gen_finally():
    print("got", v)
total = sum(x for x in (y * y for y in range(5)) if x % 2 == 0)
print(total)
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
import itertools
print(list(itertools.islice(fib(), 12)), next(x for x in fib() if x > 100))
