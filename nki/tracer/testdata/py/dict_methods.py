d = {"a": 1, "b": 2}
d["c"] = 3
print(d, len(d), d["a"], d.get("z"), d.get("z", 0), "a" in d, "z" not in d)
print(list(d.keys()), list(d.values()), list(d.items()), d.keys(), d.values(), d.items())
print(d.pop("b"), d.pop("zz", "default"), d, d.setdefault("a", 9), d.setdefault("n", []), d)
d.update({"x": 10}, y=11); d.update([("z", 12)]); print(d)
print(d.popitem(), d, d.copy() == d, d.copy() is d)
e = dict(a=1, b=2); f = dict([("k", "v")]); g = dict(zip("ab", [1, 2])); h = dict.fromkeys("xy", 0)
print(e, f, g, h, {**e, **f, "new": 1}, e | {"b": 20, "c": 3})
e |= {"q": 0}; print(e)
for k, v in e.items():
    print(k, v, end="; ")
print()
del e["a"]; print(e); e.clear(); print(e, bool(e), bool({1: 2}))
num = {1: "int", 1.0: "float", True: "bool"}
print(num, {(1, 2): "t"}[(1, 2)], {1: "a"} == {1.0: "a"}, dict(sorted({"b": 1, "a": 2}.items())))
counts = {}
for ch in "mississippi":
    counts[ch] = counts.get(ch, 0) + 1
print(counts, sorted(counts, key=counts.get, reverse=True), max(counts.values()))
inv = {v: k for k, v in {"a": 1, "b": 2}.items()}
print(inv, list(reversed({"a": 1, "b": 2})), {k: v for k, v in zip(range(3), "xyz") if k})
