items = {"a": 1}
print(f"value: {items['a']}")
print(f"value: {items['b']}")
