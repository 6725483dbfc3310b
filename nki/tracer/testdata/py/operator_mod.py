import operator
from operator import itemgetter, attrgetter, methodcaller
print(operator.add(2, 3), operator.mul("a", 3), operator.neg(4), operator.getitem([1, 2], 1), operator.truediv(1, 4), operator.floordiv(7, 2))
print(operator.eq(1, 1.0), operator.lt(1, 2), operator.not_(0), operator.contains([1], 1), operator.and_(6, 3), operator.xor(6, 3), operator.mod(-7, 3))
rows = [("b", 2), ("a", 3), ("c", 1)]
print(sorted(rows, key=itemgetter(1)), sorted(rows, key=itemgetter(0)), itemgetter(0, 1)(("x", "y", "z")))
class P:
    def __init__(self, n):
        self.n = n
        self.child = None
p = P(1)
p.child = P(2)
print(attrgetter("n")(p), attrgetter("child.n")(p), attrgetter("n", "child.n")(p), methodcaller("upper")("abc"), methodcaller("split", ",")("a,b"))
l = [1]
operator.setitem(l, 0, 9); print(l, operator.index(5), operator.is_(None, None), operator.pow(2, 5), operator.iadd([1], [2]))
