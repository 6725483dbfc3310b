a = [1, 2]
b = a
c = [1, 2]
print(a is b, a is c, a == c, a is not c, None is None, 1 < 2 < 3, 1 < 3 < 2, 3 > 2 == 2, 1 == 1.0 == True)
x = 5
print(0 < x <= 5, 0 < x < 5, x in (1, 5), x not in [1, 2], "a" < "b" < "c", [1] == [1] != [2])
print(None == 0, None == None, [] == (), (1, 2) == [1, 2], {1: 2} == {1: 2}, {1, 2} == frozenset({1, 2}), 1.5 != 1.5)
print(float("nan") == float("nan"), float("nan") != float("nan"), float("nan") < 1, float("inf") > 10 ** 400)
print(True is True, type(True) is bool, (1,) is not None, () == (), "" == str(), 0 == -0)
def f(v=None):
    return "none" if v is None else "set"
print(f(), f(0), f(None))
