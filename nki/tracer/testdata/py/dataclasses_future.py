from __future__ import annotations
from dataclasses import dataclass, field
from typing import ClassVar, Optional, List
@dataclass
class Layer:
    name: str
    dims: List[int] = field(default_factory=lambda: [1, 2])
    parent: Optional[Layer] = None
    count: ClassVar[int] = 0
l = Layer("a")
print(l, Layer("b", [3], l), Layer.count, Layer.__annotations__["dims"])
@dataclass(frozen=True)
class Shape:
    p: int
    f: int
    @property
    def numel(self) -> int:
        return self.p * self.f
    @staticmethod
    def square(n: int) -> Shape:
        return Shape(n, n)
print(Shape.square(4), Shape(2, 8).numel)
