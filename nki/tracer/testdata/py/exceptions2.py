class AppError(Exception):
    def __init__(self, msg, code=0):
        super().__init__(msg)
        self.code = code
    def __str__(self):
        return f"[{self.code}] {self.args[0]}"
try:
    raise AppError("disk full", 28)
except AppError as e:
    print(e, repr(e), e.code, e.args)
class Quiet(Exception):
    pass
print(str(Quiet()), repr(Quiet()), str(Quiet(1, 2)), repr(Quiet("a", "b")), Quiet.__mro__[1].__name__)
order = []
for exc in [KeyError("k"), IndexError(1), ZeroDivisionError(), TypeError("t"), StopIteration(5)]:
    try:
        raise exc
    except LookupError as e:
        order.append(("lookup", type(e).__name__))
    except (ArithmeticError, TypeError) as e:
        order.append(("arith/type", type(e).__name__))
    except Exception as e:
        order.append(("other", type(e).__name__, e.args))
print(order)
def convert(vals):
    out = []
    for v in vals:
        try:
            out.append(int(v))
        except ValueError:
            out.append(None)
            continue
        finally:
            out.append("|")
    return out
print(convert(["1", "x", "3"]))
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise ValueError("while handling")
except ValueError as e:
    print("chained:", e)
e1 = ValueError("v")
print(isinstance(e1, Exception), isinstance(e1, BaseException), issubclass(ValueError, Exception), issubclass(KeyError, LookupError))
try:
    raise Exception
except Exception as e:
    print(repr(e), e.args)
def gen_err():
    raise NotImplementedError
try:
    gen_err()
except NotImplementedError as e:
    print("NIE", repr(e), isinstance(e, RuntimeError))
try:
    raise 5
except TypeError as e:
    print("TypeError:", e)
try:
    try:
        raise KeyError("inner")
    except IndexError:
        print("wrong")
except KeyError as e:
    print("outer got", e)
