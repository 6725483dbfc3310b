rows = [("matmul", 123.456, 7), ("softmax", 0.5, 12345), ("norm", 99999.0, 0)]
print("{:<10}|{:>10}|{:^8}".format("name", "ms", "count"))
for n, ms, c in rows:
    print("{:<10}|{:>10.3f}|{:^8,}".format(n, ms, c))
print(f"{'total':<10}|{sum(r[1] for r in rows):>10.2f}|{sum(r[2] for r in rows):^8d}")
print("%-10s|%10.3f|%8d" % rows[0], "%s=%r" % ("k", "v"), "%c%c" % (104, "i"))
print("{0:b} {0:o} {0:x} {0:#X} {0:e}".format(3000), "{:.3}".format("abcdef"), "{:>{w}}".format("r", w=5))
print(f"{10:#b} {10:#o} {3.0:g} {0.00001:g} {1e20:g} {123456789:e} {-1.5:+.1f} {1.5: .1f}")
print("{:,}".format(-1234567.891), "{:_.2f}".format(1234567.891), "{:015,.2f}".format(-1234.5), "{:=^10}".format("mid"))
print(f"{'a':>{3}}{'b':<{3}}|", "{!r:^10}".format("q"), "{0}{0}{1}".format("ab", "c"), "{a[0]}{a[1]}".format(a="xy"))
class Fmt:
    def __format__(self, spec):
        return f"<Fmt {spec or 'default'}>"
print(f"{Fmt()} {Fmt():wide}", format(Fmt(), "x"), "{:>3}".format(Fmt()))
try:
    "{:d}".format("s")
except ValueError as e:
    print("ValueError:", e)
try:
    "{} {}".format(1)
except IndexError as e:
    print("IndexError:", e)
try:
    "{x}".format(y=1)
except KeyError as e:
    print("KeyError:", e)
try:
    "%d %d" % (1,)
except TypeError as e:
    print("TypeError:", e)
try:
    "%d" % (1, 2)
except TypeError as e:
    print("TypeError:", e)
