def ok(x=[1, 2][0]):
    return x
print(ok())
def bad(x=(lambda: 1 / 0)()):
    return x
