vals = [0.285, 0.125, 0.375, 2.675, 1.005, -0.5, -1.5, 1e-8, 123.455, 5e-324, 1e300]
for v in vals:
    print(v, round(v), round(v, 2), round(v, 1), round(v, -1), f"{v:.2f}")
print(round(10.0), type(round(10.0)).__name__, type(round(10.0, 1)).__name__, round(-0.0), round(0.4999999999999999))
print(int(2.9), int(-2.9), int("7"), float("  -3.5e2 "), float("1_000.000_1"))
for bad in ["3.5", "", " ", "1e5", "0x", "--1"]:
    try:
        int(bad)
    except ValueError as e:
        print("ValueError:", e)
for bad in ["abc", "1..2", "", "nan1"]:
    try:
        float(bad)
    except ValueError as e:
        print("ValueError:", e)
