words = ["apple", "banana", "avocado", "cherry", "blueberry"]
by_letter = {}
for w in words:
    by_letter.setdefault(w[0], []).append(w)
print(by_letter, {k: len(v) for k, v in by_letter.items() if len(v) > 1})
print(sorted({w[0] for w in words}), sorted({len(w) for w in words}), {w: i for i, w in enumerate(words) if "e" in w})
sq = {x: x * x for x in range(-3, 4)}
print(sq, {v for v in sq.values()} == {0, 1, 4, 9}, {x: [y for y in range(x)] for x in range(3)})
pairs = {(a, b) for a in range(3) for b in range(3) if a < b}
print(sorted(pairs), len(pairs), (0, 1) in pairs)
matrix = {(i, j): i * 10 + j for i in range(2) for j in range(2)}
print(matrix, sum(matrix.values()), max(matrix, key=matrix.get))
inverted = {}
for k, v in {"a": 1, "b": 2, "c": 1}.items():
    inverted.setdefault(v, set()).add(k)
print({k: sorted(v) for k, v in inverted.items()})
