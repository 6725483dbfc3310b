pairs = [(1, "a"), ("a", 1), ([1], (1,)), ({}, {}), (None, 1), ([], 1.5), ("a", "b")]
for a, b in pairs:
    for name, fn in [("+", lambda: a + b), ("-", lambda: a - b), ("*", lambda: a * b), ("<", lambda: a < b)]:
        try:
            r = fn()
            print(name, repr(r))
        except TypeError as e:
            print(name, "TypeError:", e)
for fn in [lambda: -"s", lambda: ~1.5, lambda: abs("x"), lambda: len(5), lambda: 5[0], lambda: 5(), lambda: iter(5), lambda: hash([]),
           lambda: {[]: 1}, lambda: sum(["a", "b"]), lambda: sorted([1, "a"]), lambda: "%d" % "x", lambda: "a" * 1.5, lambda: [1] * "2"]:
    try:
        fn()
    except TypeError as e:
        print("TypeError:", e)
