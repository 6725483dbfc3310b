def make_ops():
    ops = {}
    for name, k in [("double", 2), ("triple", 3)]:
        def op(x, k=k):
            return x * k
        ops[name] = op
    return ops
ops = make_ops()
print(ops["double"](5), ops["triple"](5))
def acc_factory():
    total = []
    def add(v):
        total.append(v)
        return sum(total)
    def reset():
        total.clear()
    return add, reset
add, reset = acc_factory()
print(add(1), add(2), add(3))
reset()
print(add(10))
def compose(*fns):
    def composed(x):
        for f in reversed(fns):
            x = f(x)
        return x
    return composed
inc = lambda v: v + 1
dbl = lambda v: v * 2
print(compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(7))
def curry(f, *a):
    return lambda *b: f(*a, *b)
print(curry(max, 3)(1, 2), curry(lambda x, y, z: x + y + z, 1, 2)(3))
x = 0
def counter():
    global x
    def bump():
        global x
        x += 1
    bump()
    bump()
    return x
print(counter(), x)
def lazy():
    fs = []
    for i in range(3):
        fs.append(lambda: i)
    i = 10
    return [f() for f in fs]
print(lazy())
def nonlocal_loop():
    n = 0
    def step():
        nonlocal n
        n += 1
    for _ in range(5):
        step()
    return n
print(nonlocal_loop())
