x = "global"
def read():
    return x
def shadow():
    x = "local"
    return x
def unbound():
    try:
        print(x)
    except UnboundLocalError as e:
        print("UnboundLocalError:", e)
    x = 1
print(read(), shadow(), x)
unbound()
class K:
    x = "class"
    y = x + "!"
    def m(self):
        return x
    z = [x for _ in range(1)]
print(K.x, K.y, K().m(), K.z)
def outer():
    v = 1
    class Inner:
        w = v + 1
        def get(self):
            return v
    return Inner.w, Inner().get()
print(outer())
def lc():
    n = 3
    return [n * i for i in range(n)]
print(lc())
g = 10
def setg():
    global g, newg
    g = 20
    newg = "made"
setg()
print(g, newg)
def delete():
    t = 1
    del t
    try:
        return t
    except UnboundLocalError as e:
        return str(e)
print(delete())
try:
    print(never_defined)
except NameError as e:
    print("NameError:", e)
