data = {"a": [1, 2, 3]}
for fn in [lambda: data["b"], lambda: data["a"][5], lambda: (1, 2)[-3], lambda: "ab"[2], lambda: [][0], lambda: {}.pop(1),
           lambda: [].pop(), lambda: [1].index(7), lambda: "abc".index("z"), lambda: range(3)[3], lambda: data[[1]]]:
    try:
        fn()
    except (LookupError, ValueError, TypeError) as e:
        print(type(e).__name__, repr(e), e)
x = data["a"][1:][7]
