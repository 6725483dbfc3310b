# int arithmetic with Python's floor semantics and big ints
for a in (7, -7, 0, 13, -13):
    for b in (3, -3, 1, -1, 5):
        print(a, b, a // b, a % b, divmod(a, b), a / b)
print(2 ** 64, -2 ** 63, (-2) ** 63, 2 ** -2, 10 ** 20 // 7, 10 ** 20 % 7)
big = 3 ** 100
print(big, big // 3 ** 50, big % 1000007, -big // 7, -big % 7)
print(1 << 70, (1 << 70) >> 65, -1 >> 3, ~5, ~-1, 5 & 3, 5 | 3, 5 ^ 3, -6 & 0xFF)
print(9223372036854775807 + 1, -9223372036854775808 - 1, 9223372036854775807 * 2)
print(abs(-5), abs(-2 ** 70), int(-3.9), int(3.9), int("  -42  "), int("ff", 16), int("0b101", 0), int("1_000"))
print(pow(3, 4), pow(3, 4, 5), pow(2, -1, 7), pow(-3, 3, 5), pow(2, 0.5))
print(True + True, True * 3, False - 1, True / 2, -True, ~True)
print((12).bit_length(), (-255).bit_length(), (0).bit_length(), (255).bit_count())
print(hash(1) == hash(1.0) == hash(True), hash(-1), hash(2 ** 61), hash(-2 ** 61 - 5))
print(0 == 0.0, 1 < 1.5, 2 ** 53 + 1 == float(2 ** 53 + 1), 10 ** 30 > 1e29, -(10 ** 30) < -1e29)
print(int.__name__, type(3), type(2 ** 100), isinstance(True, int))
