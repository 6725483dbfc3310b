table = {"bf16": 2, "fp32": 4}
def size_of(dtype):
    return table[dtype]
print(size_of("bf16"))
print(size_of("fp8"))
