log = []
class CM:
    def __init__(self, name, swallow=False):
        self.name, self.swallow = name, swallow
    def __enter__(self):
        log.append("enter " + self.name)
        return self.name.upper()
    def __exit__(self, et, ev, tb):
        log.append(f"exit {self.name} {et.__name__ if et else None}")
        return self.swallow
with CM("a") as a, CM("b") as b:
    log.append(a + b)
print(log)
log.clear()
try:
    with CM("x"), CM("y", swallow=True):
        raise KeyError("k")
    log.append("after inner")
except KeyError:
    log.append("not reached")
print(log)
log.clear()
try:
    with CM("z"):
        raise ValueError("v")
except ValueError as e:
    log.append("caught " + str(e))
print(log)
def early():
    with CM("r"):
        return "returned"
print(early(), log[-1])
try:
    with 5:
        pass
except TypeError as e:
    print("TypeError:", e)
