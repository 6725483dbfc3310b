def risky(kind):
    if kind == 0:
        raise ValueError("bad value")
    if kind == 1:
        return {}["missing"]
    if kind == 2:
        return [1][5]
    if kind == 3:
        return 1 / 0
    if kind == 4:
        return undefined_name
    if kind == 5:
        return "a" + 1
    if kind == 6:
        return None.attr
    return "ok"
for k in range(8):
    try:
        print("result", risky(k))
    except (ValueError, KeyError) as e:
        print("VK", type(e).__name__, e, repr(e), e.args)
    except LookupError as e:
        print("Lookup", type(e).__name__, e)
    except ArithmeticError as e:
        print("Arith", e)
    except Exception as e:
        print("Exc", type(e).__name__, e)
    else:
        print("no error")
    finally:
        print("finally", k)
class MyError(Exception):
    def __init__(self, code, msg):
        super().__init__(f"{code}: {msg}")
        self.code = code
class Sub(MyError):
    pass
try:
    raise Sub(42, "custom")
except MyError as e:
    print(type(e).__name__, e, e.code, e.args, isinstance(e, Exception))
def reraise():
    try:
        raise KeyError("k")
    except KeyError:
        print("handling")
        raise
try:
    reraise()
except KeyError as e:
    print("reraised", repr(e))
def fin():
    try:
        return "try"
    finally:
        print("fin runs")
print(fin())
def fin2():
    for i in range(3):
        try:
            if i == 1:
                break
        finally:
            print("f", i)
    return i
print(fin2())
try:
    try:
        raise TypeError("inner")
    finally:
        print("cleanup")
except TypeError as e:
    print("outer caught", e)
e = Exception("a", 1)
print(e.args, str(e), repr(e), str(Exception()), repr(ValueError()), str(KeyError("k")), repr(KeyError("k")))
try:
    raise RuntimeError
except RuntimeError as err:
    print(type(err), err.args)
try:
    assert 1 == 2, "one is not two"
except AssertionError as e:
    print("assert:", e)
try:
    assert False
except AssertionError as e:
    print("bare assert:", repr(e))
try:
    raise ValueError("x") from KeyError("y")
except ValueError as e:
    print("from:", e)
