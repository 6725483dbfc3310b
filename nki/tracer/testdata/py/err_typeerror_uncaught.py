def scale(values, factor):
    return [v * factor for v in values]
print(scale([1, 2], 3))
print(scale(5, 3))
