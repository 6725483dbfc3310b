class Singleton:
    _inst = None
    def __new__(cls, *a):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
            cls._inst.made = 0
        cls._inst.made += 1
        return cls._inst
    def __init__(self, v):
        self.v = v
a = Singleton(1)
b = Singleton(2)
print(a is b, a.v, a.made)
class Proxy:
    def __init__(self, target):
        self._t = target
    def __getattr__(self, name):
        return getattr(self._t, name)
p = Proxy([3, 1, 2])
print(p.count(1), p.index(2), p._t)
class Recorder:
    def __init__(self):
        object.__setattr__(self, "log", [])
    def __setattr__(self, name, value):
        self.log.append(name)
        object.__setattr__(self, name, value)
r = Recorder()
r.x = 1
r.y = 2
print(r.log, r.x, r.y)
class Slots:
    __slots__ = ("a", "b")
    def __init__(self):
        self.a = 1
print(Slots().a, Slots.__slots__)
class Meta:
    registry = []
    def __init__(self, name):
        self.name = name
        type(self).registry.append(name)
class SubMeta(Meta):
    registry = []
Meta("a"); SubMeta("b"); SubMeta("c")
print(Meta.registry, SubMeta.registry)
class WithClassAttr:
    items = []
    def add(self, v):
        self.items.append(v)
w1, w2 = WithClassAttr(), WithClassAttr()
w1.add(1); w2.add(2)
print(WithClassAttr.items, w1.items is w2.items)
print(type(w1).__name__, w1.__class__.__name__, w1.__class__ is WithClassAttr, type(WithClassAttr), type(type))
class Guarded:
    def __init__(self):
        self.a = 1
        self.b = 2
    def __delattr__(self, name):
        if name == "a":
            raise AttributeError("a is protected")
        object.__delattr__(self, name)
g = Guarded()
del g.b
try:
    del g.a
except AttributeError as e:
    print("AttributeError:", e)
print(vars(g))
