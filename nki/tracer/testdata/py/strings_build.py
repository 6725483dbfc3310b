parts = []
for i in range(5):
    parts.append(f"{i:02d}")
print("-".join(parts), ",".join(str(x) for x in range(3)), "".join(reversed("abc")))
name = "tensor_add_kernel"
print(name.split("_"), name.replace("_", " ").title(), name.upper(), name[:6], name[-6:], name.count("_"), name.find("add"))
camel = "".join(p.capitalize() for p in name.split("_"))
print(camel, camel[0].lower() + camel[1:], len(camel))
line = "  key = value # comment "
k, _, rest = line.partition("=")
v = rest.split("#")[0].strip()
print(repr(k.strip()), repr(v))
table = [("a", 1), ("bbb", 22), ("cc", 333)]
width = max(len(n) for n, _ in table)
for n, val in table:
    print(n.ljust(width), "|", str(val).rjust(4), "|", f"{val:>6.1f}")
csv = "x,y\n1,2\n3,4\n"
rows = [r.split(",") for r in csv.strip().splitlines()]
print(rows, [[int(c) for c in r] for r in rows[1:]])
s = "The quick brown fox"
print(" ".join(w[::-1] for w in s.split()), s.lower().count("o"), sorted(s.lower().split(), key=len), s.swapcase())
print("%s has %d chars" % (s, len(s)), "{} {}".format(*s.split()[:2]), f"{s!r:.8}")
