import copy
a = [[1, 2], {"k": [3]}]
b = copy.copy(a)
c = copy.deepcopy(a)
a[0].append(99)
a[1]["k"].append(4)
print(a, b, c, b[0] is a[0], c[0] is a[0])
class Node:
    def __init__(self, v, kids=None):
        self.v = v
        self.kids = kids or []
n = Node(1, [Node(2)])
m = copy.deepcopy(n)
m.kids[0].v = 20
s = copy.copy(n)
print(n.kids[0].v, m.kids[0].v, s.kids is n.kids, m.kids is n.kids)
cyc = [1]
cyc.append(cyc)
d = copy.deepcopy(cyc)
print(d[1] is d, d[0], cyc)
t = (1, [2])
u = copy.deepcopy(t)
u[1].append(3)
print(t, u)
