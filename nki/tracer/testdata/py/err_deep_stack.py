def level3(x):
    return x["missing"]
def level2(x):
    return level3(x) + 1
def level1(x):
    return [level2(x)]
try:
    level1({})
except KeyError as e:
    print("caught", e)
level1({"present": 1})
