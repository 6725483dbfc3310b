// seq.go: indexing and slicing of sequences (list, tuple, str, range)
// and the list and tuple methods. Every mutation of a list goes through
// the helpers here, which record its undo while a loop body speculates.
package tracer

import (
	"slices"
	"unicode/utf8"
)

// indexValue converts a subscript to an int64 (__index__).
func indexValue(th *Thread, key Value, what string) (int64, error) {
	switch k := key.(type) {
	case Int:
		if n, ok := k.Int64(); ok {
			return n, nil
		}
		return 0, Errorf("IndexError", "cannot fit 'int' into an index-sized integer")
	case Bool:
		return boolToInt(k).small, nil
	}
	n, err := AsInt64(th, key)
	if err != nil {
		if _, need := AsNeedConcrete(err); need {
			return 0, err
		}
		if e, ok := err.(*Error); ok && e.Kind == "TypeError" {
			return 0, Errorf("TypeError", "%s indices must be integers or slices, not %s", what, key.Type())
		}
		return 0, err
	}
	return n, nil
}

// seqIndex normalizes index i of a sequence of length n.
func seqIndex(th *Thread, key Value, n int, what string) (int, error) {
	i, err := indexValue(th, key, what)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		name := what
		if what == "str" {
			name = "string"
		}
		return 0, Errorf("IndexError", "%s index out of range", name)
	}
	return int(i), nil
}

// sliceIndices is CPython's slice.indices(n).
func sliceIndices(th *Thread, s *Slice, n int) (start, stop, step int, err error) {
	get := func(v Value, def int64) (int64, error) {
		if v == nil || v == Value(None) {
			return def, nil
		}
		switch x := v.(type) {
		case Int:
			if i, ok := x.Int64(); ok {
				return i, nil
			}
			if x.Sign() < 0 {
				return -1 << 62, nil
			}
			return 1 << 62, nil
		case Bool:
			return boolToInt(x).small, nil
		}
		i, err := AsInt64(th, v)
		if err != nil {
			if _, need := AsNeedConcrete(err); need {
				return 0, err
			}
			return 0, Errorf("TypeError", "slice indices must be integers or None or have an __index__ method")
		}
		return i, nil
	}
	st, err := get(s.Step, 1)
	if err != nil {
		return 0, 0, 0, err
	}
	if st == 0 {
		return 0, 0, 0, Errorf("ValueError", "slice step cannot be zero")
	}
	ln := int64(n)
	var defStart, defStop int64 = 0, ln
	if st < 0 {
		defStart, defStop = ln-1, -1
	}
	a, err := get(s.Start, defStart)
	if err != nil {
		return 0, 0, 0, err
	}
	b, err := get(s.Stop, defStop)
	if err != nil {
		return 0, 0, 0, err
	}
	clamp := func(x int64, isStart bool, given bool) int64 {
		if !given {
			return x
		}
		if x < 0 {
			x += ln
			if x < 0 {
				if st < 0 {
					return -1
				}
				return 0
			}
		} else if x >= ln {
			if st < 0 {
				return ln - 1
			}
			return ln
		}
		return x
	}
	a = clamp(a, true, s.Start != nil && s.Start != Value(None))
	b = clamp(b, false, s.Stop != nil && s.Stop != Value(None))
	return int(a), int(b), int(st), nil
}

// sliceLen is the number of elements a normalized slice selects.
func sliceLen(start, stop, step int) int {
	if step > 0 {
		if start >= stop {
			return 0
		}
		return (stop-start-1)/step + 1
	}
	if start <= stop {
		return 0
	}
	return (start-stop-1)/(-step) + 1
}

func sliceElems(th *Thread, elems []Value, s *Slice) ([]Value, error) {
	start, stop, step, err := sliceIndices(th, s, len(elems))
	if err != nil {
		return nil, err
	}
	n := sliceLen(start, stop, step)
	out := make([]Value, n)
	for i, j := 0, start; i < n; i, j = i+1, j+step {
		out[i] = elems[j]
	}
	return out, nil
}

// strRunes returns the code points of s when s is not ASCII (nil for
// ASCII strings, indexed by byte).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func strLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

func strIndex(th *Thread, s string, key Value) (Value, error) {
	if sl, ok := key.(*Slice); ok {
		if isASCII(s) {
			start, stop, step, err := sliceIndices(th, sl, len(s))
			if err != nil {
				return nil, err
			}
			if step == 1 {
				if start >= stop {
					return String(""), nil
				}
				return String(s[start:stop]), nil
			}
			n := sliceLen(start, stop, step)
			b := make([]byte, n)
			for i, j := 0, start; i < n; i, j = i+1, j+step {
				b[i] = s[j]
			}
			return String(b), nil
		}
		r := []rune(s)
		start, stop, step, err := sliceIndices(th, sl, len(r))
		if err != nil {
			return nil, err
		}
		n := sliceLen(start, stop, step)
		out := make([]rune, n)
		for i, j := 0, start; i < n; i, j = i+1, j+step {
			out[i] = r[j]
		}
		return String(string(out)), nil
	}
	if isASCII(s) {
		i, err := seqIndex(th, key, len(s), "str")
		if err != nil {
			return nil, err
		}
		return String(s[i : i+1]), nil
	}
	r := []rune(s)
	i, err := seqIndex(th, key, len(r), "str")
	if err != nil {
		return nil, err
	}
	return String(string(r[i])), nil
}

func rangeIndex(th *Thread, r *Range, key Value) (Value, error) {
	n := r.Len()
	if sl, ok := key.(*Slice); ok {
		start, stop, step, err := sliceIndices(th, sl, int(n))
		if err != nil {
			return nil, err
		}
		return &Range{start: r.start + int64(start)*r.step, stop: r.start + int64(stop)*r.step, step: r.step * int64(step)}, nil
	}
	i, err := indexValue(th, key, "range")
	if err != nil {
		return nil, err
	}
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, Errorf("IndexError", "range object index out of range")
	}
	return intValue(r.At(i)), nil
}

// ---------------------------------------------------------------------------
// List mutation (with undo).

func listSetElems(th *Thread, l *List, elems []Value) {
	if th != nil && th.spec > 0 {
		old := l.elems
		th.recordMutation(l.serial, func() { l.elems = old })
	}
	l.elems = elems
}

// listAppend appends v.
func listAppend(th *Thread, l *List, v Value) error {
	if len(l.elems) >= th.sizeLimit() {
		return sizeError(th)
	}
	if th != nil && th.spec > 0 {
		old := l.elems
		th.recordMutation(l.serial, func() { l.elems = old })
		// A copy, so that the undo's slice keeps its contents.
		l.elems = append(slices.Clip(l.elems), v)
		return nil
	}
	l.elems = append(l.elems, v)
	return nil
}

func listSetAt(th *Thread, l *List, i int, v Value) {
	if th != nil && th.spec > 0 {
		old := l.elems[i]
		th.recordMutation(l.serial, func() {
			if i < len(l.elems) {
				l.elems[i] = old
			}
		})
	}
	l.elems[i] = v
}

func listExtend(th *Thread, l *List, it Value) error {
	var more []Value
	if it == Value(l) {
		more = append([]Value(nil), l.elems...)
	} else {
		var err error
		more, err = collect(th, it)
		if err != nil {
			return err
		}
	}
	if len(l.elems)+len(more) > th.sizeLimit() {
		return sizeError(th)
	}
	out := make([]Value, 0, len(l.elems)+len(more))
	out = append(append(out, l.elems...), more...)
	listSetElems(th, l, out)
	return nil
}

// listSetSlice is l[s] = v.
func listSetSlice(th *Thread, l *List, s *Slice, v Value) error {
	repl, err := collect(th, v)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Kind == "TypeError" {
			return Errorf("TypeError", "must assign iterable to extended slice")
		}
		return err
	}
	start, stop, step, err := sliceIndices(th, s, len(l.elems))
	if err != nil {
		return err
	}
	if step == 1 {
		if stop < start {
			stop = start
		}
		out := make([]Value, 0, len(l.elems)-(stop-start)+len(repl))
		out = append(out, l.elems[:start]...)
		out = append(out, repl...)
		out = append(out, l.elems[stop:]...)
		listSetElems(th, l, out)
		return nil
	}
	n := sliceLen(start, stop, step)
	if n != len(repl) {
		return Errorf("ValueError", "attempt to assign sequence of size %d to extended slice of size %d", len(repl), n)
	}
	out := append([]Value(nil), l.elems...)
	for i, j := 0, start; i < n; i, j = i+1, j+step {
		out[j] = repl[i]
	}
	listSetElems(th, l, out)
	return nil
}

func listDelSlice(th *Thread, l *List, s *Slice) error {
	start, stop, step, err := sliceIndices(th, s, len(l.elems))
	if err != nil {
		return err
	}
	n := sliceLen(start, stop, step)
	drop := make(map[int]bool, n)
	for i, j := 0, start; i < n; i, j = i+1, j+step {
		drop[j] = true
	}
	out := make([]Value, 0, len(l.elems)-n)
	for i, e := range l.elems {
		if !drop[i] {
			out = append(out, e)
		}
	}
	listSetElems(th, l, out)
	return nil
}

// ---------------------------------------------------------------------------
// list and tuple methods.

func argCount(name string, args []Value, kwargs []Kwarg, min, max int) error {
	if len(kwargs) > 0 {
		return Errorf("TypeError", "%s() takes no keyword arguments", name)
	}
	if len(args) < min || len(args) > max {
		switch {
		case min == max && min == 0:
			return Errorf("TypeError", "%s() takes no arguments (%d given)", name, len(args))
		case min == max && min == 1:
			return Errorf("TypeError", "%s() takes exactly one argument (%d given)", name, len(args))
		case len(args) < min:
			return Errorf("TypeError", "%s expected at least %d argument%s, got %d", name, min, plural(min), len(args))
		default:
			return Errorf("TypeError", "%s expected at most %d argument%s, got %d", name, max, plural(max), len(args))
		}
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func seqIndexMethod(th *Thread, elems []Value, args []Value, what string) (Value, error) {
	start, stop := 0, len(elems)
	if len(args) > 1 {
		s, err := clampIndex(th, args[1], len(elems))
		if err != nil {
			return nil, err
		}
		start = s
	}
	if len(args) > 2 {
		s, err := clampIndex(th, args[2], len(elems))
		if err != nil {
			return nil, err
		}
		stop = s
	}
	for i := start; i < stop && i < len(elems); i++ {
		eq, err := Equal(th, elems[i], args[0])
		if err != nil {
			return nil, err
		}
		if eq {
			return intValue(int64(i)), nil
		}
	}
	if what == "list" {
		return nil, Errorf("ValueError", "%s is not in list", Repr(args[0]))
	}
	return nil, Errorf("ValueError", "tuple.index(x): x not in tuple")
}

// clampIndex is a start/end argument of index(), find(): negative from
// the end, clamped to [0, n].
func clampIndex(th *Thread, v Value, n int) (int, error) {
	if v == Value(None) {
		return n, nil
	}
	i, err := AsInt64(th, v)
	if err != nil {
		return 0, Errorf("TypeError", "slice indices must be integers or have an __index__ method")
	}
	if i < 0 {
		i += int64(n)
		if i < 0 {
			i = 0
		}
	}
	if i > int64(n) {
		i = int64(n)
	}
	return int(i), nil
}

func seqCount(th *Thread, elems []Value, x Value) (Value, error) {
	n := 0
	for _, e := range elems {
		eq, err := Equal(th, e, x)
		if err != nil {
			return nil, err
		}
		if eq {
			n++
		}
	}
	return intValue(int64(n)), nil
}

var tupleMethods = map[string]methodFn{
	"index": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("index", args, kwargs, 1, 3); err != nil {
			return nil, err
		}
		return seqIndexMethod(th, recv.(Tuple), args, "tuple")
	},
	"count": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("count", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return seqCount(th, recv.(Tuple), args[0])
	},
}

var listMethods = map[string]methodFn{
	"__init__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("list", args, kwargs, 0, 1); err != nil {
			return nil, err
		}
		var elems []Value
		if len(args) == 1 {
			var err error
			if elems, err = collect(th, args[0]); err != nil {
				return nil, err
			}
		}
		listSetElems(th, recv.(*List), elems)
		return None, nil
	},
	"append": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("list.append", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return None, listAppend(th, recv.(*List), args[0])
	},
	"extend": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("list.extend", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return None, listExtend(th, recv.(*List), args[0])
	},
	"insert": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 2 || len(kwargs) > 0 {
			return nil, Errorf("TypeError", "insert expected 2 arguments, got %d", len(args))
		}
		l := recv.(*List)
		i, err := AsInt64(th, args[0])
		if err != nil {
			return nil, err
		}
		n := int64(len(l.elems))
		if i < 0 {
			i += n
			if i < 0 {
				i = 0
			}
		}
		if i > n {
			i = n
		}
		out := make([]Value, 0, n+1)
		out = append(out, l.elems[:i]...)
		out = append(out, args[1])
		out = append(out, l.elems[i:]...)
		listSetElems(th, l, out)
		return None, nil
	},
	"pop": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("pop", args, kwargs, 0, 1); err != nil {
			return nil, err
		}
		l := recv.(*List)
		if len(l.elems) == 0 {
			return nil, Errorf("IndexError", "pop from empty list")
		}
		i := int64(len(l.elems) - 1)
		if len(args) == 1 {
			var err error
			i, err = AsInt64(th, args[0])
			if err != nil {
				return nil, err
			}
			if i < 0 {
				i += int64(len(l.elems))
			}
			if i < 0 || i >= int64(len(l.elems)) {
				return nil, Errorf("IndexError", "pop index out of range")
			}
		}
		v := l.elems[i]
		out := make([]Value, 0, len(l.elems)-1)
		out = append(append(out, l.elems[:i]...), l.elems[i+1:]...)
		listSetElems(th, l, out)
		return v, nil
	},
	"remove": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("list.remove", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		l := recv.(*List)
		for i, e := range l.elems {
			eq, err := Equal(th, e, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				out := make([]Value, 0, len(l.elems)-1)
				out = append(append(out, l.elems[:i]...), l.elems[i+1:]...)
				listSetElems(th, l, out)
				return None, nil
			}
		}
		return nil, Errorf("ValueError", "list.remove(x): x not in list")
	},
	"index": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("index", args, kwargs, 1, 3); err != nil {
			return nil, err
		}
		return seqIndexMethod(th, recv.(*List).elems, args, "list")
	},
	"count": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("list.count", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return seqCount(th, recv.(*List).elems, args[0])
	},
	"sort": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		var key Value = None
		reverse := false
		if len(args) > 0 {
			return nil, Errorf("TypeError", "sort() takes no positional arguments")
		}
		if err := UnpackArgs("sort", nil, kwargs, "*", new([]Value), "key?", &key, "reverse?", &reverse); err != nil {
			return nil, err
		}
		l := recv.(*List)
		elems := append([]Value(nil), l.elems...)
		if err := sortValues(th, elems, key, reverse); err != nil {
			return nil, err
		}
		listSetElems(th, l, elems)
		return None, nil
	},
	"reverse": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("reverse", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		l := recv.(*List)
		out := make([]Value, len(l.elems))
		for i, e := range l.elems {
			out[len(out)-1-i] = e
		}
		listSetElems(th, l, out)
		return None, nil
	},
	"copy": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("copy", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		return NewList(append([]Value(nil), recv.(*List).elems...)), nil
	},
	"clear": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("clear", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		listSetElems(th, recv.(*List), nil)
		return None, nil
	},
}

// sortValues sorts elems stably by key (None: the elements), with the
// first comparison error returned.
func sortValues(th *Thread, elems []Value, key Value, reverse bool) error {
	keys := elems
	if key != nil && key != Value(None) {
		keys = make([]Value, len(elems))
		for i, e := range elems {
			k, err := Call(th, key, []Value{e}, nil)
			if err != nil {
				return err
			}
			keys[i] = k
		}
	}
	idx := make([]int, len(elems))
	for i := range idx {
		idx[i] = i
	}
	var firstErr error
	slices.SortStableFunc(idx, func(a, b int) int {
		if firstErr != nil {
			return 0
		}
		x, y := keys[a], keys[b]
		if reverse {
			x, y = y, x
		}
		lt, err := lessThan(th, x, y)
		if err != nil {
			firstErr = err
			return 0
		}
		if lt {
			return -1
		}
		gt, err := lessThan(th, y, x)
		if err != nil {
			firstErr = err
			return 0
		}
		if gt {
			return 1
		}
		return 0
	})
	if firstErr != nil {
		return firstErr
	}
	out := make([]Value, len(elems))
	for i, j := range idx {
		out[i] = elems[j]
	}
	copy(elems, out)
	return nil
}
