from dataclasses import dataclass
@dataclass
class Cfg:
    tile: int
c = Cfg(128)
print(c.tile)
print(c.tiles)
