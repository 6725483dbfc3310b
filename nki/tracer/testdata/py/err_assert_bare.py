def check_dims(dims):
    for d in dims:
        assert d > 0
    return True
print(check_dims([1, 2]))
check_dims([1, 0, 2])
