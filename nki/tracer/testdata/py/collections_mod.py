from collections import namedtuple, defaultdict, OrderedDict, Counter, deque
Pt = namedtuple("Pt", "x y")
p = Pt(1, y=2)
print(p, p.x, p[1], p._asdict(), p._replace(x=5), Pt._fields, Pt._make([7, 8]), tuple(p), p == (1, 2), len(p))
x, y = p
print(x + y, isinstance(p, tuple), type(p).__name__, hash(p) == hash((1, 2)), sorted([Pt(2, 1), Pt(1, 5)]))
W = namedtuple("W", ["a", "b", "c"], defaults=[0, 1])
print(W(9), W(1, 2, 3))
dd = defaultdict(list)
for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    dd[k].append(v)
print(dd, dict(dd), dd["missing"], len(dd), defaultdict(int)["x"])
cnt = defaultdict(int)
for ch in "hello":
    cnt[ch] += 1
print(sorted(cnt.items()))
od = OrderedDict()
od["z"] = 1
od["a"] = 2
od.move_to_end("z")
print(od, list(od), OrderedDict(a=1))
c = Counter("abracadabra")
print(c.most_common(2), c["a"], c["zz"], sorted(c.elements())[:5], Counter([1, 1, 2]))
q = deque([1, 2, 3])
q.append(4); q.appendleft(0); print(q, q.popleft(), q.pop(), q, len(q), list(q))
q.rotate(1); print(q)
b = deque(maxlen=2)
for i in range(5):
    b.append(i)
print(b, list(b))
class P3(namedtuple("P3", "a b")):
    def total(self):
        return self.a + self.b
print(P3(1, 2).total(), P3(3, 4))
