l = [1, 2]
l.append(l)
print(l, len(l), l[2] is l)
d = {"k": 1}
d["self"] = d
print(d)
class Node:
    def __init__(self, name, kids=()):
        self.name = name
        self.kids = list(kids)
    def __repr__(self):
        return f"Node({self.name!r}, {self.kids!r})" if self.kids else f"Node({self.name!r})"
tree = Node("root", [Node("a"), Node("b", [Node("c")])])
print(tree, [tree], {"t": tree}, (tree,), str([Node("x")]))
