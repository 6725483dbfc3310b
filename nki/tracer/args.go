// args.go: UnpackArgs, the argument binder of Go functions, and the
// conversions of values to Go types (AsInt64, AsFloat64, AsString).
//
// UnpackArgs follows Starlark-in-Go's convention (pairs of a parameter
// name and a pointer to the Go variable receiving it), with CPython's
// wording for every binding error, so that a kernel calling nl.load
// wrongly reads the message Python would print.
package tracer

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// UnpackArgs binds the arguments of a call of the Go function fnName.
// pairs alternates a parameter name and a pointer receiving the argument:
//
//	"src"    a required parameter (positional or keyword)
//	"mask?"  an optional one (the variable keeps its value when absent)
//	"*"      (with *[]Value or *Tuple) the remaining positional arguments;
//	         the parameters after it are keyword-only
//	"**"     (with *[]Kwarg) the remaining keyword arguments
//
// A name ending in "?" may also come after another "?" name only as
// Python allows (required after optional is the caller's mistake).
// Pointers may be *Value, *int, *int64, *float64, *string, *bool, *Int,
// *Tuple, *[]Value, *[]Kwarg, *Callable, *Iterable, *Value-like
// interfaces *HasAttrs, *List, *Dict, *Function, *Class, *Module.
func UnpackArgs(fnName string, args []Value, kwargs []Kwarg, pairs ...any) error {
	if len(pairs)%2 != 0 {
		return Errorf("TypeError", "%s(): internal error: odd number of UnpackArgs pairs", fnName)
	}
	type param struct {
		name     string
		optional bool
		kwOnly   bool
		ptr      any
	}
	params := make([]param, 0, len(pairs)/2)
	var restPos, restKw any
	kwOnly := false
	for i := 0; i < len(pairs); i += 2 {
		name, _ := pairs[i].(string)
		switch {
		case name == "*" || strings.HasPrefix(name, "*") && !strings.HasPrefix(name, "**"):
			restPos = pairs[i+1]
			kwOnly = true
			continue
		case strings.HasPrefix(name, "**"):
			restKw = pairs[i+1]
			continue
		}
		p := param{name: name, ptr: pairs[i+1], kwOnly: kwOnly}
		if strings.HasSuffix(name, "?") {
			p.name = name[:len(name)-1]
			p.optional = true
		}
		params = append(params, p)
	}
	nPos := 0
	for _, p := range params {
		if !p.kwOnly {
			nPos++
		}
	}
	set := make([]bool, len(params))
	// Positional arguments.
	var extra []Value
	for i, a := range args {
		if i >= nPos {
			if restPos == nil {
				min := 0
				for _, p := range params[:nPos] {
					if !p.optional {
						min++
					}
				}
				return takesPositional(fnName, min, nPos, len(args))
			}
			extra = args[i:]
			break
		}
		if err := unpackOne(fnName, params[i].name, a, params[i].ptr); err != nil {
			return err
		}
		set[i] = true
	}
	// Keyword arguments.
	var extraKw []Kwarg
kw:
	for _, kw := range kwargs {
		for i := range params {
			if params[i].name == kw.Name {
				if set[i] {
					return Errorf("TypeError", "%s() got multiple values for argument '%s'", fnName, kw.Name)
				}
				if err := unpackOne(fnName, kw.Name, kw.Value, params[i].ptr); err != nil {
					return err
				}
				set[i] = true
				continue kw
			}
		}
		if restKw == nil {
			return Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", fnName, kw.Name)
		}
		extraKw = append(extraKw, kw)
	}
	// Missing required parameters.
	var missingPos, missingKw []string
	for i, p := range params {
		if !set[i] && !p.optional {
			if p.kwOnly {
				missingKw = append(missingKw, p.name)
			} else {
				missingPos = append(missingPos, p.name)
			}
		}
	}
	if len(missingPos) > 0 {
		return missingArgs(fnName, "positional", missingPos)
	}
	if len(missingKw) > 0 {
		return missingArgs(fnName, "keyword-only", missingKw)
	}
	switch p := restPos.(type) {
	case nil:
	case *[]Value:
		*p = append([]Value(nil), extra...)
	case *Tuple:
		*p = append(Tuple(nil), extra...)
	default:
		return Errorf("TypeError", "%s(): internal error: bad pointer for *args", fnName)
	}
	switch p := restKw.(type) {
	case nil:
	case *[]Kwarg:
		*p = extraKw
	default:
		return Errorf("TypeError", "%s(): internal error: bad pointer for **kwargs", fnName)
	}
	return nil
}

func wereWas(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// missingArgs is CPython's "missing 2 required positional arguments: 'a'
// and 'b'".
func missingArgs(fnName, kind string, names []string) error {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	var list string
	switch len(q) {
	case 1:
		list = q[0]
	case 2:
		list = q[0] + " and " + q[1]
	default:
		list = strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
	}
	s := "s"
	if len(names) == 1 {
		s = ""
	}
	return Errorf("TypeError", "%s() missing %d required %s argument%s: %s", fnName, len(names), kind, s, list)
}

// takesPositional is CPython's message for too many positional arguments
// given the minimum and maximum counts.
func takesPositional(fnName string, min, max, given int) error {
	var takes string
	switch {
	case min == max && max == 1:
		takes = "1 positional argument"
	case min == max:
		takes = strconv.Itoa(max) + " positional arguments"
	default:
		takes = "from " + strconv.Itoa(min) + " to " + strconv.Itoa(max) + " positional arguments"
	}
	return Errorf("TypeError", "%s() takes %s but %d %s given", fnName, takes, given, wereWas(given))
}

func unpackOne(fnName, name string, v Value, ptr any) error {
	switch p := ptr.(type) {
	case *Value:
		*p = v
	case *int:
		n, err := asIntArg(fnName, name, v)
		if err != nil {
			return err
		}
		if n > math.MaxInt32*(1<<31) || n < -math.MaxInt32*(1<<31) {
			return Errorf("OverflowError", "Python int too large to convert to C ssize_t")
		}
		*p = int(n)
	case *int64:
		n, err := asIntArg(fnName, name, v)
		if err != nil {
			return err
		}
		*p = n
	case *float64:
		f, err := AsFloat64(nil, v)
		if err != nil {
			return Errorf("TypeError", "%s() argument '%s' must be a real number, not %s", fnName, name, v.Type())
		}
		*p = f
	case *string:
		s, ok := AsString(v)
		if !ok {
			return Errorf("TypeError", "%s() argument '%s' must be str, not %s", fnName, name, v.Type())
		}
		*p = s
	case *bool:
		b, err := v.Truth()
		if err != nil {
			return err
		}
		*p = b
	case *Int:
		i, ok := v.(Int)
		if !ok {
			if b, isBool := v.(Bool); isBool {
				i = boolToInt(b)
			} else {
				return Errorf("TypeError", "'%s' object cannot be interpreted as an integer", v.Type())
			}
		}
		*p = i
	case *Tuple:
		return setAs(p, v, fnName, name, "be tuple")
	case *[]Value:
		t, ok := v.(Tuple)
		if !ok {
			if l, isList := v.(*List); isList {
				*p = l.elems
				return nil
			}
			return Errorf("TypeError", "%s() argument '%s' must be a list or tuple, not %s", fnName, name, v.Type())
		}
		*p = t
	case *Callable:
		return setAs(p, v, fnName, name, "be callable")
	case *Iterable:
		c, ok := v.(Iterable)
		if !ok {
			return Errorf("TypeError", "'%s' object is not iterable", v.Type())
		}
		*p = c
	case *HasAttrs:
		return setAs(p, v, fnName, name, "have attributes")
	case **List:
		return setAs(p, v, fnName, name, "be list")
	case **Dict:
		return setAs(p, v, fnName, name, "be dict")
	case **Function:
		return setAs(p, v, fnName, name, "be function")
	case **Class:
		return setAs(p, v, fnName, name, "be a class")
	case **Module:
		return setAs(p, v, fnName, name, "be module")
	default:
		return Errorf("TypeError", "%s(): internal error: cannot unpack argument '%s'", fnName, name)
	}
	return nil
}

// setAs stores v in *p when it is a T, else returns the TypeError naming
// the argument and what it must be.
func setAs[T any](p *T, v Value, fnName, name, must string) error {
	c, ok := v.(T)
	if !ok {
		return Errorf("TypeError", "%s() argument '%s' must %s, not %s", fnName, name, must, v.Type())
	}
	*p = c
	return nil
}

func asIntArg(fnName, name string, v Value) (int64, error) {
	switch x := v.(type) {
	case Int:
		if n, ok := x.Int64(); ok {
			return n, nil
		}
		return 0, Errorf("OverflowError", "Python int too large to convert to C ssize_t")
	case Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	n, err := AsInt64(nil, v)
	if err != nil {
		if _, need := AsNeedConcrete(err); need {
			return 0, err
		}
		return 0, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", v.Type())
	}
	return n, nil
}

// AsNeedConcrete returns err as a *NeedConcrete.
func AsNeedConcrete(err error) (*NeedConcrete, bool) {
	n, ok := err.(*NeedConcrete)
	return n, ok
}

// AsInt64 converts an int (or a bool, or a value with __index__) to int64:
// TypeError for other values, OverflowError beyond 64 bits, the
// *NeedConcrete of a symbolic integer.
func AsInt64(th *Thread, v Value) (int64, error) {
	switch x := v.(type) {
	case Int:
		if n, ok := x.Int64(); ok {
			return n, nil
		}
		return 0, Errorf("OverflowError", "Python int too large to convert to C ssize_t")
	case Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *Instance:
		if x.base != nil {
			if _, ok := x.base.(Int); ok {
				return AsInt64(th, x.base)
			}
		}
		if f := x.class.userLookup("__index__"); f != nil && th != nil {
			r, err := callMethod(th, x, f, nil, nil)
			if err != nil {
				return 0, err
			}
			return AsInt64(th, r)
		}
	case HasIndex:
		r, err := x.PyIndex(th)
		if err != nil {
			return 0, err
		}
		return AsInt64(th, r)
	}
	return 0, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", v.Type())
}

// asIndexInt converts a value used as an integer index to Int (the
// __index__ protocol), keeping big ints.
func asIndexInt(th *Thread, v Value) (Int, error) {
	switch x := v.(type) {
	case Int:
		return x, nil
	case Bool:
		return boolToInt(x), nil
	}
	n, err := AsInt64(th, v)
	if err != nil {
		return Int{}, err
	}
	return MakeInt(n), nil
}

// AsFloat64 converts an int, float or bool (or a value with __float__ or
// __index__) to float64.
func AsFloat64(th *Thread, v Value) (float64, error) {
	switch x := v.(type) {
	case Float:
		return float64(x), nil
	case Int:
		return intToFloat(x)
	case Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *Instance:
		if x.base != nil {
			return AsFloat64(th, x.base)
		}
		if th != nil {
			if f := x.class.userLookup("__float__"); f != nil {
				r, err := callMethod(th, x, f, nil, nil)
				if err != nil {
					return 0, err
				}
				return AsFloat64(th, r)
			}
			if f := x.class.userLookup("__index__"); f != nil {
				r, err := callMethod(th, x, f, nil, nil)
				if err != nil {
					return 0, err
				}
				return AsFloat64(th, r)
			}
		}
	case HasFloat:
		return x.PyFloat(th)
	case HasIndex:
		r, err := x.PyIndex(th)
		if err != nil {
			return 0, err
		}
		return AsFloat64(th, r)
	}
	return 0, Errorf("TypeError", "must be real number, not %s", v.Type())
}

func intToFloat(i Int) (float64, error) {
	if i.big == nil {
		return float64(i.small), nil
	}
	f, acc := new(big.Float).SetInt(i.big).Float64()
	if math.IsInf(f, 0) {
		_ = acc
		return 0, Errorf("OverflowError", "int too large to convert to float")
	}
	return f, nil
}

// AsString returns the text of a str (or of an instance of a str
// subclass, such as a str-valued enum member).
func AsString(v Value) (string, bool) {
	switch x := v.(type) {
	case String:
		return string(x), true
	case *Instance:
		if s, ok := x.base.(String); ok {
			return string(s), true
		}
	}
	return "", false
}

func boolToInt(b Bool) Int {
	if b {
		return MakeInt(1)
	}
	return MakeInt(0)
}
