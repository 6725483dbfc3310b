from enum import Enum, IntEnum, auto, unique
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1
    def describe(self):
        return f"{self.name.lower()}={self.value}"
print(Color.RED, repr(Color.GREEN), Color.RED.name, Color.RED.value, Color(2), Color["BLUE"], Color.CRIMSON is Color.RED)
print(list(Color), len(Color), Color.RED in Color, [c.describe() for c in Color], Color.RED == Color.RED, Color.RED == 1)
print(isinstance(Color.RED, Color), type(Color.RED).__name__, Color.BLUE.value + 1, {Color.RED: "r"}[Color.CRIMSON])
class Eng(IntEnum):
    TENSOR = 1
    VECTOR = 2
    SCALAR = 3
print(Eng.VECTOR, repr(Eng.VECTOR), Eng.VECTOR + 1, Eng.SCALAR > Eng.TENSOR, Eng(3), Eng.TENSOR == 1, [1, 2, 3][Eng.TENSOR], sorted([Eng.SCALAR, Eng.TENSOR]))
print(f"{Eng.VECTOR}", f"{Color.RED}", str(Eng.TENSOR), int(Eng.SCALAR), Eng.VECTOR.name)
class Auto(Enum):
    A = auto()
    B = auto()
    C = 10
    D = auto()
print([(m.name, m.value) for m in Auto])
try:
    Color(9)
except ValueError as e:
    print("ValueError:", e)
try:
    Color["PINK"]
except KeyError as e:
    print("KeyError:", e)
try:
    @unique
    class Dup(Enum):
        X = 1
        Y = 1
except ValueError as e:
    print("ValueError:", e)
class Mode(Enum):
    FAST = "fast"
    SLOW = "slow"
    @classmethod
    def parse(cls, s):
        return cls(s.lower())
    @property
    def is_fast(self):
        return self is Mode.FAST
print(Mode.parse("FAST"), Mode.SLOW.is_fast, Mode.FAST.is_fast, Mode("slow").value, Color.__members__.keys())
