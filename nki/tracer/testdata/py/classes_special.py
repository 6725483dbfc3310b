class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.xs[i]
    def __setitem__(self, i, v):
        self.xs[i] = v
    def __delitem__(self, i):
        del self.xs[i]
    def __iter__(self):
        return iter(self.xs)
    def __contains__(self, v):
        return v in self.xs
    def __repr__(self):
        return "Vec(" + ", ".join(map(repr, self.xs)) + ")"
    def __str__(self):
        return "<" + " ".join(map(str, self.xs)) + ">"
    def __bool__(self):
        return bool(self.xs)
    def __neg__(self):
        return Vec(*[-x for x in self.xs])
    def __lt__(self, other):
        return sum(self.xs) < sum(other.xs)
    def __call__(self, k):
        return Vec(*[k * x for x in self.xs])
    def __hash__(self):
        return hash(tuple(self.xs))
    def __eq__(self, o):
        return self.xs == o.xs
v = Vec(1, 2, 3)
print(len(v), v[0], v[-1], v[1:], list(v), 2 in v, 9 in v, repr(v), str(v), v, bool(v), bool(Vec()), -v, v(10))
v[0] = 10; del v[1]; print(v, sorted([Vec(5), Vec(1, 1), Vec(0)]), Vec(1) < Vec(2), Vec(3) > Vec(2))
print({Vec(1): "one"}[Vec(1)], max([Vec(1), Vec(9)]), [x for x in Vec(4, 5)], f"{v}", "%s|%r" % (v, v))
a, b = Vec(7, 8)
print(a, b, sum(Vec(1, 2)), "".join(Vec("x", "y")))
class Seq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 100
print(list(Seq()), 200 in Seq())
class Ctx:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, et, ev, tb):
        print("exit", et.__name__ if et else None, ev)
        return True
with Ctx() as c:
    print("body", type(c).__name__)
    raise ValueError("swallowed")
print("after")
class It:
    def __init__(self, n):
        self.i, self.n = 0, n
    def __iter__(self):
        return self
    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i
print(list(It(3)), sum(It(4)), next(It(1)))
