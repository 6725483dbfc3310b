def f(a, b, c=1, *, d):
    return a
msgs = []
for call in [lambda: f(1), lambda: f(1, 2), lambda: f(1, 2, 3, 4, d=1), lambda: f(1, 2, d=1, e=2), lambda: f(1, 2, a=1, d=0),
             lambda: f(), lambda: len(), lambda: len(1, 2), lambda: (lambda x, /: x)(x=1), lambda: int("z"), lambda: "a".join([1])]:
    try:
        call()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
class A:
    def m(self, x):
        return x
try:
    A().m()
except TypeError as e:
    print(e)
try:
    A().m(1, 2)
except TypeError as e:
    print(e)
try:
    A(1)
except TypeError as e:
    print(e)
f(1, 2, 3)
