x, y = 3, 4.5
name = "narwhal"
print(f"{x} {y} {name} {x + y} {x * 2:>5} {y:.3f} {name!r} {name!s:>10} {name.upper()}")
print(f"{x:08.3f}|{-x:+d}|{1234567:,}|{0.375:.1%}|{255:#06x}|{'a' if x > 2 else 'b'}")
w = 10
p = 3
print(f"{3.14159265:{w}.{p}f}|{'c':^{w}}|{[i * i for i in range(3)]}|{ {'a': 1}['a'] }")
print(f"{x=}" if False else f"x={x!r}", f"{'nested {}'.format(1)}", f"{len(name)}{name[0]}")
d = {"k": [1, 2]}
print(f"{d['k'][1]} {d} {(lambda v: v * 2)(5)} {x < y} {None} {True}")
print(f"{2**10:_>8}", f"{-12:<6}|", f"{12:=+6}", f"{1e-10:.2e}", f"{123.456:e}")
