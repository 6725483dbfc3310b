// ops.go: operator dispatch. Binary operators try, in CPython's order,
// the left operand's method (a user's __add__, a protocol value's
// Binary), the builtin arithmetic and sequence operations, then the
// right operand's reflected method; NotImplemented (nil, nil from a
// protocol, the NotImplemented value from a user method) passes to the
// next. A right operand whose class derives from the left's and
// overrides the reflected method goes first, as in CPython.
// Comparisons dispatch the same way; == and != fall back to identity.
package tracer

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

var binaryDunders = [...][2]string{
	syntax.Add: {"__add__", "__radd__"}, syntax.Sub: {"__sub__", "__rsub__"},
	syntax.Mult: {"__mul__", "__rmul__"}, syntax.MatMult: {"__matmul__", "__rmatmul__"},
	syntax.Div: {"__truediv__", "__rtruediv__"}, syntax.Mod: {"__mod__", "__rmod__"},
	syntax.Pow: {"__pow__", "__rpow__"}, syntax.LShift: {"__lshift__", "__rlshift__"},
	syntax.RShift: {"__rshift__", "__rrshift__"}, syntax.BitOr: {"__or__", "__ror__"},
	syntax.BitXor: {"__xor__", "__rxor__"}, syntax.BitAnd: {"__and__", "__rand__"},
	syntax.FloorDiv: {"__floordiv__", "__rfloordiv__"},
}

var inplaceDunders = [...]string{
	syntax.Add: "__iadd__", syntax.Sub: "__isub__", syntax.Mult: "__imul__", syntax.MatMult: "__imatmul__",
	syntax.Div: "__itruediv__", syntax.Mod: "__imod__", syntax.Pow: "__ipow__", syntax.LShift: "__ilshift__",
	syntax.RShift: "__irshift__", syntax.BitOr: "__ior__", syntax.BitXor: "__ixor__", syntax.BitAnd: "__iand__",
	syntax.FloorDiv: "__ifloordiv__",
}

// Binary evaluates x op y.
func Binary(th *Thread, op syntax.Operator, x, y Value) (Value, error) {
	// Fast paths.
	switch a := x.(type) {
	case Int:
		if b, ok := y.(Int); ok {
			return intBinary(th, op, a, b)
		}
	case Float:
		if b, ok := y.(Float); ok {
			return floatBinary(op, float64(a), float64(b))
		}
	case String:
		if b, ok := y.(String); ok && op == syntax.Add {
			if len(a)+len(b) > th.sizeLimit() {
				return nil, sizeError(th)
			}
			return a + b, nil
		}
	}
	xi, xInst := x.(*Instance)
	yi, yInst := y.(*Instance)
	if xInst || yInst {
		names := binaryDunders[op]
		// A subclass on the right overriding the reflected method
		// goes first.
		if yInst && (!xInst || yi.class != xi.class && yi.class.IsSubclass(xi.class)) {
			if f := yi.class.userLookup(names[1]); f != nil && xInst {
				r, err := callMethod(th, y, f, []Value{x}, nil)
				if err != nil || r != Value(NotImplemented) {
					return r, err
				}
			}
		}
		if xInst {
			if f := xi.class.userLookup(names[0]); f != nil {
				r, err := callMethod(th, x, f, []Value{y}, nil)
				if err != nil || r != Value(NotImplemented) {
					return r, err
				}
			}
		}
	}
	if hb, ok := x.(HasBinary); ok {
		r, err := hb.Binary(th, op, y, false)
		if err != nil || r != nil {
			return r, err
		}
	}
	r, err := builtinBinary(th, op, x, y)
	if err != nil || r != nil {
		return r, err
	}
	if yInst {
		if f := yi.class.userLookup(binaryDunders[op][1]); f != nil {
			r, err := callMethod(th, y, f, []Value{x}, nil)
			if err != nil || r != Value(NotImplemented) {
				return r, err
			}
		}
	}
	if hb, ok := y.(HasBinary); ok {
		r, err := hb.Binary(th, op, x, true)
		if err != nil || r != nil {
			return r, err
		}
	}
	return nil, binaryTypeError(op, x, y)
}

func binaryTypeError(op syntax.Operator, x, y Value) error {
	if op == syntax.Add {
		switch x.(type) {
		case String, *List, Tuple:
			if typeOf(x) != typeOf(y) {
				return Errorf("TypeError", "can only concatenate %s (not \"%s\") to %s", x.Type(), y.Type(), x.Type())
			}
		}
	}
	if op == syntax.Pow {
		return Errorf("TypeError", "unsupported operand type(s) for ** or pow(): '%s' and '%s'", x.Type(), y.Type())
	}
	if op == syntax.Mult {
		isSeq := func(v Value) bool {
			switch v.(type) {
			case String, *List, Tuple:
				return true
			}
			return false
		}
		if isSeq(x) {
			return Errorf("TypeError", "can't multiply sequence by non-int of type '%s'", y.Type())
		}
		if isSeq(y) {
			return Errorf("TypeError", "can't multiply sequence by non-int of type '%s'", x.Type())
		}
	}
	return Errorf("TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", op.Symbol(), x.Type(), y.Type())
}

// Inplace evaluates x op= y for a name or attribute target: the value's
// in-place method first (a list's += extends it in place), then Binary.
func Inplace(th *Thread, op syntax.Operator, x, y Value) (Value, error) {
	switch a := x.(type) {
	case *List:
		switch op {
		case syntax.Add:
			if err := listExtend(th, a, y); err != nil {
				return nil, err
			}
			return a, nil
		case syntax.Mult:
			n, err := asRepeatCount(th, y)
			if err != nil {
				return nil, err
			}
			if n <= 0 {
				listSetElems(th, a, nil)
			} else {
				if int64(len(a.elems))*n > int64(th.sizeLimit()) {
					return nil, sizeError(th)
				}
				elems := make([]Value, 0, int64(len(a.elems))*n)
				for i := int64(0); i < n; i++ {
					elems = append(elems, a.elems...)
				}
				listSetElems(th, a, elems)
			}
			return a, nil
		}
	case *Set:
		if r, err := setInplace(th, op, a, y); r != nil || err != nil {
			return r, err
		}
	case *Dict:
		if op == syntax.BitOr {
			if err := dictUpdate(th, a, []Value{y}, nil); err != nil {
				return nil, err
			}
			return a, nil
		}
	case *Instance:
		if f := a.class.userLookup(inplaceDunders[op]); f != nil {
			r, err := callMethod(th, x, f, []Value{y}, nil)
			if err != nil || r != Value(NotImplemented) {
				return r, err
			}
		}
	case HasInplace:
		r, err := a.Inplace(th, op, y)
		if err != nil || r != nil {
			return r, err
		}
	}
	return Binary(th, op, x, y)
}

// builtinBinary is the arithmetic and sequence operations of the builtin
// types (nil, nil when op does not apply to the operands).
func builtinBinary(th *Thread, op syntax.Operator, x, y Value) (Value, error) {
	if a, ok := x.(Bool); ok {
		if b, ok := y.(Bool); ok {
			switch op {
			case syntax.BitAnd:
				return a && b, nil
			case syntax.BitOr:
				return a || b, nil
			case syntax.BitXor:
				return Bool(a != b), nil
			}
		}
	}
	if a, ok := numeric(x); ok {
		if b, ok := numeric(y); ok {
			return numberBinary(th, op, a, b)
		}
	}
	xv, yv := x, y
	if o, ok := x.(*Instance); ok && o.base != nil {
		xv = o.base
	}
	if o, ok := y.(*Instance); ok && o.base != nil {
		yv = o.base
	}
	switch a := xv.(type) {
	case String:
		switch op {
		case syntax.Add:
			if b, ok := AsString(yv); ok {
				if len(a)+len(b) > th.sizeLimit() {
					return nil, sizeError(th)
				}
				return a + String(b), nil
			}
		case syntax.Mult:
			if _, ok := numeric(yv); ok {
				return repeatString(th, string(a), yv)
			}
		case syntax.Mod:
			return percentFormat(th, string(a), y)
		}
	case Tuple:
		switch op {
		case syntax.Add:
			if b, ok := yv.(Tuple); ok {
				if len(a)+len(b) > th.sizeLimit() {
					return nil, sizeError(th)
				}
				out := make(Tuple, 0, len(a)+len(b))
				return append(append(out, a...), b...), nil
			}
		case syntax.Mult:
			if _, ok := yv.(Float); !ok {
				if _, ok := numeric(yv); ok {
					elems, err := repeatElems(th, a, yv)
					return Tuple(elems), err
				}
			}
		}
	case *List:
		switch op {
		case syntax.Add:
			if b, ok := yv.(*List); ok {
				if len(a.elems)+len(b.elems) > th.sizeLimit() {
					return nil, sizeError(th)
				}
				out := make([]Value, 0, len(a.elems)+len(b.elems))
				return NewList(append(append(out, a.elems...), b.elems...)), nil
			}
		case syntax.Mult:
			if _, ok := yv.(Float); !ok {
				if _, ok := numeric(yv); ok {
					elems, err := repeatElems(th, a.elems, yv)
					if err != nil {
						return nil, err
					}
					return NewList(elems), nil
				}
			}
		}
	case *Dict:
		if b, ok := yv.(*Dict); ok && op == syntax.BitOr {
			c := a.copyDict()
			if err := dictUpdate(th, c, []Value{b}, nil); err != nil {
				return nil, err
			}
			return c, nil
		}
	case *Set:
		if b, ok := yv.(*Set); ok {
			return setBinary(th, op, a, b)
		}
	case *dictView:
		return viewBinary(th, op, a, yv)
	}
	if op == syntax.BitOr && isTypeLike(xv) && isTypeLike(yv) {
		if _, ok := xv.(NoneType); !ok || isTypeLike(yv) {
			if _, xn := xv.(NoneType); !(xn && yv == Value(None)) {
				return unionOf(op, xv, yv, false), nil
			}
		}
	}
	if op == syntax.Mult {
		// int * sequence.
		if _, ok := numeric(xv); ok {
			if _, isFloat := xv.(Float); !isFloat {
				switch b := yv.(type) {
				case String:
					return repeatString(th, string(b), xv)
				case Tuple:
					elems, err := repeatElems(th, b, xv)
					return Tuple(elems), err
				case *List:
					elems, err := repeatElems(th, b.elems, xv)
					if err != nil {
						return nil, err
					}
					return NewList(elems), nil
				}
			}
		}
	}
	return nil, nil
}

func (th *Thread) sizeLimit() int {
	if th == nil || th.maxSize <= 0 {
		return defaultMaxSize
	}
	return th.maxSize
}

func sizeError(th *Thread) error {
	return Errorf("MemoryError", "the result would exceed narwhal's limit of %d elements (ThreadOptions.MaxSize)", th.sizeLimit())
}

func asRepeatCount(th *Thread, n Value) (int64, error) {
	i, ok := n.(Int)
	if !ok {
		if b, isBool := n.(Bool); isBool {
			i = boolToInt(b)
		} else if o, isInst := n.(*Instance); isInst && o.base != nil {
			return asRepeatCount(th, o.base)
		} else {
			return 0, Errorf("TypeError", "can't multiply sequence by non-int of type '%s'", n.Type())
		}
	}
	c, ok := i.Int64()
	if !ok {
		if i.Sign() < 0 {
			return 0, nil
		}
		return 0, Errorf("OverflowError", "cannot fit 'int' into an index-sized integer")
	}
	return c, nil
}

func repeatString(th *Thread, s string, n Value) (Value, error) {
	c, err := asRepeatCount(th, n)
	if err != nil {
		return nil, err
	}
	if c <= 0 || s == "" {
		return String(""), nil
	}
	if int64(len(s))*c > int64(th.sizeLimit()) || c > int64(th.sizeLimit()) {
		return nil, sizeError(th)
	}
	return String(strings.Repeat(s, int(c))), nil
}

func repeatElems(th *Thread, elems []Value, n Value) ([]Value, error) {
	c, err := asRepeatCount(th, n)
	if err != nil {
		return nil, err
	}
	if c <= 0 || len(elems) == 0 {
		return []Value{}, nil
	}
	if int64(len(elems))*c > int64(th.sizeLimit()) || c > int64(th.sizeLimit()) {
		return nil, sizeError(th)
	}
	out := make([]Value, 0, int64(len(elems))*c)
	for i := int64(0); i < c; i++ {
		out = append(out, elems...)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Unary operators.

// Unary evaluates -x, +x, ~x (not x is the evaluator's, through Truth).
func Unary(th *Thread, op syntax.UnaryOpKind, x Value) (Value, error) {
	switch a := x.(type) {
	case Int:
		return intUnary(op, a), nil
	case Bool:
		return intUnary(op, boolToInt(a)), nil
	case Float:
		switch op {
		case syntax.USub:
			return -a, nil
		case syntax.UAdd:
			return a, nil
		}
	case *Instance:
		name := map[syntax.UnaryOpKind]string{syntax.USub: "__neg__", syntax.UAdd: "__pos__", syntax.Invert: "__invert__"}[op]
		if f := a.class.userLookup(name); f != nil {
			return callMethod(th, x, f, nil, nil)
		}
		if a.base != nil {
			return Unary(th, op, a.base)
		}
	case HasUnary:
		r, err := a.Unary(th, op)
		if err != nil || r != nil {
			return r, err
		}
	}
	return nil, Errorf("TypeError", "bad operand type for unary %s: '%s'", op.Symbol(), x.Type())
}

// ---------------------------------------------------------------------------
// Comparisons.

var compareDunders = [...]string{
	syntax.Eq: "__eq__", syntax.NotEq: "__ne__", syntax.Lt: "__lt__",
	syntax.LtE: "__le__", syntax.Gt: "__gt__", syntax.GtE: "__ge__",
}

// reflectedCmp is the comparison with its operands swapped.
var reflectedCmp = [...]syntax.CmpOp{
	syntax.Eq: syntax.Eq, syntax.NotEq: syntax.NotEq, syntax.Lt: syntax.Gt,
	syntax.LtE: syntax.GtE, syntax.Gt: syntax.Lt, syntax.GtE: syntax.LtE,
}

// Compare evaluates x op y for ==, !=, <, <=, >, >= (is, in and their
// negations are the evaluator's). The result is a Bool for Python values
// and whatever a Comparable returns for symbolic ones.
func Compare(th *Thread, op syntax.CmpOp, x, y Value) (Value, error) {
	// Fast paths.
	switch a := x.(type) {
	case Int:
		if b, ok := y.(Int); ok {
			return Bool(cmpResult(op, intCompare(a, b))), nil
		}
	case String:
		if b, ok := y.(String); ok {
			return Bool(cmpResult(op, strings.Compare(string(a), string(b)))), nil
		}
	case Float:
		if b, ok := y.(Float); ok {
			c, ok := numberCompare(a, b)
			if !ok {
				return Bool(op == syntax.NotEq), nil
			}
			return Bool(cmpResult(op, c)), nil
		}
	}
	xi, xInst := x.(*Instance)
	yi, yInst := y.(*Instance)
	if xInst || yInst {
		if yInst && (!xInst || yi.class != xi.class && yi.class.IsSubclass(xi.class)) {
			if f := yi.class.userLookup(compareDunders[reflectedCmp[op]]); f != nil {
				r, err := callMethod(th, y, f, []Value{x}, nil)
				if err != nil || r != Value(NotImplemented) {
					return r, err
				}
			}
		}
		if xInst {
			if f := xi.class.userLookup(compareDunders[op]); f != nil {
				r, err := callMethod(th, x, f, []Value{y}, nil)
				if err != nil || r != Value(NotImplemented) {
					return r, err
				}
			} else if op == syntax.NotEq {
				if f := xi.class.userLookup("__eq__"); f != nil {
					r, err := callMethod(th, x, f, []Value{y}, nil)
					if err != nil {
						return nil, err
					}
					if r != Value(NotImplemented) {
						t, err := r.Truth()
						return Bool(!t), err
					}
				}
			}
		}
	}
	if c, ok := x.(Comparable); ok {
		r, err := c.Compare(th, op, y, false)
		if err != nil || r != nil {
			return r, err
		}
	}
	if c, ok := y.(Comparable); ok {
		// op as written; right says the value is its right operand.
		r, err := c.Compare(th, op, x, true)
		if err != nil || r != nil {
			return r, err
		}
	}
	if yInst {
		if f := yi.class.userLookup(compareDunders[reflectedCmp[op]]); f != nil {
			r, err := callMethod(th, y, f, []Value{x}, nil)
			if err != nil || r != Value(NotImplemented) {
				return r, err
			}
		}
	}
	xv, yv := x, y
	if xInst && xi.base != nil {
		xv = xi.base
	}
	if yInst && yi.base != nil {
		yv = yi.base
	}
	switch op {
	case syntax.Eq, syntax.NotEq:
		eq, err := builtinEqual(th, xv, yv)
		if err != nil {
			return nil, err
		}
		return Bool(eq == (op == syntax.Eq)), nil
	}
	c, ok, err := builtinOrder(th, xv, yv)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op.Symbol(), x.Type(), y.Type())
	}
	if c == cmpUnordered {
		return False, nil
	}
	return Bool(cmpResult(op, c)), nil
}

const cmpUnordered = 2 // a NaN, or sets neither of which contains the other

func cmpResult(op syntax.CmpOp, c int) bool {
	switch op {
	case syntax.Eq:
		return c == 0
	case syntax.NotEq:
		return c != 0
	case syntax.Lt:
		return c < 0
	case syntax.LtE:
		return c <= 0
	case syntax.Gt:
		return c > 0
	case syntax.GtE:
		return c >= 0
	}
	return false
}

// Equal reports x == y (a symbolic result's truth may be a *NeedConcrete).
func Equal(th *Thread, x, y Value) (bool, error) {
	switch a := x.(type) {
	case Int:
		if b, ok := y.(Int); ok {
			return intCompare(a, b) == 0, nil
		}
	case String:
		if b, ok := y.(String); ok {
			return a == b, nil
		}
	}
	r, err := Compare(th, syntax.Eq, x, y)
	if err != nil {
		return false, err
	}
	if b, ok := r.(Bool); ok {
		return bool(b), nil
	}
	return r.Truth()
}

// builtinEqual is == of builtin values (identity for others).
func builtinEqual(th *Thread, x, y Value) (bool, error) {
	if a, ok := numeric(x); ok {
		if b, ok := numeric(y); ok {
			c, ok := numberCompare(a, b)
			return ok && c == 0, nil
		}
		return false, nil
	}
	switch a := x.(type) {
	case String:
		b, ok := AsString(y)
		return ok && string(a) == b, nil
	case NoneType:
		_, ok := y.(NoneType)
		return ok, nil
	case Tuple:
		b, ok := y.(Tuple)
		if !ok {
			return false, nil
		}
		return seqEqual(th, a, b)
	case *List:
		b, ok := y.(*List)
		if !ok {
			return false, nil
		}
		if a == b {
			return true, nil
		}
		return seqEqual(th, a.elems, b.elems)
	case *Dict:
		b, ok := y.(*Dict)
		if !ok {
			return false, nil
		}
		if a == b {
			return true, nil
		}
		if a.live != b.live {
			return false, nil
		}
		for _, e := range a.entries {
			if e.deleted {
				continue
			}
			v, found, err := b.Get(th, e.key)
			if err != nil || !found {
				return false, err
			}
			eq, err := Equal(th, e.value, v)
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case *Set:
		b, ok := y.(*Set)
		if !ok {
			return false, nil
		}
		if a.Len() != b.Len() {
			return false, nil
		}
		return setSubset(th, a, b)
	case *Range:
		b, ok := y.(*Range)
		if !ok {
			return false, nil
		}
		n := a.Len()
		if n != b.Len() {
			return false, nil
		}
		if n == 0 {
			return true, nil
		}
		return a.start == b.start && (n == 1 || a.step == b.step), nil
	case *Slice:
		b, ok := y.(*Slice)
		if !ok {
			return false, nil
		}
		return seqEqual(th, []Value{a.Start, a.Stop, a.Step}, []Value{b.Start, b.Stop, b.Step})
	case *BoundMethod:
		b, ok := y.(*BoundMethod)
		return ok && identical(a.Self, b.Self) && identical(a.Func, b.Func), nil
	case *dictView:
		b, ok := y.(*dictView)
		if ok && a.kind != "values" && b.kind != "values" {
			sa, err := viewSet(th, a)
			if err != nil {
				return false, err
			}
			sb, err := viewSet(th, b)
			if err != nil {
				return false, err
			}
			return builtinEqual(th, sa, sb)
		}
	}
	return identical(x, y), nil
}

func seqEqual(th *Thread, a, b []Value) (bool, error) {
	if len(a) != len(b) {
		return false, nil
	}
	for i := range a {
		if identical(a[i], b[i]) {
			continue
		}
		eq, err := Equal(th, a[i], b[i])
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// builtinOrder orders two builtin values (ok false: not orderable).
func builtinOrder(th *Thread, x, y Value) (int, bool, error) {
	if a, ok := numeric(x); ok {
		if b, ok := numeric(y); ok {
			c, ok := numberCompare(a, b)
			if !ok {
				return cmpUnordered, true, nil
			}
			return c, true, nil
		}
		return 0, false, nil
	}
	switch a := x.(type) {
	case String:
		if b, ok := AsString(y); ok {
			return strings.Compare(string(a), b), true, nil
		}
	case Tuple:
		if b, ok := y.(Tuple); ok {
			return seqOrder(th, a, b)
		}
	case *List:
		if b, ok := y.(*List); ok {
			return seqOrder(th, a.elems, b.elems)
		}
	case *Set:
		if b, ok := y.(*Set); ok {
			ab, err := setSubset(th, a, b)
			if err != nil {
				return 0, false, err
			}
			ba, err := setSubset(th, b, a)
			if err != nil {
				return 0, false, err
			}
			switch {
			case ab && ba:
				return 0, true, nil
			case ab:
				return -1, true, nil
			case ba:
				return 1, true, nil
			}
			return cmpUnordered, true, nil
		}
	}
	return 0, false, nil
}

// seqOrder compares sequences lexicographically.
func seqOrder(th *Thread, a, b []Value) (int, bool, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if identical(a[i], b[i]) {
			continue
		}
		eq, err := Equal(th, a[i], b[i])
		if err != nil {
			return 0, false, err
		}
		if eq {
			continue
		}
		lt, err := Compare(th, syntax.Lt, a[i], b[i])
		if err != nil {
			return 0, false, err
		}
		t, err := lt.Truth()
		if err != nil {
			return 0, false, err
		}
		if t {
			return -1, true, nil
		}
		return 1, true, nil
	}
	switch {
	case len(a) < len(b):
		return -1, true, nil
	case len(a) > len(b):
		return 1, true, nil
	}
	return 0, true, nil
}

// lessThan reports x < y (sorting, min, max).
func lessThan(th *Thread, x, y Value) (bool, error) {
	if a, ok := x.(Int); ok {
		if b, ok := y.(Int); ok {
			return intCompare(a, b) < 0, nil
		}
	}
	r, err := Compare(th, syntax.Lt, x, y)
	if err != nil {
		return false, err
	}
	return r.Truth()
}

// ---------------------------------------------------------------------------
// Membership.

// Contains reports x in container.
func Contains(th *Thread, container, x Value) (bool, error) {
	switch c := container.(type) {
	case *List:
		return seqContains(th, c.elems, x)
	case Tuple:
		return seqContains(th, c, x)
	case String:
		s, ok := AsString(x)
		if !ok {
			return false, Errorf("TypeError", "'in <string>' requires string as left operand, not %s", x.Type())
		}
		return strings.Contains(string(c), s), nil
	case *Dict:
		_, ok, err := c.Get(th, x)
		return ok, err
	case *Set:
		return c.Has(th, x)
	case *Range:
		return rangeContains(th, c, x)
	case *dictView:
		return viewContains(th, c, x)
	case *Instance:
		if f := c.class.userLookup("__contains__"); f != nil {
			r, err := callMethod(th, c, f, []Value{x}, nil)
			if err != nil {
				return false, err
			}
			return r.Truth()
		}
		if c.base != nil {
			return Contains(th, c.base, x)
		}
	case *Class:
		if c.enum != nil {
			if o, ok := x.(*Instance); ok && o.class.IsSubclass(c) {
				return true, nil
			}
			return false, nil
		}
	case Container:
		return c.Contains(th, x)
	}
	found := false
	err := Iterate(th, container, func(v Value) error {
		eq, err := Equal(th, v, x)
		if err != nil {
			return err
		}
		if eq {
			found = true
			return errStopIteration
		}
		return nil
	})
	if err == errStopIteration {
		return true, nil
	}
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == "TypeError" && strings.HasSuffix(e.Msg, "is not iterable") {
			return false, Errorf("TypeError", "argument of type '%s' is not iterable", container.Type())
		}
		return false, err
	}
	return found, nil
}

func seqContains(th *Thread, elems []Value, x Value) (bool, error) {
	for _, e := range elems {
		if identical(e, x) {
			return true, nil
		}
		eq, err := Equal(th, e, x)
		if err != nil {
			return false, err
		}
		if eq {
			return true, nil
		}
	}
	return false, nil
}

func rangeContains(th *Thread, r *Range, x Value) (bool, error) {
	var n int64
	switch v := x.(type) {
	case Int:
		var ok bool
		if n, ok = v.Int64(); !ok {
			return false, nil
		}
	case Bool:
		n = boolToInt(v).small
	default:
		return seqContainsRange(th, r, x)
	}
	if r.step > 0 {
		if n < r.start || n >= r.stop {
			return false, nil
		}
	} else if n > r.start || n <= r.stop {
		return false, nil
	}
	return (n-r.start)%r.step == 0, nil
}

func seqContainsRange(th *Thread, r *Range, x Value) (bool, error) {
	if f, ok := x.(Float); ok {
		if float64(f) != float64(int64(f)) {
			return false, nil
		}
		return rangeContains(th, r, MakeInt(int64(f)))
	}
	return false, nil
}
