class Temp:
    scale = "C"
    def __init__(self, c):
        self._c = c
    @property
    def c(self):
        return self._c
    @c.setter
    def c(self, v):
        if v < -273:
            raise ValueError("below absolute zero")
        self._c = v
    @property
    def f(self):
        return self._c * 9 / 5 + 32
    @staticmethod
    def convert(v):
        return v * 2
    @classmethod
    def make(cls, v):
        return cls(v)
    @classmethod
    def describe(cls):
        return cls.__name__ + cls.scale
t = Temp(100)
print(t.c, t.f, Temp.convert(3), t.convert(4), Temp.make(5).c, t.describe(), Temp.describe())
t.c = 20
print(t.c, t.f)
try:
    t.c = -300
except ValueError as e:
    print("ValueError:", e)
try:
    t.f = 1
except AttributeError as e:
    print("AttributeError:", e)
class Sub(Temp):
    scale = "K"
print(Sub.make(1).describe(), type(Sub.make(2)).__name__)
class Counter:
    count = 0
    def __init__(self):
        Counter.count += 1
        self.id = Counter.count
print([Counter().id for _ in range(3)], Counter.count)
