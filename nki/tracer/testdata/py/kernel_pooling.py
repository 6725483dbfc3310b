def pool2d(img, k, stride, op=max):
    h, w = len(img), len(img[0])
    out_h, out_w = (h - k) // stride + 1, (w - k) // stride + 1
    out = []
    for i in range(out_h):
        row = []
        for j in range(out_w):
            window = [img[i * stride + di][j * stride + dj] for di in range(k) for dj in range(k)]
            row.append(op(window))
        out.append(row)
    return out
img = [[(r * 7 + c * 3) % 10 for c in range(6)] for r in range(6)]
print(pool2d(img, 2, 2), pool2d(img, 3, 1, op=lambda w: sum(w) // len(w))[0])
def mgrid(*dims):
    if len(dims) == 1:
        return [[i] for i in range(dims[0])]
    return [[i] + rest for i in range(dims[0]) for rest in mgrid(*dims[1:])]
print(mgrid(2, 3), len(mgrid(2, 2, 2)))
def affine(p, f, stride_p, stride_f, off):
    return [[off + i * stride_p + j * stride_f for j in range(f)] for i in range(p)]
print(affine(2, 3, 10, 1, 5), affine(3, 2, 1, 3, 0))
