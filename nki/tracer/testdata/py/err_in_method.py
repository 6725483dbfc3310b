class Matrix:
    def __init__(self, rows):
        self.rows = rows
    def shape(self):
        return len(self.rows), len(self.rows[0])
    def matmul(self, other):
        n, k = self.shape()
        k2, m = other.shape()
        if k != k2:
            raise ValueError(f"shapes {self.shape()} and {other.shape()} do not align")
        return Matrix([[sum(self.rows[i][t] * other.rows[t][j] for t in range(k)) for j in range(m)] for i in range(n)])
a = Matrix([[1, 2], [3, 4]])
print(a.matmul(a).rows)
b = Matrix([[1, 2, 3]])
a.matmul(b)
