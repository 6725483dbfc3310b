def f(x):
    try:
        if x == 0:
            return "zero"
        if x == 1:
            raise ValueError("one")
        return "other"
    except ValueError as e:
        return "caught " + str(e)
    finally:
        print("finally", x)
print(f(0), f(1), f(2))
def override():
    try:
        return 1
    finally:
        return 2
print(override())
def swallow():
    for i in range(3):
        try:
            raise KeyError(i)
        finally:
            if i < 2:
                continue
    return "done"
try:
    print(swallow())
except KeyError as e:
    print("escaped", e)
def nested():
    out = []
    try:
        try:
            out.append(1)
            raise TypeError("t")
        except TypeError:
            out.append(2)
            raise ValueError("v")
        finally:
            out.append(3)
    except ValueError as e:
        out.append(str(e))
    return out
print(nested())
def except_as_deleted():
    try:
        raise ValueError("x")
    except ValueError as err:
        pass
    try:
        return err
    except NameError as e:
        return "NameError: " + str(e)
print(except_as_deleted())
try:
    raise
except RuntimeError as e:
    print("RuntimeError:", e)
def else_clause(x):
    try:
        v = 10 // x
    except ZeroDivisionError:
        return "div0"
    else:
        return v
    finally:
        print("fin")
print(else_clause(2), else_clause(0))
