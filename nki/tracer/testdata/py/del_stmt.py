class O:
    pass
o = O()
o.a = 1
o.b = 2
del o.a
print(hasattr(o, "a"), o.b, vars(o))
d = {"x": 1, "y": 2, "z": 3}
del d["y"]
print(d)
l = [0, 1, 2, 3, 4, 5]
del l[1], l[2]
print(l)
del l[:2]
print(l)
x = 5
del x
try:
    print(x)
except NameError as e:
    print("NameError:", e)
try:
    del o.nope
except AttributeError as e:
    print("AttributeError:", e)
try:
    del d["nope"]
except KeyError as e:
    print("KeyError:", e)
a, b = 1, 2
del a, b
print("a" in globals(), "b" in dir())
