class A:
    def f(self):
        return "A"
class B(A):
    def f(self):
        return "B" + super().f()
class C(A):
    def f(self):
        return "C" + super().f()
class D(B, C):
    def f(self):
        return "D" + super().f()
print(D().f(), [k.__name__ for k in D.__mro__])
class X: pass
class Y: pass
class Z(X, Y): pass
print([k.__name__ for k in Z.__mro__])
class M:
    def __init__(self, *a, **k):
        self.a = a
        self.k = k
class N(M):
    def __init__(self, v):
        super(N, self).__init__(v, extra=True)
print(N(3).a, N(3).k)
try:
    class Bad(X, Z):
        pass
except TypeError as e:
    print("TypeError:", e)
