def safe_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return float("inf")
    except TypeError as e:
        return f"type: {e}"
print(safe_div(1, 2), safe_div(1, 0), safe_div("a", 1))
class ResourceError(Exception):
    pass
class AllocError(ResourceError):
    def __init__(self, what, need, have):
        super().__init__(what, need, have)
        self.what, self.need, self.have = what, need, have
    def __str__(self):
        return f"{self.what}: need {self.need}, have {self.have}"
def alloc(need):
    have = 100
    if need > have:
        raise AllocError("sbuf", need, have)
    return need
results = []
for n in [10, 200, 50]:
    try:
        results.append(alloc(n))
    except ResourceError as e:
        results.append(str(e))
        results.append(e.args)
print(results)
def cleanup_order():
    log = []
    try:
        try:
            log.append("body")
            raise KeyError("k")
        finally:
            log.append("inner finally")
    except KeyError:
        log.append("handler")
    finally:
        log.append("outer finally")
    return log
print(cleanup_order())
def retry(fn, times):
    last = None
    for attempt in range(times):
        try:
            return fn(attempt)
        except ValueError as e:
            last = e
    raise RuntimeError(f"failed after {times} attempts: {last}")
print(retry(lambda a: a if a >= 2 else int("x"), 5))
try:
    retry(lambda a: int("y"), 2)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    raise ValueError("a", "b")
except ValueError as e:
    print(str(e), e.args[1], len(e.args))
try:
    {}["x"]
except Exception as e:
    print(type(e).__mro__[1].__name__, isinstance(e, LookupError))
