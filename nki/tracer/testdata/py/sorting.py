recs = [("b", 2), ("a", 2), ("c", 1), ("a", 1)]
print(sorted(recs), sorted(recs, key=lambda r: r[1]), sorted(recs, key=lambda r: r[1], reverse=True))
print(sorted(recs, key=lambda r: (-r[1], r[0])), sorted(["B", "a", "C"]), sorted(["B", "a", "C"], key=str.lower))
l = [5, 3, 5, 1]
l.sort(key=lambda v: -v)
print(l, sorted([0.5, -1, 3, 2.5]), sorted([[2], [1, 5], [1]]), sorted("hello", reverse=True))
stable = sorted([(1, "x"), (0, "y"), (1, "a"), (0, "b")], key=lambda p: p[0])
print(stable, sorted({3: "c", 1: "a"}.items()), sorted(set([3, 1, 2])), sorted(range(5), key=lambda v: v % 2))
print(min([(2, "a"), (1, "b")]), max(["apple", "fig"], key=len), min({"x": 3, "y": 1}, key={"x": 3, "y": 1}.get))
