def helper(n):
    total = 0
    for i in range(n):
        total += i
    return totl
print("before")
helper(3)
