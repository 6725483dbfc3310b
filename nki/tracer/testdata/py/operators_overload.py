class Q:
    def __init__(self, v):
        self.v = v
    def __repr__(self):
        return f"Q({self.v})"
    def __sub__(self, o):
        return Q(self.v - (o.v if isinstance(o, Q) else o))
    def __rsub__(self, o):
        return Q(o - self.v)
    def __truediv__(self, o):
        return Q(self.v / o)
    def __rtruediv__(self, o):
        return Q(o / self.v)
    def __floordiv__(self, o):
        return Q(self.v // o)
    def __mod__(self, o):
        return Q(self.v % o)
    def __pow__(self, o):
        return Q(self.v ** o)
    def __rpow__(self, o):
        return Q(o ** self.v)
    def __matmul__(self, o):
        return Q(self.v * o.v)
    def __lshift__(self, n):
        return Q(self.v << n)
    def __and__(self, o):
        return Q(self.v & o)
    def __or__(self, o):
        return Q(self.v | o)
    def __xor__(self, o):
        return Q(self.v ^ o)
    def __invert__(self):
        return Q(~self.v)
    def __pos__(self):
        return Q(+self.v)
    def __abs__(self):
        return Q(abs(self.v))
    def __eq__(self, o):
        return isinstance(o, Q) and self.v == o.v
    def __lt__(self, o):
        return self.v < o.v
    def __le__(self, o):
        return self.v <= o.v
    def __round__(self, n=None):
        return Q(round(self.v, n))
q = Q(7)
print(q - 2, 10 - q, q - Q(1), q / 2, 14 / q, q // 2, q % 4, q ** 2, 2 ** q, q @ Q(3), q << 2, q & 3, q | 8, q ^ 1, ~q, +q, abs(Q(-3)))
print(q == Q(7), q != Q(7), q < Q(8), q <= Q(7), q > Q(6), q >= Q(9), round(Q(2.567), 2), round(Q(2.5)))
try:
    hash(q)
except TypeError as e:
    print("TypeError:", e)
class Acc:
    def __init__(self):
        self.items = []
        self.d = {"n": 0}
a = Acc()
a.items += [1]
a.items += (2, 3)
a.d["n"] += 5
a.d["n"] *= 2
print(a.items, a.d)
m = [[1, 2], [3, 4]]
m[0][1] += 10
m[1] *= 2
print(m)
counts = {}
for w in "a b a c b a".split():
    counts[w] = counts.get(w, 0) + 1
print(counts)
t = (1, 2)
t += (3,)
s = "ab"
s += "c"
n = 5
n **= 2
n //= 3
n %= 5
n <<= 2
n |= 1
n ^= 3
n &= 6
n >>= 1
print(t, s, n)
f = 1.5
f /= 2
f -= 0.25
print(f)
