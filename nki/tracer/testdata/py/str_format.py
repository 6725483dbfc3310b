print("{} and {}".format(1, 2), "{1} {0} {1}".format("a", "b"), "{name}:{val}".format(name="x", val=3))
print("{:>8}|{:<8}|{:^8}|{:*^9}".format("r", "l", "c", "s"))
print("{:d} {:5d} {:05d} {:+d} {: d} {:,} {:_} {:x} {:X} {:#x} {:o} {:#o} {:b} {:#b} {:08b}".format(
    42, 42, 42, 42, 42, 1234567, 1234567, 255, 255, 255, 8, 8, 5, 5, 5))
print("{:f} {:.2f} {:10.3f} {:e} {:.2E} {:g} {:.3g} {:g} {:g} {:%} {:.1%}".format(
    3.14159, 3.14159, 3.14159, 31415.9, 31415.9, 0.0001, 1234567.0, 1e-5, 1e16, 0.25, 0.125))
print("{:,.2f} {:010.2f} {:+.1f} {:-^12.3f} {:.0f} {:.0f} {:#.0f}".format(1234567.891, -3.14159, 2.0, 1.5, 2.5, 3.5, 2.0))
print("{!r} {!s} {0.real} {1[0]} {2[k]}".format("x", "y", [7], {"k": "v"}) if False else "{0!r} {1!s}".format("x", "y"))
print("{0[1]} {1.imag} {2[k]}".format([1, 2], 3.5, {"k": "v"}))
print("{:{w}.{p}f}".format(3.14159, w=10, p=2), "{{literal}}", "{:>{}}".format("x", 4))
print(format(3.5), format(42, "08.3f"), format("s", ">3"), format(True), format(True, "d"), format(1e100, ".3"))
print(format(1234.5, ".3"), format(0.5, ".3"), format(100.0, ".3"), format(1.0, ".1"), format(12, "c") if False else format(65, "c"))
print(format(-0.0, ".1f"), format(float("inf"), "f"), format(float("nan"), "10f"), format(float("-inf"), "+.2e"))
print(format(123, "010,"), format(1234, "09,"), format(-1234, "08,"), format(12345678, "_x"), format(1.23456e-7, "g"))
