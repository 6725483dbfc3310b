# Lexical structure: layout, continuations, comments, numbers next to keywords.
x = 1if y else 2
x = [0x1for x in y]
x = 1or 2
x = 1and 2
x = 1in y
x = 1is 2
x = 1.5if y else 2
x = 1jif y else 2
x = 1 \
    + 2
if x \
   and y:
    pass
def f(a,
      b):  # comment inside a header
    return (a +
# a comment line inside brackets
            b)


class A:

    # comment at another indentation
        # and another
    x = 1

    def m(self):
        pass
    # trailing comment

if x:
  \
  y = 1
if x:
	y = 1  # tab indentation
	if y:
		z = 2
	w = 3
if x:
        a = 1
else:
	b = 2
x = [
    1,
    2,
]
y = {

}
z = (  # comment
    3
)
é = 变量 = ñ_ø = 1
x = a ;
x = 1; y = 2; z = 3
x = "a" \
    "b"
x = f"{x}" \
    "c"
x = (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
x = 1
y = 2
if x:
    z = 3
      w = 4
x = 0  # the last line has trailing spaces    
    
