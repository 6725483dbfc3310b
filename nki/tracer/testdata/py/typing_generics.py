from typing import Generic, TypeVar, List, Dict, Optional, Protocol, Union, Any, Iterator
K = TypeVar("K")
V = TypeVar("V")
class Cache(Generic[K, V]):
    def __init__(self) -> None:
        self.data: Dict[K, V] = {}
    def put(self, k: K, v: V) -> None:
        self.data[k] = v
    def get(self, k: K, default: Optional[V] = None) -> Optional[V]:
        return self.data.get(k, default)
c: Cache[str, int] = Cache()
c.put("a", 1)
print(c.get("a"), c.get("b"), c.get("b", 0), Cache[int, int].__name__)
class HasArea(Protocol):
    def area(self) -> float: ...
class Sq:
    def __init__(self, s: float) -> None:
        self.s = s
    def area(self) -> float:
        return self.s ** 2
def total(shapes: List[HasArea]) -> float:
    return sum(s.area() for s in shapes)
print(total([Sq(2), Sq(3)]))
def parse(v: Union[int, str, None]) -> Any:
    if v is None:
        return 0
    return int(v)
print(parse("5"), parse(None), parse(7))
def countdown(n: int) -> Iterator[int]:
    while n:
        yield n
        n -= 1
print(list(countdown(3)))
Number = Union[int, float]
def half(x: Number) -> Number:
    return x / 2
print(half(3), isinstance(2.5, (int, float)), isinstance("x", Union[int, float]))
