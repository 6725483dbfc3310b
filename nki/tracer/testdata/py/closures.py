def counter():
    n = 0
    def inc(step=1):
        nonlocal n
        n += step
        return n
    return inc
c1, c2 = counter(), counter()
print(c1(), c1(), c1(5), c2())
G = 0
def bump():
    global G
    G += 1
    return G
print(bump(), bump(), G)
def make_adders():
    return [lambda x, k=k: x + k for k in range(3)]
print([a(10) for a in make_adders()])
def outer():
    x = 1
    def mid():
        def inner():
            return x
        return inner
    x = 2
    return mid()()
print(outer())
def shadow():
    v = "local"
    def f():
        v = "inner"
        return v
    return f(), v
print(shadow())
def deep():
    a = 1
    def l1():
        nonlocal a
        a += 1
        def l2():
            nonlocal a
            a *= 10
            return a
        return l2()
    return l1(), a
print(deep())
def cell_param(p):
    def get():
        return p
    p = p + 1
    return get()
print(cell_param(41))
