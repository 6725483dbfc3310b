from abc import ABC, abstractmethod
class Op(ABC):
    @abstractmethod
    def run(self, x):
        ...
    def twice(self, x):
        return self.run(self.run(x))
class Inc(Op):
    def run(self, x):
        return x + 1
print(Inc().twice(1), isinstance(Inc(), Op))
try:
    Op()
except TypeError as e:
    print("TypeError:", e)
class Half(Op):
    pass
try:
    Half()
except TypeError as e:
    print("TypeError:", e)
class Two(ABC):
    @abstractmethod
    def a(self): pass
    @abstractmethod
    def b(self): pass
try:
    Two()
except TypeError as e:
    print("TypeError:", e)
