it = iter([1, 2, 3])
print(next(it), list(it), list(it), next(it, None))
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        n = self.n
        while n > 0:
            yield n
            n -= 1
print(list(Countdown(3)), [x * 2 for x in Countdown(2)], sum(Countdown(4)), max(Countdown(5)), 2 in Countdown(3))
e = enumerate(["a", "b"], start=5)
print(next(e), list(e))
z = zip([1, 2], [3, 4])
print(next(z), list(z))
m = map(abs, [-1, -2])
print(list(m), list(m))
r = reversed("abc")
print(next(r), "".join(r))
def take(n, it):
    it = iter(it)
    return [next(it) for _ in range(n)]
print(take(2, Countdown(10)), take(3, "hello"))
calls = iter(lambda: calls_left.pop(), 0)
calls_left = [0, 3, 2, 1]
print(list(calls))
d = {"x": 1, "y": 2}
di = iter(d)
print(next(di), list(di), list(iter(d.items())), list(iter(range(2))))
try:
    next(iter([]))
except StopIteration as ex:
    print("StopIteration", repr(ex))
try:
    zip([1, 2], [1], strict=True).__class__
    list(zip([1, 2], [1], strict=True))
except ValueError as ex:
    print("ValueError:", ex)
