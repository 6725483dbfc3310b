// builtins.go: the builtins module: the functions kernels call (len,
// min, max, abs, round, sum, any, all, isinstance, print, sorted, zip,
// enumerate, ...), the builtin types (int, list, ...) and the exception
// classes. Behaviour and messages are CPython 3.11's.
//
// Decisions: print() writes to Thread.Print whatever file= says (the
// kernel's log); globals(), locals() and vars() return snapshots (writes
// to them do not change the variables); open, input, eval, exec, compile
// and __import__ are NotSupported.
package tracer

import (
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// builtins is the builtins namespace (shared by every Thread: every value
// in it is immutable).
var builtins map[string]Value

// Builtins returns the names of the builtins module.
func Builtins() []string { return sortedKeys(builtins) }

func initBuiltins() {
	b := map[string]Value{
		"object": objectClass, "type": typeClass, "int": intClass, "bool": boolClass, "float": floatClass,
		"str": strClass, "tuple": tupleClass, "list": listClass, "dict": dictClass, "set": setClass,
		"frozenset": frozensetClass, "range": rangeClass, "slice": sliceClass, "property": propertyClass,
		"staticmethod": staticmethodClass, "classmethod": classmethodClass, "super": superClass,
		"complex": complexClass, "bytes": bytesClass, "bytearray": bytesClass,
		"NotImplemented": NotImplemented, "Ellipsis": Ellipsis, "None": None, "True": True, "False": False,
		"__debug__": True,
	}
	for name, c := range builtinExceptions {
		b[name] = c
	}
	for _, c := range []*Class{listClass, dictClass, tupleClass, setClass, frozensetClass, typeClass, defaultdictClass, orderedDictClass} {
		c.subscriptable = true
	}
	objectClass.dict.set("__init_subclass__", &ClassMethod{Func: NewBuiltin("__init_subclass__", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(kwargs) > 0 {
			name := "object"
			if len(args) > 0 {
				if c, ok := args[0].(*Class); ok {
					name = c.name
				}
			}
			return nil, Errorf("TypeError", "%s.__init_subclass__() takes no keyword arguments", name)
		}
		return None, nil
	})})
	dictClass.dict.set("fromkeys", &StaticMethod{Func: NewBuiltin("fromkeys", dictFromkeys)})
	strClass.dict.set("maketrans", &StaticMethod{Func: NewBuiltin("maketrans", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("str.maketrans is not supported")
	})})
	fns := map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"len":        builtinLen,
		"print":      builtinPrint,
		"repr":       builtinRepr,
		"ascii":      builtinAscii,
		"abs":        builtinAbs,
		"min":        func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) { return minMax(th, "min", args, kwargs) },
		"max":        func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) { return minMax(th, "max", args, kwargs) },
		"sum":        builtinSum,
		"any":        builtinAny,
		"all":        builtinAll,
		"round":      builtinRound,
		"divmod":     builtinDivmod,
		"pow":        builtinPow,
		"hash":       builtinHash,
		"id":         builtinID,
		"isinstance": builtinIsinstance,
		"issubclass": builtinIssubclass,
		"callable":   builtinCallable,
		"getattr":    builtinGetattr,
		"setattr":    builtinSetattr,
		"hasattr":    builtinHasattr,
		"delattr":    builtinDelattr,
		"iter":       builtinIter,
		"next":       builtinNext,
		"enumerate":  builtinEnumerate,
		"zip":        builtinZip,
		"map":        builtinMap,
		"filter":     builtinFilter,
		"reversed":   builtinReversed,
		"sorted":     builtinSorted,
		"chr":        builtinChr,
		"ord":        builtinOrd,
		"hex": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return intToBase(th, "hex", args, kwargs, 16, "0x")
		},
		"oct": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return intToBase(th, "oct", args, kwargs, 8, "0o")
		},
		"bin": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return intToBase(th, "bin", args, kwargs, 2, "0b")
		},
		"format":  builtinFormat,
		"vars":    builtinVars,
		"dir":     builtinDir,
		"globals": builtinGlobals,
		"locals":  builtinLocals,
	}
	for _, name := range []string{"open", "input", "eval", "exec", "compile", "__import__", "breakpoint", "exit", "quit", "memoryview", "help", "aiter", "anext"} {
		name := name
		fns[name] = func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return nil, NotSupportedf("the builtin %s() is not supported in a kernel", name)
		}
	}
	for name, fn := range fns {
		b[name] = NewBuiltin(name, fn)
	}
	builtins = b
}

func builtinLen(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("len", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	n, err := Len(th, args[0])
	if err != nil {
		return nil, err
	}
	return intValue(int64(n)), nil
}

func builtinPrint(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	sep, end := " ", "\n"
	for _, kw := range kwargs {
		switch kw.Name {
		case "sep", "end":
			s := " "
			if kw.Name == "end" {
				s = "\n"
			}
			if kw.Value != Value(None) {
				var ok bool
				if s, ok = AsString(kw.Value); !ok {
					return nil, Errorf("TypeError", "%s must be None or a string, not %s", kw.Name, kw.Value.Type())
				}
			}
			if kw.Name == "sep" {
				sep = s
			} else {
				end = s
			}
		case "file", "flush":
		default:
			return nil, Errorf("TypeError", "'%s' is an invalid keyword argument for print()", kw.Name)
		}
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		s, err := toStr(th, a)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	b.WriteString(end)
	th.writeOutput(b.String())
	return None, nil
}

func builtinRepr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("repr", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	s, err := toRepr(th, args[0])
	return String(s), err
}

func builtinAscii(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("ascii", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	s, err := toRepr(th, args[0])
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 128:
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + hex2(uint64(r), 2))
		case r < 0x10000:
			b.WriteString(`\u` + hex2(uint64(r), 4))
		default:
			b.WriteString(`\U` + hex2(uint64(r), 8))
		}
	}
	return String(b.String()), nil
}

func builtinAbs(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("abs", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	switch x := args[0].(type) {
	case Int:
		if x.Sign() < 0 {
			return intUnary(syntax.USub, x), nil
		}
		return x, nil
	case Bool:
		return boolToInt(x), nil
	case Float:
		return Float(math.Abs(float64(x))), nil
	case *Instance:
		if f := x.class.userLookup("__abs__"); f != nil {
			return callMethod(th, x, f, nil, nil)
		}
		if x.base != nil {
			return builtinAbs(th, []Value{x.base}, nil)
		}
	case HasUnary:
		// Symbolic values: abs as the unary operator is not in the
		// protocol; try an __abs__ attribute.
		if ha, ok := args[0].(HasAttrs); ok {
			if f, _ := ha.Attr(th, "__abs__"); f != nil {
				return Call(th, f, nil, nil)
			}
		}
	}
	if ha, ok := args[0].(HasAttrs); ok {
		if f, _ := ha.Attr(th, "__abs__"); f != nil {
			return Call(th, f, nil, nil)
		}
	}
	return nil, Errorf("TypeError", "bad operand type for abs(): '%s'", args[0].Type())
}

func minMax(th *Thread, name string, args []Value, kwargs []Kwarg) (Value, error) {
	var key, def Value
	for _, kw := range kwargs {
		switch kw.Name {
		case "key":
			key = kw.Value
		case "default":
			def = kw.Value
		default:
			return nil, Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", name, kw.Name)
		}
	}
	if key == Value(None) {
		key = nil
	}
	var items []Value
	switch len(args) {
	case 0:
		return nil, Errorf("TypeError", "%s expected at least 1 argument, got 0", name)
	case 1:
		var err error
		if items, err = collect(th, args[0]); err != nil {
			return nil, err
		}
		if len(items) == 0 {
			if def != nil {
				return def, nil
			}
			return nil, Errorf("ValueError", "%s() arg is an empty sequence", name)
		}
	default:
		if def != nil {
			return nil, Errorf("TypeError", "Cannot specify a default for %s() with multiple positional arguments", name)
		}
		items = args
	}
	best := items[0]
	bestKey := best
	if key != nil {
		k, err := Call(th, key, []Value{best}, nil)
		if err != nil {
			return nil, err
		}
		bestKey = k
	}
	for _, it := range items[1:] {
		k := it
		if key != nil {
			var err error
			if k, err = Call(th, key, []Value{it}, nil); err != nil {
				return nil, err
			}
		}
		var better bool
		var err error
		if name == "min" {
			better, err = lessThan(th, k, bestKey)
		} else {
			better, err = lessThan(th, bestKey, k)
			if err == nil && !better {
				// max keeps the first of equal maxima; Python compares
				// k > best, i.e. best < k.
			}
		}
		if err != nil {
			return nil, err
		}
		if better {
			best, bestKey = it, k
		}
	}
	return best, nil
}

func builtinSum(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var it, start Value
	if err := UnpackArgs("sum", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	if start == nil {
		start = intValue(0)
	}
	switch start.(type) {
	case String:
		return nil, Errorf("TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
	}
	acc := start
	err := Iterate(th, it, func(v Value) error {
		r, err := Binary(th, syntax.Add, acc, v)
		if err != nil {
			return err
		}
		acc = r
		return nil
	})
	return acc, err
}

func builtinAny(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("any", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	found := false
	err := Iterate(th, args[0], func(v Value) error {
		t, err := truth(th, v)
		if err != nil {
			return th.concreteWhat(err, "any()")
		}
		if t {
			found = true
			return errStopIteration
		}
		return nil
	})
	return Bool(found), err
}

func builtinAll(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("all", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	all := true
	err := Iterate(th, args[0], func(v Value) error {
		t, err := truth(th, v)
		if err != nil {
			return th.concreteWhat(err, "all()")
		}
		if !t {
			all = false
			return errStopIteration
		}
		return nil
	})
	return Bool(all), err
}

func builtinRound(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var x, nd Value
	if err := UnpackArgs("round", args, kwargs, "number", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	if nd == Value(None) {
		nd = nil
	}
	switch v := x.(type) {
	case Bool:
		x = boolToInt(v)
	case *Instance:
		if f := v.class.userLookup("__round__"); f != nil {
			var a []Value
			if nd != nil {
				a = []Value{nd}
			}
			return callMethod(th, v, f, a, nil)
		}
		if v.base != nil {
			x = v.base
		}
	}
	switch v := x.(type) {
	case Int:
		if nd == nil {
			return v, nil
		}
		n, err := AsInt64(th, nd)
		if err != nil {
			return nil, err
		}
		if n >= 0 {
			return v, nil
		}
		if n < -1000 {
			return intValue(0), nil
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(-n), nil)
		q, r := new(big.Int).QuoRem(v.bigView(), p, new(big.Int))
		// Round half to even, with floor semantics for negatives.
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
			r.Add(r, p)
		}
		twice := new(big.Int).Lsh(r, 1)
		c := twice.Cmp(p)
		if c > 0 || c == 0 && q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
		return makeBigOwned(q.Mul(q, p)), nil
	case Float:
		f := float64(v)
		if nd == nil {
			if math.IsInf(f, 0) {
				return nil, Errorf("OverflowError", "cannot convert float infinity to integer")
			}
			if math.IsNaN(f) {
				return nil, Errorf("ValueError", "cannot convert float NaN to integer")
			}
			i, err := floatToInt(math.RoundToEven(f))
			return i, err
		}
		n, err := AsInt64(th, nd)
		if err != nil {
			return nil, err
		}
		return Float(roundFloat(f, n)), nil
	}
	if ha, ok := x.(HasAttrs); ok {
		if f, _ := ha.Attr(th, "__round__"); f != nil {
			var a []Value
			if nd != nil {
				a = []Value{nd}
			}
			return Call(th, f, a, nil)
		}
	}
	return nil, Errorf("TypeError", "type %s doesn't define __round__ method", x.Type())
}

// roundFloat is round(f, n): the decimal rounding of f's exact value,
// half to even, as CPython's.
func roundFloat(f float64, n int64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
		return f
	}
	if n > 330 {
		return f
	}
	if n < -330 {
		return math.Copysign(0, f)
	}
	r := new(big.Rat).SetFloat64(f)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(absI(n)), nil))
	if n >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	// Round r half to even.
	num, den := r.Num(), r.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	neg := num.Sign() < 0
	rem.Abs(rem)
	twice := new(big.Int).Lsh(rem, 1)
	c := twice.Cmp(den)
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if neg {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	res := new(big.Rat).SetInt(q)
	if n >= 0 {
		res.Quo(res, scale)
	} else {
		res.Mul(res, scale)
	}
	out, _ := res.Float64()
	if out == 0 {
		return math.Copysign(0, f)
	}
	return out
}

func builtinDivmod(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("divmod", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	a, b := args[0], args[1]
	if x, ok := numeric(a); ok {
		if y, ok := numeric(b); ok {
			xi, xInt := x.(Int)
			yi, yInt := y.(Int)
			if xInt && yInt {
				if yi.Sign() == 0 {
					return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
				}
				q, err := intBinary(th, syntax.FloorDiv, xi, yi)
				if err != nil {
					return nil, err
				}
				m, err := intBinary(th, syntax.Mod, xi, yi)
				if err != nil {
					return nil, err
				}
				return Tuple{q, m}, nil
			}
			fa, err := AsFloat64(th, x)
			if err != nil {
				return nil, err
			}
			fb, err := AsFloat64(th, y)
			if err != nil {
				return nil, err
			}
			if fb == 0 {
				return nil, Errorf("ZeroDivisionError", "float divmod()")
			}
			q, m := floatDivmod(fa, fb)
			return Tuple{Float(q), Float(m)}, nil
		}
	}
	q, err := Binary(th, syntax.FloorDiv, a, b)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == "TypeError" {
			return nil, Errorf("TypeError", "unsupported operand type(s) for divmod(): '%s' and '%s'", a.Type(), b.Type())
		}
		return nil, err
	}
	m, err := Binary(th, syntax.Mod, a, b)
	if err != nil {
		return nil, err
	}
	return Tuple{q, m}, nil
}

func builtinPow(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var base, exp, mod Value
	if err := UnpackArgs("pow", args, kwargs, "base", &base, "exp", &exp, "mod?", &mod); err != nil {
		return nil, err
	}
	if mod == nil || mod == Value(None) {
		return Binary(th, syntax.Pow, base, exp)
	}
	b, ok1 := numeric(base)
	e, ok2 := numeric(exp)
	m, ok3 := numeric(mod)
	bi, i1 := b.(Int)
	ei, i2 := e.(Int)
	mi, i3 := m.(Int)
	if !(ok1 && ok2 && ok3 && i1 && i2 && i3) {
		return nil, Errorf("TypeError", "pow() 3rd argument not allowed unless all arguments are integers")
	}
	if mi.Sign() == 0 {
		return nil, Errorf("ValueError", "pow() 3rd argument cannot be 0")
	}
	mb := mi.bigView()
	bb := bi.bigView()
	eb := ei.bigView()
	if eb.Sign() < 0 {
		inv := new(big.Int).ModInverse(new(big.Int).Mod(bb, new(big.Int).Abs(mb)), new(big.Int).Abs(mb))
		if inv == nil {
			return nil, Errorf("ValueError", "base is not invertible for the given modulus")
		}
		bb = inv
		eb = new(big.Int).Neg(eb)
	}
	r := new(big.Int).Exp(bb, eb, new(big.Int).Abs(mb))
	// Python's result takes the modulus's sign.
	if mb.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, mb)
	}
	return makeBigOwned(r), nil
}

func builtinHash(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("hash", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	h, err := hashValue(th, args[0])
	if err != nil {
		return nil, err
	}
	return MakeInt(int64(h)), nil
}

func builtinID(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("id", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	if s, ok := args[0].(interface{ serialNumber() uint64 }); ok {
		return MakeInt(int64(s.serialNumber())), nil
	}
	switch x := args[0].(type) {
	case *List:
		return MakeInt(int64(x.serial)), nil
	case *Dict:
		return MakeInt(int64(x.serial)), nil
	case *Set:
		return MakeInt(int64(x.d.serial)), nil
	case *Module:
		return MakeInt(int64(x.serial)), nil
	case *Builtin:
		return MakeInt(int64(x.serial)), nil
	}
	h, err := hashValue(th, args[0])
	if err != nil {
		return MakeInt(0), nil
	}
	return MakeInt(int64(h >> 1)), nil
}

// classInfo checks isinstance's and issubclass's second argument.
func classMatch(th *Thread, fn string, cls *Class, info Value) (bool, error) {
	switch t := info.(type) {
	case *Class:
		if t == complexClass || t == bytesClass {
			return false, nil
		}
		return cls.IsSubclass(t), nil
	case Tuple:
		for _, x := range t {
			ok, err := classMatch(th, fn, cls, x)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case *unionType:
		for _, x := range t.args {
			ok, err := classMatch(th, fn, cls, x)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case *typingForm:
		if t.name == "Any" {
			return true, nil
		}
	case *abcProtocol:
		return false, nil
	}
	return false, Errorf("TypeError", "%s() arg 2 must be a type, a tuple of types, or a union", fn)
}

func builtinIsinstance(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("isinstance", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	if protocolMatch(args[0], args[1]) {
		return True, nil
	}
	ok, err := classMatch(th, "isinstance", typeOf(args[0]), args[1])
	return Bool(ok), err
}

// protocolMatch checks collections.abc classes in isinstance's second
// argument.
func protocolMatch(v, info Value) bool {
	switch t := info.(type) {
	case *abcProtocol:
		return t.check(v)
	case Tuple:
		for _, x := range t {
			if protocolMatch(v, x) {
				return true
			}
		}
	}
	return false
}

func builtinIssubclass(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("issubclass", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	c, ok := args[0].(*Class)
	if !ok {
		return nil, Errorf("TypeError", "issubclass() arg 1 must be a class")
	}
	r, err := classMatch(th, "issubclass", c, args[1])
	return Bool(r), err
}

func builtinCallable(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("callable", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	return Bool(isCallable(args[0])), nil
}

func attrNameArg(fn string, v Value) (string, error) {
	s, ok := AsString(v)
	if !ok {
		return "", Errorf("TypeError", "attribute name must be string, not '%s'", v.Type())
	}
	return s, nil
}

func builtinGetattr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("getattr", args, kwargs, 2, 3); err != nil {
		return nil, err
	}
	name, err := attrNameArg("getattr", args[1])
	if err != nil {
		return nil, err
	}
	v, err := getAttr(th, args[0], name)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == "AttributeError" && len(args) == 3 {
			return args[2], nil
		}
		return nil, err
	}
	if v == nil {
		if len(args) == 3 {
			return args[2], nil
		}
		return nil, attrError(args[0], name)
	}
	return v, nil
}

func builtinSetattr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("setattr", args, kwargs, 3, 3); err != nil {
		return nil, err
	}
	name, err := attrNameArg("setattr", args[1])
	if err != nil {
		return nil, err
	}
	return None, setAttr(th, args[0], name, args[2])
}

func builtinHasattr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("hasattr", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	name, err := attrNameArg("hasattr", args[1])
	if err != nil {
		return nil, err
	}
	v, err := getAttr(th, args[0], name)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == "AttributeError" {
			return False, nil
		}
		return nil, err
	}
	return Bool(v != nil), nil
}

func builtinDelattr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("delattr", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	name, err := attrNameArg("delattr", args[1])
	if err != nil {
		return nil, err
	}
	return None, delAttr(th, args[0], name)
}

func builtinIter(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("iter", args, kwargs, 1, 2); err != nil {
		return nil, err
	}
	if len(args) == 2 {
		fn, sentinel := args[0], args[1]
		if !isCallable(fn) {
			return nil, Errorf("TypeError", "iter(v, w): v must be callable")
		}
		return newIterObj("callable_iterator", funcIter(func(th *Thread) (Value, bool, error) {
			v, err := Call(th, fn, nil, nil)
			if err != nil {
				return nil, false, err
			}
			eq, err := Equal(th, v, sentinel)
			if err != nil || eq {
				return nil, false, err
			}
			return v, true, nil
		})), nil
	}
	v := args[0]
	switch o := v.(type) {
	case *iterObj:
		return o, nil
	case *generatorObj:
		return o, nil
	}
	if o, ok := v.(*Instance); ok && o.class.userLookup("__next__") != nil && o.class.userLookup("__iter__") == nil {
		return nil, Errorf("TypeError", "'%s' object is not iterable", v.Type())
	}
	if o, ok := v.(*Instance); ok && o.class.userLookup("__iter__") != nil {
		f := o.class.userLookup("__iter__")
		r, err := callMethod(th, o, f, nil, nil)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	it, err := getIterator(th, v)
	if err != nil {
		return nil, err
	}
	return newIterObj(iterName(v), it), nil
}

func iterName(v Value) string {
	switch v.(type) {
	case *List:
		return "list_iterator"
	case Tuple:
		return "tuple_iterator"
	case String:
		return "str_iterator"
	case *Range:
		return "range_iterator"
	case *Dict:
		return "dict_keyiterator"
	case *Set:
		return "set_iterator"
	}
	return "iterator"
}

func builtinNext(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("next", args, kwargs, 1, 2); err != nil {
		return nil, err
	}
	var it Iterator
	switch x := args[0].(type) {
	case *iterObj:
		it = x
	case *Instance:
		f := x.class.userLookup("__next__")
		if f == nil {
			return nil, Errorf("TypeError", "'%s' object is not an iterator", x.Type())
		}
		v, err := callMethod(th, x, f, nil, nil)
		if err != nil {
			if e, ok := err.(*Error); ok && e.isStopIteration() && len(args) == 2 {
				return args[1], nil
			}
			return nil, err
		}
		return v, nil
	case Iterator:
		it = x
	default:
		return nil, Errorf("TypeError", "'%s' object is not an iterator", args[0].Type())
	}
	v, ok, err := it.Next(th)
	if err != nil {
		return nil, err
	}
	if !ok {
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, &Error{Kind: "StopIteration", Exc: newException(th, stopIterationClass, nil)}
	}
	return v, nil
}

func builtinEnumerate(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var it, start Value
	if err := UnpackArgs("enumerate", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	var n Int = MakeInt(0)
	if start != nil {
		var err error
		if n, err = asIndexInt(th, start); err != nil {
			return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", start.Type())
		}
	}
	src, err := getIterator(th, it)
	if err != nil {
		return nil, err
	}
	i, _ := n.Int64()
	return newIterObj("enumerate", funcIter(func(th *Thread) (Value, bool, error) {
		v, ok, err := src.Next(th)
		if err != nil || !ok {
			return nil, false, err
		}
		i++
		return Tuple{intValue(i - 1), v}, true, nil
	})), nil
}

func builtinZip(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	strict := false
	for _, kw := range kwargs {
		if kw.Name != "strict" {
			return nil, Errorf("TypeError", "zip() got an unexpected keyword argument '%s'", kw.Name)
		}
		t, err := truth(th, kw.Value)
		if err != nil {
			return nil, err
		}
		strict = t
	}
	its := make([]Iterator, len(args))
	for i, a := range args {
		it, err := getIterator(th, a)
		if err != nil {
			return nil, Errorf("TypeError", "zip argument #%d must support iteration", i+1)
		}
		its[i] = it
	}
	done := false
	return newIterObj("zip", funcIter(func(th *Thread) (Value, bool, error) {
		if len(its) == 0 || done {
			return nil, false, nil
		}
		out := make(Tuple, len(its))
		for i, it := range its {
			v, ok, err := it.Next(th)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				done = true
				if strict {
					if i > 0 {
						s := "s"
						if i == 1 {
							s = ""
						}
						return nil, false, Errorf("ValueError", "zip() argument %d is shorter than argument%s 1%s", i+1, s, rangeSuffix(i))
					}
					for j := 1; j < len(its); j++ {
						_, ok, err := its[j].Next(th)
						if err != nil {
							return nil, false, err
						}
						if ok {
							s := "s"
							if j == 1 {
								s = ""
							}
							return nil, false, Errorf("ValueError", "zip() argument %d is longer than argument%s 1%s", j+1, s, rangeSuffix(j))
						}
					}
				}
				return nil, false, nil
			}
			out[i] = v
		}
		return out, true, nil
	})), nil
}

func rangeSuffix(i int) string {
	if i <= 1 {
		return ""
	}
	return "-" + itoa(int64(i))
}

func builtinMap(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "map() takes no keyword arguments")
	}
	if len(args) < 2 {
		return nil, Errorf("TypeError", "map() must have at least two arguments.")
	}
	fn := args[0]
	its := make([]Iterator, len(args)-1)
	for i, a := range args[1:] {
		it, err := getIterator(th, a)
		if err != nil {
			return nil, err
		}
		its[i] = it
	}
	return newIterObj("map", funcIter(func(th *Thread) (Value, bool, error) {
		vals := make([]Value, len(its))
		for i, it := range its {
			v, ok, err := it.Next(th)
			if err != nil || !ok {
				return nil, false, err
			}
			vals[i] = v
		}
		r, err := Call(th, fn, vals, nil)
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	})), nil
}

func builtinFilter(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("filter", args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	fn := args[0]
	it, err := getIterator(th, args[1])
	if err != nil {
		return nil, err
	}
	return newIterObj("filter", funcIter(func(th *Thread) (Value, bool, error) {
		for {
			v, ok, err := it.Next(th)
			if err != nil || !ok {
				return nil, false, err
			}
			keep := v
			if fn != Value(None) {
				if keep, err = Call(th, fn, []Value{v}, nil); err != nil {
					return nil, false, err
				}
			}
			t, err := truth(th, keep)
			if err != nil {
				return nil, false, err
			}
			if t {
				return v, true, nil
			}
			if err := th.tick(); err != nil {
				return nil, false, err
			}
		}
	})), nil
}

func builtinReversed(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("reversed", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	v := args[0]
	var elems []Value
	switch x := v.(type) {
	case *List:
		l := x
		i := len(l.elems)
		return newIterObj("list_reverseiterator", funcIter(func(th *Thread) (Value, bool, error) {
			i--
			if i < 0 || i >= len(l.elems) {
				return nil, false, nil
			}
			return l.elems[i], true, nil
		})), nil
	case Tuple:
		elems = x
	case *Range:
		n := x.Len()
		last := x.start + (n-1)*x.step
		return newIterObj("range_iterator", &rangeIter{r: &Range{last, last - n*x.step, -x.step}}), nil
	case String:
		r := []rune(string(x))
		for i := len(r) - 1; i >= 0; i-- {
			elems = append(elems, String(string(r[i])))
		}
		return newIterObj("reversed", &sliceIter{elems: elems}), nil
	case *Dict:
		elems = x.Keys()
	case *dictView:
		var err error
		if elems, err = collect(th, x); err != nil {
			return nil, err
		}
	case *Instance:
		if f := x.class.userLookup("__reversed__"); f != nil {
			return callMethod(th, x, f, nil, nil)
		}
		if x.base != nil {
			return builtinReversed(th, []Value{x.base}, nil)
		}
		if x.class.userLookup("__len__") != nil && x.class.userLookup("__getitem__") != nil {
			n, err := Len(th, x)
			if err != nil {
				return nil, err
			}
			for i := n - 1; i >= 0; i-- {
				e, err := getIndex(th, x, intValue(int64(i)))
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
			}
			return newIterObj("reversed", &sliceIter{elems: elems}), nil
		}
		return nil, Errorf("TypeError", "'%s' object is not reversible", v.Type())
	default:
		if _, ok := v.(Iterable); ok {
			var err error
			if elems, err = collect(th, v); err != nil {
				return nil, err
			}
			break
		}
		return nil, Errorf("TypeError", "'%s' object is not reversible", v.Type())
	}
	out := make([]Value, len(elems))
	for i, e := range elems {
		out[len(out)-1-i] = e
	}
	return newIterObj("reversed", &sliceIter{elems: out}), nil
}

func builtinSorted(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) != 1 {
		return nil, Errorf("TypeError", "sorted expected 1 argument, got %d", len(args))
	}
	var key Value = None
	reverse := false
	if err := UnpackArgs("sorted", nil, kwargs, "*", new([]Value), "key?", &key, "reverse?", &reverse); err != nil {
		return nil, err
	}
	elems, err := collect(th, args[0])
	if err != nil {
		return nil, err
	}
	if err := sortValues(th, elems, key, reverse); err != nil {
		return nil, err
	}
	return NewList(elems), nil
}

func builtinChr(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("chr", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	n, err := AsInt64(th, args[0])
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 0x10ffff {
		return nil, Errorf("ValueError", "chr() arg not in range(0x110000)")
	}
	return String(string(rune(n))), nil
}

func builtinOrd(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("ord", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	s, ok := AsString(args[0])
	if !ok {
		return nil, Errorf("TypeError", "ord() expected string of length 1, but %s found", args[0].Type())
	}
	if n := utf8.RuneCountInString(s); n != 1 {
		return nil, Errorf("TypeError", "ord() expected a character, but string of length %d found", n)
	}
	r, _ := utf8.DecodeRuneInString(s)
	return intValue(int64(r)), nil
}

func intToBase(th *Thread, fn string, args []Value, kwargs []Kwarg, base int, prefix string) (Value, error) {
	if err := argCount(fn, args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	i, err := asIndexInt(th, args[0])
	if err != nil {
		if _, ok := AsNeedConcrete(err); ok {
			return nil, err
		}
		return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", args[0].Type())
	}
	b := i.bigView()
	if b.Sign() < 0 {
		return String("-" + prefix + new(big.Int).Neg(b).Text(base)), nil
	}
	return String(prefix + b.Text(base)), nil
}

func builtinFormat(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("format", args, kwargs, 1, 2); err != nil {
		return nil, err
	}
	spec := ""
	if len(args) == 2 {
		s, ok := AsString(args[1])
		if !ok {
			return nil, Errorf("TypeError", "format() argument 2 must be str, not %s", args[1].Type())
		}
		spec = s
	}
	s, err := formatValue(th, args[0], spec)
	return String(s), err
}

func builtinVars(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("vars", args, kwargs, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return builtinLocals(th, nil, nil)
	}
	switch x := args[0].(type) {
	case *Instance, *Module, *Class, *Function:
		return getAttrOrError(th, x, "__dict__")
	}
	return nil, Errorf("TypeError", "vars() argument must have __dict__ attribute")
}

func builtinDir(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("dir", args, kwargs, 0, 1); err != nil {
		return nil, err
	}
	var names []string
	if len(args) == 0 {
		if len(th.stack) > 0 {
			fr := th.stack[len(th.stack)-1]
			if fr.code.kind == scopeModule {
				names = append(names, fr.module.members.keys...)
			} else {
				for n, b := range fr.code.bind {
					if b.kind == bindLocal && fr.locals[b.idx] != nil {
						names = append(names, n)
					}
				}
			}
		}
		sortStrings(names)
	} else {
		names = attrNames(args[0])
	}
	out := make([]Value, len(names))
	for i, n := range names {
		out[i] = String(n)
	}
	return NewList(out), nil
}

func builtinGlobals(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("globals", args, kwargs, 0, 0); err != nil {
		return nil, err
	}
	m := th.Module()
	if m == nil {
		return NewDict(), nil
	}
	return getAttrOrError(th, m, "__dict__")
}

func builtinLocals(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("locals", args, kwargs, 0, 0); err != nil {
		return nil, err
	}
	if len(th.stack) == 0 {
		return NewDict(), nil
	}
	fr := th.stack[len(th.stack)-1]
	switch fr.code.kind {
	case scopeModule:
		return getAttrOrError(th, fr.module, "__dict__")
	case scopeClass:
		d := NewDict()
		for _, k := range fr.classNS.keys {
			d.setStr(nil, k, fr.classNS.m[k])
		}
		return d, nil
	}
	d := NewDict()
	for _, n := range allNames(fr.code) {
		b := fr.code.bind[n]
		var v Value
		switch b.kind {
		case bindLocal:
			v = fr.locals[b.idx]
		case bindCell:
			v = fr.cells[b.idx].v
		}
		if v != nil {
			d.setStr(nil, n, v)
		}
	}
	return d, nil
}
