a, b, c = "xyz"
(d, e), f = [1, 2], 3
[g, h] = (4, 5)
print(a, b, c, d, e, f, g, h)
first, *middle, last = range(10)
print(first, middle, last)
*head, = [1, 2]
print(head)
x = y = z = 0
x += 1
print(x, y, z)
m, n = n, m = 1, 2
print(m, n)
pairs = [(1, "a"), (2, "b")]
nums, letters = zip(*pairs)
print(nums, letters)
print(*[1, 2, 3], sep="-")
print([*range(3), *"ab"], (*[1], 2), {*"ab", *"bc"} == {"a", "b", "c"}, {**{"a": 1}, "b": 2})
def f(*args, **kwargs):
    return args, kwargs
print(f(*(1, 2), *[3], **{"a": 1}, **{"b": 2}))
lst = [1, 2, 3]
lst[0], lst[2] = lst[2], lst[0]
print(lst)
for (i, j), k in [((1, 2), 3)]:
    print(i, j, k)
try:
    a, b = [1, 2, 3]
except ValueError as err:
    print("ValueError:", err)
try:
    a, b, c = [1]
except ValueError as err:
    print("ValueError:", err)
try:
    a, *b, c = [1]
except ValueError as err:
    print("ValueError:", err)
try:
    a, b = 5
except TypeError as err:
    print("TypeError:", err)
