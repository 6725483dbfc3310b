x = 5
y = 10 if x > 3 else 20
z = [1, 2, 3][1:][0]
print(y, z, (lambda: (yield))  if False else "no-yield", x if x else 0)
a = b = c = []
a.append(1)
print(a, b, c, a is c)
if (n := len("hello")) > 3:
    print("long", n)
print(*(i for i in range(3)))
print({**{"a": 1}}, [*"xy"], (*"ab",))
t = 1,
print(t, type(t).__name__)
def f(): pass
print(f(), f.__name__, type(f).__name__)
nums = [1, 2, 3]
print(nums[-1], nums[len(nums) - 1], -nums[0], +nums[1], ~nums[2], not nums)
print(1 if True else 2 if False else 3, [i for i in range(10)][::3], "ab"[::-1] * 2)
pass
del nums[0]
print(nums)
print(0x10 + 0o10 + 0b10, 1e3, 1_0, .5, 5., 1j.imag if False else 0)
w = 0
while w < 3: w += 1
print(w)
for q in range(2): print("q", q)
class E: pass
print(type(E()).__name__)
print(__name__)
