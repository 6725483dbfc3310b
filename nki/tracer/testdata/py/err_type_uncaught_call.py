def kernel(a_tensor, b_tensor, *, scale=1.0):
    return a_tensor, b_tensor, scale
print(kernel(1, 2, scale=3))
kernel(1, 2, 3)
