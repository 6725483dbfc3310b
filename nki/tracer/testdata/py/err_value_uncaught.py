import math
def tiles(n, size):
    if size <= 0:
        raise ValueError(f"tile size must be positive, got {size}")
    return math.ceil(n / size)
print(tiles(1000, 128))
print(tiles(1000, 0))
