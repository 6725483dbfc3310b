cfg = {"layers": [{"name": "a", "dims": (128, 512)}, {"name": "b", "dims": (64, 64)}], "dtype": "bf16"}
print(cfg["layers"][1]["dims"][0], [l["name"] for l in cfg["layers"]], sum(d[0] * d[1] for d in (l["dims"] for l in cfg["layers"])))
grid = [[0] * 3 for _ in range(2)]
grid[0][1] = 5
alias = [[0] * 3] * 2
alias[0][1] = 5
print(grid, alias)
tree = {"v": 1, "kids": [{"v": 2, "kids": []}, {"v": 3, "kids": [{"v": 4, "kids": []}]}]}
def total(t):
    return t["v"] + sum(total(k) for k in t["kids"])
print(total(tree))
d = {}
d.setdefault("a", []).append(1)
d.setdefault("a", []).append(2)
print(d, {k: len(v) for k, v in d.items()})
m = {i: {j: i * j for j in range(3)} for i in range(2)}
print(m, m[1][2])
s = [1, 2, 3]
for x in s:
    if x == 2:
        s.append(4)
print(s)
keys = {"b": 1, "a": 2}
del keys["b"]
keys["b"] = 3
print(keys, list(keys))
