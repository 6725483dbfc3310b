from abc import ABCMeta, abstractmethod, ABC
class Base(metaclass=ABCMeta):
    @abstractmethod
    def run(self):
        pass
    @property
    @abstractmethod
    def name(self):
        pass
class Impl(Base):
    def run(self):
        return "ran"
    @property
    def name(self):
        return "impl"
i = Impl()
print(i.run(), i.name, isinstance(i, Base))
try:
    Base()
except TypeError as e:
    print("TypeError:", e)
class Partial(Base):
    def run(self):
        return 1
try:
    Partial()
except TypeError as e:
    print("TypeError:", e)
class Mixin:
    def hello(self):
        return "hello from " + type(self).__name__
class Full(Mixin, Impl):
    pass
print(Full().hello(), Full().run(), [c.__name__ for c in Full.__mro__ if c.__name__ != "ABC"][:4])
