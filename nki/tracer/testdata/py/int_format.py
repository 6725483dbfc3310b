for v in [0, 7, -7, 255, -255, 10 ** 12, -(2 ** 70)]:
    print(f"{v:d}|{v:+d}|{v: d}|{v:8d}|{v:<8d}|{v:^8d}|{v:08d}|{v:,}|{v:_}|{v:x}|{v:#x}|{v:o}|{v:b}|{v:_b}")
print(f"{65:c}", f"{1234:e}", f"{1234:.2f}", f"{50:%}", f"{True:d}", f"{False}", f"{3:>5}", f"{-3:=5}", f"{3:*<4}")
try:
    f"{5:.2d}"
except ValueError as e:
    print("ValueError:", e)
try:
    f"{5:s}"
except ValueError as e:
    print("ValueError:", e)
