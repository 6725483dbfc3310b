import itertools as it
print(list(it.product([1, 2], "ab")), list(it.product(range(2), repeat=2)))
print(list(it.chain([1, 2], (3,), "ab")), list(it.chain.from_iterable([[1], [2, 3]])))
print(list(it.combinations("abcd", 2)), list(it.combinations_with_replacement([1, 2], 2)))
print(list(it.permutations([1, 2, 3])), list(it.permutations("abc", 2)))
print(list(it.accumulate([1, 2, 3, 4])), list(it.accumulate([1, 2, 3], lambda a, b: a * b)), list(it.accumulate([1, 2], initial=10)))
print(list(it.repeat("x", 3)), list(it.islice(it.count(5, 2), 4)), list(it.islice("abcdefg", 2, 6, 2)), list(it.islice(range(10), 3)))
print(list(it.zip_longest([1, 2, 3], "ab", fillvalue="-")), list(it.starmap(pow, [(2, 3), (3, 2)])))
print(list(it.takewhile(lambda v: v < 3, [1, 2, 3, 1])), list(it.dropwhile(lambda v: v < 3, [1, 2, 3, 1])))
print(list(it.filterfalse(lambda v: v % 2, range(6))), list(it.compress("abcd", [1, 0, 1, 0])), list(it.pairwise([1, 2, 3])))
print([(k, list(g)) for k, g in it.groupby("aabbbc")], [(k, len(list(g))) for k, g in it.groupby([1, 3, 2, 4], key=lambda v: v % 2)])
cyc = it.cycle("ab")
print([next(cyc) for _ in range(5)])
for i in it.count():
    if i > 3:
        break
print(i, [list(x) for x in it.tee([1, 2], 2)])
