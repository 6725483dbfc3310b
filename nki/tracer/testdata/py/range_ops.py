r = range(2, 20, 3)
print(r, list(r), len(r), r[0], r[-1], r[1:3], r[::-1], 5 in r, 6 in r, r.index(8), r.count(8))
print(range(5), range(0), list(range(0)), list(range(10, 0, -2)), len(range(10, 0, -3)), range(3) == range(0, 3, 1))
print(list(range(-5)), list(range(5, 2)), bool(range(0)), range(1, 10, 2)[2], sum(range(101)), max(range(7)))
for i in range(3):
    for j in range(i):
        print(i, j, end=" ")
print()
print(list(reversed(range(4))), list(range(0, 100, 25)), range(0, 10, 3).stop, range(4).start, range(1, 2, 5).step)
