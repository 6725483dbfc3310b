class Good:
    size = 4
    double = size * 2
print(Good.double)
class Bad:
    items = [1, 2]
    first = items[0]
    missing = other_items[0]
