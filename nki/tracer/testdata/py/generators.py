def gen(n):
    for i in range(n):
        yield i * i
print(list(gen(5)), sum(gen(4)), max(gen(3)))
def evens(xs):
    for x in xs:
        if x % 2 == 0:
            yield x
    return
print(list(evens(range(10))), next(evens([1, 2, 3])))
def delegate():
    yield "start"
    yield from gen(3)
    yield from ["a", "b"]
print(list(delegate()))
g = gen(3)
print(next(g), next(g), next(g), next(g, "end"))
def pairs(seq):
    it = iter(seq)
    for a in it:
        yield a, next(it, None)
print(list(pairs([1, 2, 3, 4, 5])))
def tiles(n, size):
    start = 0
    while start < n:
        yield start, min(size, n - start)
        start += size
print(list(tiles(300, 128)), [b for _, b in tiles(10, 4)])
def early():
    yield 1
    return 5
    yield 2
print(list(early()), type(gen(1)).__name__)
def naturals():
    n = 0
    while True:
        yield n
        n += 1
for v in naturals():
    if v > 3:
        break
print(v, [x for x, _ in zip(naturals(), range(4))])
def chatty():
    for i in range(3):
        print("produce", i)
        yield i
for v in chatty():
    print("consume", v)
print(any(print("check", i) or i > 0 for i in range(5)))
def acc():
    total = 0
    while True:
        x = yield total
        if x is None:
            break
        total += x
g = acc()
print(next(g), g.send(5), g.send(10))
g.close()
print(next(g, "closed"))
def fin():
    try:
        yield 1
        yield 2
    finally:
        print("cleanup")
print(list(fin()))
