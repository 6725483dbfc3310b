# Match statements: every pattern kind.
match command.split():
    case [action]:
        pass
    case [action, obj]:
        pass
    case [Point(x=0, y=0)]:
        pass
    case ["go", direction] | ["move", direction]:
        pass
    case ["drop", *objects]:
        pass
    case ["drop", *_]:
        pass
    case _:
        pass

match x:
    case 0:
        pass
    case -1:
        pass
    case 1.5:
        pass
    case 1 + 2j:
        pass
    case -1 - 2j:
        pass
    case 3j:
        pass
    case "s":
        pass
    case "a" "b":
        pass
    case b"b":
        pass
    case None:
        pass
    case True:
        pass
    case False:
        pass
    case Color.RED:
        pass
    case a.b.c:
        pass
    case (1):
        pass
    case (1 | 2) as z:
        pass
    case 1 | 2 | 3:
        pass
    case [1, 2] as l:
        pass
    case (1, 2):
        pass
    case ():
        pass
    case []:
        pass
    case (*rest,):
        pass
    case [*rest]:
        pass
    case 1, 2:
        pass
    case 1, *rest:
        pass
    case *rest, 1:
        pass
    case {}:
        pass
    case {"a": 1, "b": [x, y]}:
        pass
    case {"a": 1, **rest}:
        pass
    case {**rest}:
        pass
    case {1: _, -1: _, 1+2j: _, None: _, True: _, Color.RED: _}:
        pass
    case Point():
        pass
    case Point(1, 2):
        pass
    case Point(1, y=2):
        pass
    case Point(x=1, y=2,):
        pass
    case a.Point(x=[1, 2], y={"k": v}):
        pass
    case x if x > 0:
        pass
    case x if (y := x):
        pass
    case capture:
        pass

match x, y:
    case a, b:
        pass

match x, *y:
    case _:
        pass

match (x):
    case _:
        pass

match -x:
    case _:
        pass

match [x, y]:
    case _:
        pass

match = 1
match.x = 2
match(x)
match[0] = 3
case = 1
_ = 2
print(match, case, _)
