# Strings: prefixes, quotes, escapes, concatenation, f-strings.
a = 'single'
a = "double"
a = '''triple
single'''
a = """triple
double"""
a = ''
a = ""
a = ''''''
a = """"""
a = 'it''s'
a = "a" 'b' """c""" '''d'''
a = ("implicit"
     "concatenation")
a = r'\n\t\\'
a = R"\d+"
a = b'bytes'
a = B"bytes"
a = br'\x00'
a = Rb'\x00'
a = rB'\x00'
a = b'a' b'b' rb'c'
a = u'unicode'
a = U'unicode'
a = u'a' 'b'
a = 'a' u'b'
a = '\n\t\r\\\'\"\a\b\f\v\0'
a = '\x41\x4a\u00e9\U0001F600\101\7\77\777'
a = b'\x41\xff\101\7\77\777\n\\'
a = '\d\w\s\%'
a = b'\d\w'
a = 'line\
continued'
a = """multi
line \
continued"""
a = 'héllo wörld €'
a = '日本語'
a = '\ud800'
a = f'plain'
a = f''
a = F"{x}"
a = f'{x}'
a = f'{x!r}'
a = f'{x!s}'
a = f'{x!a}'
a = f'{x:>10}'
a = f'{x:{width}.{precision}}'
a = f'{x!r:^{w}}'
a = f'{x=}'
a = f'{x = }'
a = f'{x=!s}'
a = f'{x=:>10}'
a = f'{x=!r:10}'
a = f'{ x }'
a = f'{x,y}'
a = f'{x, y}'
a = f'{(x, y)}'
a = f'{[1, 2]}'
a = f'{ {1: 2}[1] }'
a = f'{x["k"]}'
a = f"{x['k']}"
a = f'{x:}'
a = f'{{literal}}'
a = f'{{{x}}}'
a = f'}}{{'
a = f'a{x}b{y}c'
a = f'{x}{y}'
a = f'{x}' f'{y}'
a = 'a' f'{x}' 'b'
a = f'{x}' 'b' f'{y}'
a = u'a' f'{x}' 'b'
a = rf'\d{x}\d'
a = fr'{x}\n'
a = Rf'{x}'
a = fR'{x}'
a = f'\n{x}\t'
a = f'\x41{x}\u00e9'
a = f"""
multi {x}
line {y!r}
"""
a = f'''{
    x
}'''
a = f'''{x +
y}'''
a = (f'{x}'
     f'{y}')
a = f'{f"{x}"}'
a = f'{(lambda: 1)()}'
a = f'{x if y else z}'
a = f'{x:{"a"}}'
a = f'{3.14:.2f}'
a = f'{x!r:{y}{z}}'
a = f'{x:a{y}b{z}c}'
a = f'{x:%Y-%m-%d}'
a = f'{x:=^10}'
a = f'{x == y}'
a = f'{x != y}'
a = f'{x >= y}'
a = f'{x <= y}'
a = f'{x > y}'
a = f'{x < y}'
a = f'{a[1:2]}'
a = f'{a[::2]!r}'
a = f'{(yield)}'
a = f'{x:{y!r}}'
a = f'{"nested" + "str"}'
a = f'é{x}ü{y}'
a = f'{é}'
a = f"{'a' 'b'}"
a = 'abc' f'' 'def'
a = f'' f''
