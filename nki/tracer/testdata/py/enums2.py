from enum import Enum, IntEnum, auto
class Planet(Enum):
    MERCURY = (3.303e23, 2.4397e6)
    EARTH = (5.976e24, 6.37814e6)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius
    @property
    def gravity(self):
        return 6.673e-11 * self.mass / (self.radius ** 2)
print(Planet.EARTH.mass, round(Planet.EARTH.gravity, 3), Planet.MERCURY.value, Planet((5.976e24, 6.37814e6)).name)
class Dtype(Enum):
    BF16 = "bfloat16"
    FP32 = "float32"
    @classmethod
    def _missing_(cls, value):
        for m in cls:
            if m.name.lower() == str(value).lower():
                return m
        return None
    def bytes(self):
        return {"bfloat16": 2, "float32": 4}[self.value]
print(Dtype("bf16"), Dtype("FP32").bytes(), Dtype.BF16.bytes(), [d.value for d in Dtype])
class Prio(IntEnum):
    LOW = auto()
    MID = auto()
    HIGH = auto()
print(list(Prio), Prio.HIGH - Prio.LOW, max(Prio), Prio(2).name, sum(Prio), Prio.MID * 10, hash(Prio.LOW) == hash(1))
print({Prio.LOW: "l"}[1], Prio.LOW < 2, isinstance(Prio.MID, int), Prio.MID.value, type(Prio.MID.value).__name__)
class Shape(Enum):
    SQUARE = 2
    DIAMOND = 1
    CIRCLE = 3
    ALIAS_FOR_SQUARE = 2
print([s.name for s in Shape], Shape.ALIAS_FOR_SQUARE.name, Shape(2), len(Shape))
try:
    Shape.SQUARE.value = 5
except AttributeError as e:
    print("AttributeError")
print(Shape.SQUARE == Shape.SQUARE, Shape.SQUARE != Shape.CIRCLE, Shape.SQUARE is Shape(2))
