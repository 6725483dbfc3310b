s = slice(1, 5, 2)
print(s, s.start, s.stop, s.step, [0, 1, 2, 3, 4, 5][s], "abcdef"[s], s.indices(3), slice(None, 2).indices(10), slice(-1).indices(4))
print(slice(3), slice(1, 2) == slice(1, 2), (1, 2, 3)[slice(None, None, -1)], range(10)[slice(2, 8, 3)])
class Grid:
    def __getitem__(self, key):
        return key
g = Grid()
print(g[1], g[1:2], g[::2], g[1, 2], g[1:2, ::3], g[...], g[:, None], g[..., 0], g["k"])
class Sheet:
    def __init__(self):
        self.cells = {}
    def __setitem__(self, key, v):
        self.cells[key] = v
    def __getitem__(self, key):
        return self.cells.get(key, 0)
sh = Sheet()
sh[0, 1] = 5
sh[2, 2] += 3
print(sh[0, 1], sh[2, 2], sh[9, 9], sorted(sh.cells))
print(Ellipsis, ..., Ellipsis is ..., type(...).__name__, bool(...))
