class Op:
    def lower(self):
        raise NotImplementedError(f"{type(self).__name__}.lower is not implemented")
class Add(Op):
    def lower(self):
        return "add"
class Exp(Op):
    pass
for op in [Add(), Exp()]:
    print(op.lower())
