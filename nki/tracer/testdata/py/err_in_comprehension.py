def parse(s):
    return int(s)
vals = ["1", "2", "three"]
print([parse(v) for v in vals[:2]])
total = sum(
    parse(v)
    for v in vals
)
