def v(x, log):
    log.append(x)
    return x
log = []
print(v(1, log) < v(2, log) < v(3, log), log)
log = []
print(v(3, log) < v(2, log) < v(1, log), log)
x = 3
print(1 < x < 5 < 10, 1 < x > 2, x == 3 != 4, 0 <= x <= 2, 2 in [1, 2] in [[1, 2]], "a" < "b" <= "b")
print([1, 2] < [1, 2, 0] < [1, 3], (1, "a") < (1, "b"), None is not None is None)
a = [3, 1, 2]
print(min(a) < max(a) == 3, sorted(a) == [1, 2, 3] != a, len(a) == 3 > 2)
