class Base:
    def __init__(self, **kw):
        self.base_kw = kw
class A(Base):
    def __init__(self, a=1, **kw):
        super().__init__(**kw)
        self.a = a
class B(Base):
    def __init__(self, b=2, **kw):
        super().__init__(**kw)
        self.b = b
class C(A, B):
    def __init__(self, c=3, **kw):
        super().__init__(**kw)
        self.c = c
obj = C(a=10, b=20, c=30, extra=True)
print(obj.a, obj.b, obj.c, obj.base_kw, [k.__name__ for k in C.__mro__])
class Animal:
    sound = "..."
    def speak(self):
        return f"{type(self).__name__} says {self.sound}"
    @classmethod
    def create(cls):
        return cls()
class Dog(Animal):
    sound = "woof"
class Puppy(Dog):
    def speak(self):
        return super().speak() + "!"
print(Animal().speak(), Dog().speak(), Puppy().speak(), Puppy.create().speak(), isinstance(Puppy(), Animal))
p = Puppy()
p.sound = "yip"
print(p.speak(), Puppy.sound, Dog.sound)
class Prop:
    def __init__(self):
        self._x = 0
    def getx(self):
        return self._x
    def setx(self, v):
        self._x = v * 2
    def delx(self):
        self._x = None
    x = property(getx, setx, delx)
q = Prop()
q.x = 5
print(q.x)
del q.x
print(q.x)
class Chained(Prop):
    @property
    def y(self):
        return self.x + 1
c = Chained()
c.x = 1
print(c.y, issubclass(Chained, Prop), issubclass(Chained, (int, Prop)), issubclass(Chained, Chained))
