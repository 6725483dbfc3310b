l = [3, 1, 2]
l.append(4); l.extend([5, 6]); l.insert(0, 0); l.insert(-1, 9); l.insert(100, 7)
print(l, len(l), l.pop(), l.pop(0), l.pop(-2), l)
l.remove(9); print(l, l.index(2), l.count(1), l.index(3, 0, 4))
l.sort(); print(l); l.sort(reverse=True); print(l); l.reverse(); print(l)
words = ["banana", "Apple", "cherry", "date"]
words.sort(key=str.lower); print(words)
words.sort(key=len, reverse=True); print(words)
print(sorted(words, key=lambda w: (len(w), w)), sorted([3, 1, 2]), sorted("cba"), sorted((2, 1)))
c = l.copy(); c.clear(); print(c, l)
m = [1, 2, 3, 4, 5, 6]
print(m[1:4], m[::2], m[::-1], m[-2:], m[:-2], m[4:1:-1], m[10:], m[-10:2])
m[1:3] = ["a", "b", "c"]; print(m)
m[::2] = [0, 0, 0, 0] if len(m[::2]) == 4 else [0] * len(m[::2]); print(m)
del m[0]; print(m); del m[1:3]; print(m); del m[::2]; print(m)
print([1, 2] + [3], [0] * 3, 2 * [1, 2], [[0] * 2] * 2, [] * 5, [1, 2] == [1, 2], [1, 2] < [1, 3], [1] < [1, 0])
n = [1, 2]; n += [3]; n *= 2; print(n)
nested = [[1, 2], [3, [4, 5]]]
print(nested[1][1][0], 3 in [1, 2, 3], 4 not in [1, 2], [1, [2]] == [1, [2]], list(range(3)), list("ab"))
print(max([1, 3, 2]), min([4, 2, 8]), sum([1, 2, 3]), sum([[1], [2]], []), any([0, 0, 1]), all([1, 0]), all([]))
