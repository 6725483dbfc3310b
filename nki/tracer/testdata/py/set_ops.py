a = {1, 2, 3}
b = {3, 4}
print(a | b, a & b, a - b, a ^ b, a <= {1, 2, 3, 4}, a < a, {1} < a, a >= {1}, a.isdisjoint({9}))
a.add(4); a.discard(10); a.remove(1); print(a, len(a), 2 in a)
print(sorted(a.union([7])), sorted(a.intersection({2, 4})), sorted(a.difference({2})), sorted(a.symmetric_difference({2, 8})), a.issubset(range(10)))
s = set(); s.update([3, 1, 2], (5,)); print(sorted(s), s.pop() in {1, 2, 3, 5}, set("aab") == {"a", "b"})
fz = frozenset([1, 2]); print(fz, fz | {3}, frozenset(), set(), {frozenset([1]): "x"}, hash(fz) == hash(frozenset([2, 1])))
print(sorted({x % 3 for x in range(10)}), {1, 2} == {2, 1}, {1, 2} != {1}, type(fz).__name__, len(set([1, 1, 1])))
c = {1, 2, 3}; c -= {1}; c |= {9}; c &= {2, 9}; c ^= {100}; print(sorted(c))
