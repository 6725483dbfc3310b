vals = [1, 0]
for a, b in [(1, 0), (1.0, 0), (5, 0.0)]:
    for op in ["/", "//", "%"]:
        try:
            print(eval_op := None)
        except Exception:
            pass
def div(a, b, op):
    if op == "/":
        return a / b
    if op == "//":
        return a // b
    return a % b
for a, b in [(1, 0), (1.0, 0), (5, 0.0)]:
    for op in ["/", "//", "%"]:
        try:
            div(a, b, op)
        except ZeroDivisionError as e:
            print(a, op, b, "->", e)
try:
    divmod(1, 0)
except ZeroDivisionError as e:
    print(e)
print(vals[0] / vals[1])
