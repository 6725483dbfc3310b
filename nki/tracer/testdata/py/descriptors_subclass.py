class Positive:
    def __set_name__(self, owner, name):
        self.name = "_" + name
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.name, 0)
    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError(f"{self.name[1:]} must be positive, got {value}")
        setattr(obj, self.name, value)
class Doc:
    def __get__(self, obj, objtype=None):
        return f"doc of {objtype.__name__}"
class Tile:
    rows = Positive()
    cols = Positive()
    doc = Doc()
    def __init__(self, r, c):
        self.rows = r
        self.cols = c
t = Tile(2, 3)
print(t.rows, t.cols, t._rows, Tile.doc, t.doc, type(Tile.rows).__name__)
try:
    t.rows = -1
except ValueError as e:
    print("ValueError:", e)
class Plugin:
    registry = []
    def __init_subclass__(cls, kind="generic", **kw):
        super().__init_subclass__(**kw)
        cls.kind = kind
        Plugin.registry.append(cls.__name__)
class A(Plugin):
    pass
class B(Plugin, kind="special"):
    pass
print(Plugin.registry, A.kind, B.kind)
class Defaults(dict):
    def __missing__(self, key):
        return f"<{key}>"
d = Defaults(a=1)
print(d["a"], d["b"], len(d), "b" in d)
