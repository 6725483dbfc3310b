for i in range(5):
    if i == 1:
        continue
    if i == 3:
        break
    print("for", i)
else:
    print("never")
for i in range(2):
    pass
else:
    print("for-else ran", i)
n = 0
while n < 10:
    n += 3
    if n == 6:
        continue
    print("while", n)
else:
    print("while-else", n)
while True:
    n -= 1
    if n < 5:
        break
print(n)
for x in []:
    print("no")
else:
    print("empty else")
total = 0
for i in range(3):
    for j in range(3):
        if j > i:
            break
        total += i * j
print(total)
found = None
for k, v in {"a": 1, "b": 2, "c": 3}.items():
    if v == 2:
        found = k
        break
print(found)
i = 0
while (i := i + 1) < 4:
    print("walrus", i)
def find(xs, t):
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1
print(find([5, 6, 7], 7), find([], 1))
