// iter.go: iteration. Iterate walks any iterable: the builtin containers
// (a list by index, so appends during the loop are seen, as in CPython;
// a dict or set whose size changes during the loop is a RuntimeError),
// ranges, strings by code point, Python iterator objects, instances with
// __iter__ (returning an iterator with __next__, or any iterable) or
// with __getitem__ only (the old sequence protocol), enum classes, and
// values implementing Iterable. Every element costs one step of the
// Thread's budget.
package tracer

import (
	"errors"
	"unicode/utf8"
)

// errStopIteration ends an Iterate early (returned by a callback).
var errStopIteration = errors.New("stop iteration")

// tick counts one evaluation step against the budget.
func (th *Thread) tick() error {
	th.steps++
	if th.steps > th.maxSteps {
		if th.maxSteps == 0 {
			th.defaults()
			return nil
		}
		return &Error{Kind: "LimitExceeded", Code: CodeLimit,
			Msg: "the trace exceeded its budget of " + itoa(th.maxSteps) + " evaluation steps (ThreadOptions.MaxSteps): a loop that does not end, or a program too long to trace"}
	}
	return nil
}

// Iterate calls fn with each element of v. fn returning errStopIteration
// ends the iteration without error.
func Iterate(th *Thread, v Value, fn func(Value) error) error {
	switch x := v.(type) {
	case *List:
		for i := 0; i < len(x.elems); i++ {
			if err := th.tick(); err != nil {
				return err
			}
			if err := fn(x.elems[i]); err != nil {
				if err == errStopIteration {
					return nil
				}
				return err
			}
		}
		return nil
	case Tuple:
		for _, e := range x {
			if err := th.tick(); err != nil {
				return err
			}
			if err := fn(e); err != nil {
				if err == errStopIteration {
					return nil
				}
				return err
			}
		}
		return nil
	case *Range:
		n := x.Len()
		for i := int64(0); i < n; i++ {
			if err := th.tick(); err != nil {
				return err
			}
			if err := fn(intValue(x.At(i))); err != nil {
				if err == errStopIteration {
					return nil
				}
				return err
			}
		}
		return nil
	}
	it, err := getIterator(th, v)
	if err != nil {
		return err
	}
	for {
		if err := th.tick(); err != nil {
			return err
		}
		e, ok, err := it.Next(th)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := fn(e); err != nil {
			if err == errStopIteration {
				return nil
			}
			return err
		}
	}
}

// collect returns the elements of an iterable as a new slice.
func collect(th *Thread, v Value) ([]Value, error) {
	switch x := v.(type) {
	case *List:
		return append([]Value(nil), x.elems...), nil
	case Tuple:
		return append([]Value(nil), x...), nil
	case *Range:
		n := x.Len()
		if n > int64(th.sizeLimit()) {
			return nil, sizeError(th)
		}
		out := make([]Value, n)
		for i := range out {
			out[i] = intValue(x.At(int64(i)))
		}
		return out, nil
	}
	var out []Value
	err := Iterate(th, v, func(e Value) error {
		if len(out) >= th.sizeLimit() {
			return sizeError(th)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

func notIterable(v Value) error {
	return Errorf("TypeError", "'%s' object is not iterable", v.Type())
}

// getIterator returns an iterator over v.
func getIterator(th *Thread, v Value) (Iterator, error) {
	switch x := v.(type) {
	case *List:
		return &listIter{l: x}, nil
	case Tuple:
		return &sliceIter{elems: x}, nil
	case String:
		return &strIter{s: string(x)}, nil
	case *Range:
		return &rangeIter{r: x}, nil
	case *Dict:
		return &dictIter{d: x, version: x.version, kind: "keys"}, nil
	case *Set:
		return &dictIter{d: &x.d, version: x.d.version, kind: "keys", set: true}, nil
	case *dictView:
		return &dictIter{d: x.d, version: x.d.version, kind: x.kind}, nil
	case *iterObj:
		return x, nil
	case *Instance:
		if f := x.class.userLookup("__iter__"); f != nil {
			r, err := callMethod(th, x, f, nil, nil)
			if err != nil {
				return nil, err
			}
			if o, ok := r.(*Instance); ok {
				if nf := o.class.userLookup("__next__"); nf != nil {
					return &nextIter{obj: o, next: nf}, nil
				}
			}
			if _, ok := r.(*iterObj); ok {
				return r.(*iterObj), nil
			}
			it, err := getIterator(th, r)
			if err != nil {
				return nil, Errorf("TypeError", "iter() returned non-iterator of type '%s'", r.Type())
			}
			return it, nil
		}
		if x.base != nil {
			return getIterator(th, x.base)
		}
		if f := x.class.userLookup("__getitem__"); f != nil {
			return &getitemIter{obj: x, getitem: f}, nil
		}
	case *Class:
		if x.enum != nil {
			return &sliceIter{elems: x.enum.members()}, nil
		}
	case Iterable:
		return x.Iterate(th)
	}
	return nil, notIterable(v)
}

type listIter struct {
	l *List
	i int
}

func (it *listIter) Next(*Thread) (Value, bool, error) {
	if it.i >= len(it.l.elems) {
		return nil, false, nil
	}
	it.i++
	return it.l.elems[it.i-1], true, nil
}

type sliceIter struct {
	elems []Value
	i     int
}

func (it *sliceIter) Next(*Thread) (Value, bool, error) {
	if it.i >= len(it.elems) {
		return nil, false, nil
	}
	it.i++
	return it.elems[it.i-1], true, nil
}

type strIter struct {
	s string
	i int
}

func (it *strIter) Next(*Thread) (Value, bool, error) {
	if it.i >= len(it.s) {
		return nil, false, nil
	}
	_, n := utf8.DecodeRuneInString(it.s[it.i:])
	v := String(it.s[it.i : it.i+n])
	it.i += n
	return v, true, nil
}

type rangeIter struct {
	r *Range
	i int64
}

func (it *rangeIter) Next(*Thread) (Value, bool, error) {
	if it.i >= it.r.Len() {
		return nil, false, nil
	}
	it.i++
	return intValue(it.r.At(it.i - 1)), true, nil
}

type dictIter struct {
	d       *Dict
	version uint64
	i       int
	kind    string
	set     bool
}

func (it *dictIter) Next(*Thread) (Value, bool, error) {
	if it.d.version != it.version {
		if it.set {
			return nil, false, Errorf("RuntimeError", "Set changed size during iteration")
		}
		return nil, false, Errorf("RuntimeError", "dictionary changed size during iteration")
	}
	for it.i < len(it.d.entries) {
		e := it.d.entries[it.i]
		it.i++
		if e.deleted {
			continue
		}
		switch it.kind {
		case "values":
			return e.value, true, nil
		case "items":
			return Tuple{e.key, e.value}, true, nil
		}
		return e.key, true, nil
	}
	return nil, false, nil
}

// nextIter drives a user iterator object's __next__.
type nextIter struct {
	obj  *Instance
	next Value
}

func (it *nextIter) Next(th *Thread) (Value, bool, error) {
	v, err := callMethod(th, it.obj, it.next, nil, nil)
	if err != nil {
		if e, ok := err.(*Error); ok && e.isStopIteration() {
			return nil, false, nil
		}
		return nil, false, err
	}
	return v, true, nil
}

// getitemIter is the sequence protocol: __getitem__(0), (1), ... until
// IndexError.
type getitemIter struct {
	obj     *Instance
	getitem Value
	i       int64
}

func (it *getitemIter) Next(th *Thread) (Value, bool, error) {
	v, err := callMethod(th, it.obj, it.getitem, []Value{intValue(it.i)}, nil)
	if err != nil {
		if e, ok := err.(*Error); ok && (e.Kind == "IndexError" || e.isStopIteration()) {
			return nil, false, nil
		}
		return nil, false, err
	}
	it.i++
	return v, true, nil
}

// funcIter adapts a Go function to Iterator.
type funcIter func(th *Thread) (Value, bool, error)

func (f funcIter) Next(th *Thread) (Value, bool, error) { return f(th) }

// iterObj is a Python iterator object (iter(x), enumerate, zip, map,
// filter, reversed, generators, itertools): iterating it consumes it.
type iterObj struct {
	name string
	it   Iterator
	done bool
}

func newIterObj(name string, it Iterator) *iterObj { return &iterObj{name: name, it: it} }

func (o *iterObj) Type() string         { return o.name }
func (o *iterObj) String() string       { return "<" + o.name + " object>" }
func (o *iterObj) Truth() (bool, error) { return true, nil }
func (o *iterObj) Iterate(*Thread) (Iterator, error) {
	return o, nil
}

// Next returns the next element (false at the end, and after it).
func (o *iterObj) Next(th *Thread) (Value, bool, error) {
	if o.done {
		return nil, false, nil
	}
	v, ok, err := o.it.Next(th)
	if err != nil || !ok {
		o.done = true
	}
	return v, ok, err
}

func itoa(n int64) string { return Int{small: n}.String() }
