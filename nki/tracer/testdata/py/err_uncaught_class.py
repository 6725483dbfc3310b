class ShapeError(ValueError):
    pass
def validate(shape):
    if len(shape) != 2:
        raise ShapeError(f"expected 2 dims, got {len(shape)}: {shape}")
    return shape
validate((1, 2))
try:
    validate((1,))
except ValueError as e:
    print("caught", type(e).__name__, e)
validate((1, 2, 3))
