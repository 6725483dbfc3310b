shape = (128, 512)
print(shape[0], shape[-1])
print(shape[2])
