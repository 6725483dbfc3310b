def needs_args(n):
    def deco(f):
        if n < 0:
            raise ValueError("negative count")
        return f
    return deco
@needs_args(1)
def fine():
    return 1
print(fine())
@needs_args(-1)
def broken():
    return 2
