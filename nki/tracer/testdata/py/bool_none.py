print(True and "x", False or "y", 0 or [] or "last", 1 and 2 and 3, None or 0, not None, not [], not [0])
print(True == 1, False == 0, True + 0.5, sum([True, True, False]), [1, 2][True], True is not False, bool(-1), bool(0.0))
print(repr(True), str(False), int(True), f"{True}", "%s %d" % (True, True), True & False, True | False, True ^ True)
print(None is None, type(None)(), None.__class__.__name__, [None] * 2, {None: 1}[None], bool(None), str(None))
x = None
print(x is None, x == None, (x or "default"), (x and x.attr) if x else "skipped")
def side(v, log):
    log.append(v)
    return v
log = []
r = side(0, log) and side(1, log)
r2 = side(1, log) or side(2, log)
print(r, r2, log)
print(max(True, 0), min(False, -1), abs(True), -False, True * "ab", sorted([True, False, 0, 1]))
