from functools import partial, reduce, total_ordering, cmp_to_key, cached_property
import operator
def power(base, exp):
    return base ** exp
sq = partial(power, exp=2)
cube = partial(power, exp=3)
print(sq(5), cube(2), partial(power, 2)(10), sq.func.__name__, sq.keywords, partial(sq, 3)())
print(reduce(operator.add, [1, 2, 3, 4]), reduce(lambda a, b: a * b, range(1, 6), 1), reduce(max, [3, 9, 2]))
@total_ordering
class V:
    def __init__(self, n):
        self.n = n
    def __eq__(self, o):
        return self.n == o.n
    def __lt__(self, o):
        return self.n < o.n
print(V(1) <= V(2), V(3) >= V(2), V(2) > V(5), V(1) <= V(1))
def cmp(a, b):
    return (a > b) - (a < b)
print(sorted([3, 1, 2], key=cmp_to_key(cmp)), sorted(["bb", "a", "ccc"], key=cmp_to_key(lambda a, b: len(b) - len(a))))
class Lazy:
    def __init__(self):
        self.computed = 0
    @cached_property
    def value(self):
        self.computed += 1
        return 42
z = Lazy()
print(z.value, z.value, z.computed)
try:
    reduce(operator.add, [])
except TypeError as e:
    print("TypeError:", e)
