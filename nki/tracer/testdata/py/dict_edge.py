d = {"a": 1, "b": 2, "c": 3}
k = d.keys()
v = d.values()
i = d.items()
d["d"] = 4
print(k, v, i, len(k), "a" in k, 4 in v, ("d", 4) in i, k & {"a", "z"}, sorted(k | {"q"}), sorted(k - {"a"}))
try:
    for key in d:
        if key == "b":
            d["new"] = 0
except RuntimeError as e:
    print("RuntimeError:", e)
print(d)
try:
    {}.popitem()
except KeyError as e:
    print("KeyError:", e)
e = {}
e[1] = "one"
e[1.0] = "float one"
e[True] = "true"
print(e, len(e))
f = dict.fromkeys(["x", "y"], [])
f["x"].append(1)
print(f, {k: v for k, v in sorted({"b": 2, "a": 1}.items(), key=lambda kv: kv[1], reverse=True)})
g = {"k": 1}
print(g.get("k", 5), g.pop("k"), g, g == {}, {1: 2} != {1: 3}, list({3: 0, 1: 0, 2: 0}))
h = {(0, 0): "origin", (1, 2): "pt"}
print(h[(1, 2)], h.get((5, 5), "none"), sorted(h))
try:
    hash({})
except TypeError as e:
    print("TypeError:", e)
try:
    {[1, 2]: 3}
except TypeError as e:
    print("TypeError:", e)
