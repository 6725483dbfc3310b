l = list(range(10))
l[2:5] = []
print(l)
l[::3] = ["x"] * len(l[::3])
print(l)
l[1:1] = [100, 200]
print(l)
l[-1:] = "yz"
print(l)
try:
    l[::2] = [1]
except ValueError as e:
    print("ValueError:", e)
try:
    l[50] = 1
except IndexError as e:
    print("IndexError:", e)
try:
    [].remove(1)
except ValueError as e:
    print("ValueError:", e)
m = [3, 1, 2]
print(m.sort(), m, sorted(m, reverse=True), m.reverse(), m, m.index(1), m * True, m[True])
n = [[1], [2]]
k = n[:]
k[0].append(5)
k.append([3])
print(n, k, n == k[:2], [1, 2, 3][-1:-4:-1], list(reversed([])), [0] * -2)
it = [1, 2, 3]
for x in it:
    if x < 3:
        it.append(x + 10)
print(it)
print(list(map(lambda a, b: (a, b), [1, 2, 3], "ab")), [1, 2, 3].pop(1), [1, [2, [3]]][1][1][0])
big = list(range(100))
del big[::2]
print(len(big), big[:5], big[-3:], sum(big))
