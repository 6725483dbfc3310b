def check(shape):
    p, f = shape
    assert p <= 128, f"partition dim {p} exceeds 128"
    return p * f
print(check((64, 2)))
print(check((256, 2)))
