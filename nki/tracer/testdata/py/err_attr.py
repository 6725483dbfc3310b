class Thing:
    def __init__(self):
        self.size = 3
t = Thing()
for expr in [lambda: t.sise, lambda: Thing.nope, lambda: (5).foo, lambda: "s".foo, lambda: [].nope, lambda: None.x]:
    try:
        expr()
    except AttributeError as e:
        print("AttributeError:", e)
import math
try:
    math.nope
except AttributeError as e:
    print("AttributeError:", e)
print(t.size)
print(t.weight)
