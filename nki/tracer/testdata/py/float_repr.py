# float repr: shortest round-trip, CPython's switch to exponents
vals = [0.1, 0.2, 0.1 + 0.2, 1.0, -0.0, 1e16, 1e15, 123456789012345678.0, 1e-4, 1e-5, 0.00012345,
        1.5e-10, 3.14159, 2.5e300, 1e308 * 10, -1e308 * 10, 1 / 3, 2 / 3, 100.0, 1e22, 5e-324]
for v in vals:
    print(v, repr(v), str(v))
print(float("inf"), float("-inf"), float("nan"), float(" 1e3 "), float("-1_000.5"), float(7))
print(7.0 // 2, -7.0 // 2, 7.0 % -2, -7.5 % 2, divmod(7.5, 2), divmod(-7.5, 2), 2.0 ** 10, (-2.0) ** 3)
print(round(2.5), round(3.5), round(-2.5), round(0.5), round(1.5), round(2.675, 2), round(1.005, 2))
print(round(1234.5678, -2), round(1250, -2), round(1350, -2), round(-1250, -2), round(5, 1), round(0.125, 2))
print(int(1e20), int(-1e20), float(2 ** 100), 1e300 * 1e-300, 0.1 * 3)
print((0.5).is_integer(), (2.0).is_integer(), (0.75).as_integer_ratio(), 3.0 == 3, 3.5 > 3)
print(1e16 + 1, 2 ** 0.5, 10 / 4, 10 // 4.0, -0.0 == 0.0, abs(-0.0))
