def hanoi(n, a="A", b="B", c="C", moves=None):
    if moves is None:
        moves = []
    if n:
        hanoi(n - 1, a, c, b, moves)
        moves.append((a, c))
        hanoi(n - 1, b, a, c, moves)
    return moves
print(len(hanoi(10)), hanoi(2))
def is_even(n):
    return True if n == 0 else is_odd(n - 1)
def is_odd(n):
    return False if n == 0 else is_even(n - 1)
print(is_even(100), is_odd(7))
def perms(s):
    if len(s) <= 1:
        return [s]
    return [c + p for i, c in enumerate(s) for p in perms(s[:i] + s[i + 1:])]
print(perms("abc"))
def flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for e in x for y in flatten(e)]
    return [x]
print(flatten([1, [2, (3, [4])], [[5]]]))
def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)
print(gcd(1071, 462), gcd(2 ** 40, 6 ** 20))
def qsort(xs):
    if not xs:
        return []
    p, *rest = xs
    return qsort([x for x in rest if x < p]) + [p] + qsort([x for x in rest if x >= p])
print(qsort([5, 3, 8, 1, 9, 2, 7]))
memo = {}
def ways(n):
    if n < 0:
        return 0
    if n == 0:
        return 1
    if n not in memo:
        memo[n] = ways(n - 1) + ways(n - 2) + ways(n - 3)
    return memo[n]
print(ways(50))
