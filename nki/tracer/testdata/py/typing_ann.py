from typing import Optional, List, Dict, Tuple, Union, Any, Callable, TYPE_CHECKING, cast, overload, TypeVar, Generic, Sequence
T = TypeVar("T")
if TYPE_CHECKING:
    import does_not_exist
def f(a: int, b: Optional[str] = None, *rest: Any, **kw: Dict[str, int]) -> List[int]:
    return [a]
print(f(1), f.__annotations__["a"], sorted(f.__annotations__))
class Box(Generic[T]):
    def __init__(self, v: T) -> None:
        self.v = v
    def get(self) -> T:
        return self.v
print(Box[int](3).get(), Box("s").get(), cast(int, "x"), isinstance(3, Union[int, str]), isinstance(3.0, int | str))
x: int = 5
y: Tuple[int, ...] = (1, 2)
z: "forward ref only"
print(x, y, __annotations__["x"], "z" in __annotations__)
def g(cb: Callable[[int], int], seq: Sequence[int]) -> int:
    return sum(cb(v) for v in seq)
print(g(lambda v: v * 2, [1, 2, 3]), isinstance([], List), isinstance({}, Dict), int | None)
class Cfg:
    size: int = 3
    name: str
print(Cfg.size, Cfg.__annotations__)
