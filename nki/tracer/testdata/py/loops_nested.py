result = []
for i in range(3):
    for j in range(3):
        if j == i:
            continue
        if i + j > 3:
            break
        result.append((i, j))
    else:
        result.append(("else", i))
print(result)
i = 0
out = []
while i < 10:
    i += 1
    if i % 2:
        continue
    j = 0
    while j < i:
        j += 3
        if j > 6:
            break
    else:
        out.append(("inner-else", i))
        continue
    out.append((i, j))
print(out)
def first_dup(xs):
    seen = set()
    for x in xs:
        if x in seen:
            return x
        seen.add(x)
    else:
        return None
print(first_dup([1, 2, 3, 2, 1]), first_dup([1, 2]))
grid = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
diag = [grid[k][k] for k in range(3)]
anti = [grid[k][2 - k] for k in range(3)]
trans = [[row[c] for row in grid] for c in range(3)]
print(diag, anti, trans, sum(sum(r) for r in grid))
for idx, (a, b) in enumerate(zip("xyz", range(10, 13)), start=1):
    print(idx, a, b, end=" ")
print()
count = 0
for _ in range(4):
    for _ in range(5):
        count += 1
print(count)
