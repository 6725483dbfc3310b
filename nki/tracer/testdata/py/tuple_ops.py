t = (1, 2, 3, 2)
print(t, t[0], t[-1], t[1:3], t.count(2), t.index(3), len(t), (1,), (), tuple([1, 2]), tuple("ab"))
a, b = 1, 2
a, b = b, a
print(a, b)
x, (y, z) = 1, (2, 3)
print(x, y, z)
first, *rest = [1, 2, 3, 4]
*init, last = "abcd"
h, *mid, tl = range(5)
print(first, rest, init, last, h, mid, tl)
print((1, 2) + (3,), (0,) * 3, (1, 2) < (1, 3), (1, 2) == (1, 2), (2,) > (1, 9), hash((1, 2)) == hash((1, 2)))
print(hash((1, 2)), hash(()), hash((1,)), hash((1, (2, 3))))
for i, (p, q) in enumerate([(1, 2), (3, 4)]):
    print(i, p, q)
print(sorted([(2, "b"), (1, "z"), (2, "a")]), max([(1, 2), (1, 3)]), tuple(reversed((1, 2, 3))))
