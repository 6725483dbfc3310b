print([x * y for x in range(3) for y in range(3) if x != y])
print([[c for c in w] for w in ["ab", "cd"]], {x: x ** 2 for x in range(4)}, {x % 2 for x in range(5)})
print(list(x for x in "abc"), sum(i for i in range(10) if i % 3 == 0), tuple(i * 2 for i in (1, 2)))
x = "outer"
r = [x for x in range(3)]
print(x, r)
matrix = [[1, 2, 3], [4, 5, 6]]
print([list(row) for row in zip(*matrix)], [v for row in matrix for v in row], [row[i] for i, row in enumerate(matrix)])
n = 10
print([i for i in range(n) if i % 2 if i > 3], [(i, j) for i in range(2) for j in range(i, 2)])
fs = [lambda i=i: i * 10 for i in range(3)]
print([f() for f in fs])
gs = [lambda: i for i in range(3)]
print([g() for g in gs])
print([y := 5, y ** 2], [z for z in [1, 2, 3] if (w := z * 2) > 2], w)
g = (i * i for i in range(4))
print(next(g), list(g), list(g))
