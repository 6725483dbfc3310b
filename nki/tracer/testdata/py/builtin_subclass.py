class Stack(list):
    def __init__(self, items=()):
        super().__init__(items)
        self.pushes = 0
    def push(self, v):
        self.append(v)
        self.pushes += 1
        return self
    def peek(self):
        return self[-1]
s = Stack([1, 2])
s.push(3).push(4)
print(s, len(s), s.peek(), s.pushes, s[1:3], list(reversed(s)), isinstance(s, list), sum(s), s.pop(), s)
class Registry(dict):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.hits = 0
    def __getitem__(self, k):
        self.hits += 1
        return super().__getitem__(k)
r = Registry(a=1, b=2)
print(r["a"], r["b"], r.hits, sorted(r), len(r), r.get("zz", 0), "a" in r, dict(r))
class Name(str):
    def shout(self):
        return self.upper() + "!"
n = Name("hey")
print(n, n.shout(), n + " you", len(n), n == "hey", n.startswith("h"), isinstance(n, str), f"{n:>5}")
class Meters(float):
    def __repr__(self):
        return f"{float(self)}m"
m = Meters(2.5)
print(m, m * 2, m + 1, m > 2, int(m), round(m), repr([m]))
class Count(int):
    def twice(self):
        return self * 2
c = Count(21)
print(c, c.twice(), c + 1, [0, 1, 2][Count(1)], hex(c), c == 21, hash(c) == hash(21), isinstance(c, int))
class Pair(tuple):
    def swap(self):
        return Pair((self[1], self[0]))
p = Pair((1, 2))
print(p, p.swap(), p + (3,), len(p), p[0], p == (1, 2), isinstance(p, tuple), type(p.swap()).__name__)
