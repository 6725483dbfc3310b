a = frozenset([1, 2, 3])
b = frozenset([3, 4])
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), a < frozenset(range(5)), a.issuperset({1}), len(a))
print({a: "a"}[frozenset([3, 2, 1])], a == {1, 2, 3}, type(a | {9}).__name__, type({9} | a).__name__, frozenset() == set())
s = {frozenset([1]), frozenset([1]), frozenset([2])}
print(len(s), frozenset([1]) in s)
try:
    a.add(5)
except AttributeError as e:
    print("AttributeError:", e)
try:
    {1, 2}.remove(3)
except KeyError as e:
    print("KeyError:", e)
try:
    set().pop()
except KeyError as e:
    print("KeyError:", e)
print(sorted(set("hello")), sorted({1, 2} | set()), {1, 2}.union([3], (4,)) == {1, 2, 3, 4}, set([1, 2]).intersection([2], [2, 3]))
