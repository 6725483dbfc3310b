class BadBool:
    def __bool__(self):
        return 1
class BadLen:
    def __len__(self):
        return -1
class BadStr:
    def __str__(self):
        return 5
class BadInit:
    def __init__(self):
        return 5
class NoIter:
    pass
for f in [lambda: bool(BadBool()), lambda: len(BadLen()), lambda: str(BadStr()), lambda: BadInit(), lambda: iter(NoIter()),
          lambda: list(NoIter()), lambda: NoIter()[0], lambda: NoIter()(), lambda: len(NoIter()), lambda: NoIter() + 1, lambda: -NoIter()]:
    try:
        f()
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ":", e)
class OnlyIter:
    def __iter__(self):
        return iter([1, 2, 3])
print(2 in OnlyIter(), 5 in OnlyIter(), list(OnlyIter()), sorted(OnlyIter(), reverse=True))
class Fallback:
    def __getattr__(self, name):
        if name.startswith("get_"):
            return lambda: name[4:]
        raise AttributeError(name)
fb = Fallback()
print(fb.get_x(), fb.get_shape(), hasattr(fb, "other"), getattr(fb, "other", "dflt"))
class EqOnly:
    def __eq__(self, o):
        return True
print(EqOnly() == 1, EqOnly() != 1, EqOnly.__hash__ is None)
