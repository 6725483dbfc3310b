def reader(lines):
    for i, line in enumerate(lines):
        if not line:
            raise ValueError(f"empty line {i}")
        yield line.upper()
print(list(reader(["a", "b"])))
for v in reader(["x", "", "y"]):
    print(v)
