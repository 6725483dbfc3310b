// dict.go: hashing, Python equality of dict keys, and the insertion-
// ordered dict and set.
//
// Hashes follow CPython's where CPython's are deterministic (ints modulo
// the Mersenne prime 2**61-1, floats by the same reduction, so that
// hash(1) == hash(1.0) == hash(True); tuples by CPython's xxHash-style
// combination), so hash() of numbers and tuples of numbers prints what
// CPython prints. Strings hash with hash/maphash (CPython randomizes them
// too). Values without a hash of their own hash by identity, as Python's
// object.__hash__ does; lists, dicts and sets are unhashable.
//
// The dict keeps its entries in insertion order in a slice and indexes
// them by hash in a Go map whose values head a chain of the entries with
// that hash; deleted entries stay in place (flagged) until they outnumber
// the live ones, when the dict compacts.
package tracer

import (
	"hash/maphash"
	"math"
	"math/big"
	"reflect"
	"strings"
)

var stringSeed = maphash.MakeSeed()

const hashModulus = (1 << 61) - 1

// hashValue returns hash(v) as CPython computes it where it is
// deterministic.
func hashValue(th *Thread, v Value) (uint64, error) {
	switch x := v.(type) {
	case String:
		return maphash.String(stringSeed, string(x)), nil
	case Int:
		return uint64(hashInt(x)), nil
	case Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case Float:
		return uint64(hashFloat(float64(x))), nil
	case NoneType:
		return 0xfcb3bd7e3d4a4c7b, nil
	case Tuple:
		return hashTuple(th, x)
	case *List, *Dict:
		return 0, Errorf("TypeError", "unhashable type: '%s'", v.Type())
	case *Set:
		if !x.frozen {
			return 0, Errorf("TypeError", "unhashable type: 'set'")
		}
		var h uint64
		for _, e := range x.d.entries {
			if !e.deleted {
				h ^= e.hash*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
			}
		}
		return h, nil
	case *Instance:
		return x.hash(th)
	case *Slice:
		return 0, Errorf("TypeError", "unhashable type: 'slice'")
	case Hashable:
		return x.Hash(th)
	}
	if s, ok := v.(interface{ serialNumber() uint64 }); ok {
		return s.serialNumber() * 0x9e3779b97f4a7c15, nil
	}
	return th.identityHash(v)
}

// hashInt is CPython's hash of an int.
func hashInt(i Int) int64 {
	var h int64
	if i.big == nil {
		n := i.small
		if n >= 0 {
			h = int64(uint64(n) % hashModulus)
		} else {
			h = -int64(uint64(-n) % hashModulus)
			if n == math.MinInt64 {
				h = -int64((uint64(1) << 63) % hashModulus)
			}
		}
	} else {
		m := new(big.Int).Abs(i.big)
		m.Mod(m, big.NewInt(hashModulus))
		h = m.Int64()
		if i.big.Sign() < 0 {
			h = -h
		}
	}
	if h == -1 {
		h = -2
	}
	return h
}

// hashFloat is CPython's hash of a float.
func hashFloat(f float64) int64 {
	switch {
	case math.IsInf(f, 1):
		return 314159
	case math.IsInf(f, -1):
		return -314159
	case math.IsNaN(f):
		return 0
	}
	m, e := math.Frexp(f)
	sign := int64(1)
	if m < 0 {
		sign = -1
		m = -m
	}
	var x uint64
	for m != 0 {
		x = ((x << 28) & hashModulus) | x>>(61-28)
		m *= 268435456.0
		e -= 28
		y := uint64(m)
		m -= float64(y)
		x += y
		if x >= hashModulus {
			x -= hashModulus
		}
	}
	if e >= 0 {
		e %= 61
	} else {
		e = 61 - 1 - ((-1 - e) % 61)
	}
	x = ((x << uint(e)) & hashModulus) | x>>(61-uint(e))
	h := int64(x) * sign
	if h == -1 {
		h = -2
	}
	return h
}

// hashTuple is CPython's tuple hash (its xxHash-style lane combination).
func hashTuple(th *Thread, t Tuple) (uint64, error) {
	const (
		prime1 = 11400714785074694791
		prime2 = 14029467366897019727
		prime5 = 2870177450012600261
	)
	acc := uint64(prime5)
	for _, v := range t {
		lane, err := hashValue(th, v)
		if err != nil {
			return 0, err
		}
		acc += lane * prime2
		acc = acc<<31 | acc>>33
		acc *= prime1
	}
	acc += uint64(len(t)) ^ (prime5 ^ 3527539)
	if acc == math.MaxUint64 {
		return 1546275796, nil
	}
	return acc, nil
}

// identityHash hashes a value of a foreign type by identity.
func (th *Thread) identityHash(v Value) (uint64, error) {
	if !comparableValue(v) {
		return 0, Errorf("TypeError", "unhashable type: '%s'", v.Type())
	}
	if th.ids == nil {
		th.ids = map[Value]uint64{}
	}
	id, ok := th.ids[v]
	if !ok {
		id = nextSerial()
		th.ids[v] = id
	}
	return id * 0x9e3779b97f4a7c15, nil
}

// comparableValue reports whether Go's == may be applied to v (foreign
// types only: the evaluator's own types are known).
func comparableValue(v Value) bool {
	switch v.(type) {
	case Tuple:
		return false
	case NoneType, Bool, Int, Float, String, *List, *Dict, *Set, *Slice, *Range,
		*Module, *Builtin, *BoundMethod, *Function, *Class, *Instance, EllipsisType:
		return true
	}
	return reflect.TypeOf(v).Comparable()
}

// identical reports whether a and b are the same object (Python's `is`).
func identical(a, b Value) bool {
	switch x := a.(type) {
	case Tuple:
		y, ok := b.(Tuple)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case Int:
		y, ok := b.(Int)
		// Small ints are shared objects in CPython; big ones compare by
		// value here (CPython's identity of equal big ints is an accident).
		return ok && x.big == nil && y.big == nil && x.small == y.small
	}
	if !comparableValue(a) || !comparableValue(b) {
		return false
	}
	return a == b
}

// ---------------------------------------------------------------------------
// dict.

// Dict is Python's dict: insertion-ordered, keyed with Python equality.
type Dict struct {
	entries []dictEntry
	index   map[uint64]int32 // hash -> first entry with that hash
	live    int
	serial  uint64
	// factory makes missing values of a collections.defaultdict.
	factory Value
	// kind is "" for dict, "defaultdict" or "OrderedDict".
	kind string
	// iterating counts active iterations (a size change during one is a
	// RuntimeError, as in CPython).
	version uint64
}

type dictEntry struct {
	key, value Value
	hash       uint64
	next       int32 // next entry with the same hash, -1 at the end
	deleted    bool
}

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{serial: nextSerial()} }

// Len returns the number of items.
func (d *Dict) Len() int { return d.live }

func (d *Dict) Type() string {
	if d.kind != "" {
		return d.kind
	}
	return "dict"
}

func (d *Dict) String() string {
	var b strings.Builder
	switch d.kind {
	case "defaultdict":
		b.WriteString("defaultdict(")
		if d.factory == nil {
			b.WriteString("None")
		} else {
			b.WriteString(Repr(d.factory))
		}
		b.WriteString(", ")
	case "Counter":
		if d.live == 0 {
			return "Counter()"
		}
		b.WriteString("Counter(")
	case "OrderedDict":
		if d.live == 0 {
			return "OrderedDict()"
		}
		b.WriteString("OrderedDict([")
		first := true
		for _, e := range d.entries {
			if e.deleted {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString("(" + Repr(e.key) + ", " + Repr(e.value) + ")")
		}
		b.WriteString("])")
		return b.String()
	}
	b.WriteByte('{')
	first := true
	for _, e := range d.entries {
		if e.deleted {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		if e.key == Value(d) {
			b.WriteString("{...}")
		} else {
			b.WriteString(Repr(e.key))
		}
		b.WriteString(": ")
		if e.value == Value(d) {
			b.WriteString("{...}")
		} else {
			b.WriteString(Repr(e.value))
		}
	}
	b.WriteByte('}')
	if d.kind == "defaultdict" || d.kind == "Counter" {
		b.WriteByte(')')
	}
	return b.String()
}

func (d *Dict) Truth() (bool, error) { return d.live > 0, nil }

// find returns the entry index of k, or -1.
func (d *Dict) find(th *Thread, k Value, h uint64) (int, error) {
	if d.index == nil {
		return -1, nil
	}
	i, ok := d.index[h]
	if !ok {
		return -1, nil
	}
	for ; i >= 0; i = d.entries[i].next {
		e := &d.entries[i]
		if e.deleted {
			continue
		}
		if identical(e.key, k) {
			return int(i), nil
		}
		eq, err := keyEqual(th, e.key, k)
		if err != nil {
			return -1, err
		}
		if eq {
			return int(i), nil
		}
	}
	return -1, nil
}

// keyEqual is == for dict keys, with fast paths for the common keys.
func keyEqual(th *Thread, a, b Value) (bool, error) {
	switch x := a.(type) {
	case String:
		y, ok := b.(String)
		if ok {
			return x == y, nil
		}
		if _, inst := b.(*Instance); !inst {
			return false, nil
		}
	case Int:
		if y, ok := b.(Int); ok {
			if x.big == nil && y.big == nil {
				return x.small == y.small, nil
			}
		}
	}
	return Equal(th, a, b)
}

// Get returns d[k] and whether it is present.
func (d *Dict) Get(th *Thread, k Value) (Value, bool, error) {
	if d.live == 0 {
		// The key must still be hashable.
		if _, err := hashValue(th, k); err != nil {
			return nil, false, err
		}
		return nil, false, nil
	}
	h, err := hashValue(th, k)
	if err != nil {
		return nil, false, err
	}
	i, err := d.find(th, k, h)
	if err != nil || i < 0 {
		return nil, false, err
	}
	return d.entries[i].value, true, nil
}

// Set stores d[k] = v (recorded on the undo trail while a loop body is
// speculating).
func (d *Dict) Set(th *Thread, k, v Value) error {
	h, err := hashValue(th, k)
	if err != nil {
		return err
	}
	i, err := d.find(th, k, h)
	if err != nil {
		return err
	}
	if i >= 0 {
		e := &d.entries[i]
		if th != nil && th.spec > 0 {
			old := e.value
			th.recordMutation(d.serial, func() { d.entries[i].value = old })
		}
		e.value = v
		return nil
	}
	if th != nil && th.spec > 0 {
		n := len(d.entries)
		th.recordMutation(d.serial, func() { d.truncate(n) })
	}
	d.insert(k, v, h)
	return nil
}

// insert appends a new entry (k must be absent).
func (d *Dict) insert(k, v Value, h uint64) {
	if d.index == nil {
		d.index = make(map[uint64]int32)
	}
	next := int32(-1)
	if head, ok := d.index[h]; ok {
		next = head
	}
	d.index[h] = int32(len(d.entries))
	d.entries = append(d.entries, dictEntry{key: k, value: v, hash: h, next: next})
	d.live++
	d.version++
}

// truncate removes the entries from n on (the undo of insertions; the
// entries before n are untouched).
func (d *Dict) truncate(n int) {
	for j := len(d.entries) - 1; j >= n; j-- {
		e := d.entries[j]
		if !e.deleted {
			d.live--
		}
		if e.next >= 0 {
			d.index[e.hash] = e.next
		} else {
			delete(d.index, e.hash)
		}
	}
	d.entries = d.entries[:n]
	d.version++
}

// Delete removes k and returns its value.
func (d *Dict) Delete(th *Thread, k Value) (Value, bool, error) {
	h, err := hashValue(th, k)
	if err != nil {
		return nil, false, err
	}
	i, err := d.find(th, k, h)
	if err != nil || i < 0 {
		return nil, false, err
	}
	v := d.entries[i].value
	d.deleteAt(th, i)
	return v, true, nil
}

func (d *Dict) deleteAt(th *Thread, i int) {
	if th != nil && th.spec > 0 {
		th.recordMutation(d.serial, func() {
			d.entries[i].deleted = false
			d.live++
			d.version++
		})
	}
	d.entries[i].deleted = true
	d.live--
	d.version++
	if d.live == 0 && (th == nil || th.spec == 0) {
		d.entries, d.index = nil, nil
		return
	}
	if len(d.entries) > 32 && d.live < len(d.entries)/2 && (th == nil || th.spec == 0) {
		d.compact()
	}
}

// compact drops deleted entries (never while speculating: the undo
// closures hold entry indices).
func (d *Dict) compact() {
	old := d.entries
	d.entries = make([]dictEntry, 0, d.live)
	d.index = make(map[uint64]int32, d.live)
	d.live = 0
	for _, e := range old {
		if !e.deleted {
			d.insert(e.key, e.value, e.hash)
		}
	}
}

// clear removes every item.
func (d *Dict) clear(th *Thread) {
	if th != nil && th.spec > 0 {
		entries, index, live := d.entries, d.index, d.live
		th.recordMutation(d.serial, func() { d.entries, d.index, d.live = entries, index, live; d.version++ })
		// The old arrays stay intact for the undo.
		d.entries, d.index, d.live = nil, nil, 0
		d.version++
		return
	}
	d.entries, d.index, d.live = nil, nil, 0
	d.version++
}

// Keys returns the keys in order.
func (d *Dict) Keys() []Value {
	out := make([]Value, 0, d.live)
	for _, e := range d.entries {
		if !e.deleted {
			out = append(out, e.key)
		}
	}
	return out
}

// Items returns the (key, value) pairs in order.
func (d *Dict) Items() [][2]Value {
	out := make([][2]Value, 0, d.live)
	for _, e := range d.entries {
		if !e.deleted {
			out = append(out, [2]Value{e.key, e.value})
		}
	}
	return out
}

// copyDict returns a shallow copy (same kind and factory).
func (d *Dict) copyDict() *Dict {
	c := &Dict{serial: nextSerial(), factory: d.factory, kind: d.kind}
	c.entries = make([]dictEntry, 0, d.live)
	for _, e := range d.entries {
		if !e.deleted {
			c.insert(e.key, e.value, e.hash)
		}
	}
	return c
}

// setStr is Set for a string key that cannot fail.
func (d *Dict) setStr(th *Thread, k string, v Value) { _ = d.Set(th, String(k), v) }

// ---------------------------------------------------------------------------
// set and frozenset.

// Set is Python's set (or frozenset when frozen), insertion-ordered
// (CPython's iteration order of a set is its hash order; narwhal's is
// insertion order, a documented difference that shows only when a
// program prints a set of strings, whose order CPython randomizes).
type Set struct {
	d      Dict
	frozen bool
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{d: Dict{serial: nextSerial()}} }

// Len returns the number of elements.
func (s *Set) Len() int { return s.d.live }

// Elems returns the elements in order.
func (s *Set) Elems() []Value { return s.d.Keys() }

// Add adds x.
func (s *Set) Add(th *Thread, x Value) error {
	h, err := hashValue(th, x)
	if err != nil {
		return err
	}
	i, err := s.d.find(th, x, h)
	if err != nil || i >= 0 {
		return err
	}
	if th != nil && th.spec > 0 {
		n := len(s.d.entries)
		th.recordMutation(s.d.serial, func() { s.d.truncate(n) })
	}
	s.d.insert(x, nil, h)
	return nil
}

// Has reports whether x is an element.
func (s *Set) Has(th *Thread, x Value) (bool, error) {
	_, ok, err := s.d.Get(th, x)
	return ok, err
}

func (s *Set) Type() string {
	if s.frozen {
		return "frozenset"
	}
	return "set"
}

func (s *Set) String() string {
	if s.d.live == 0 {
		if s.frozen {
			return "frozenset()"
		}
		return "set()"
	}
	var b strings.Builder
	if s.frozen {
		b.WriteString("frozenset(")
	}
	b.WriteByte('{')
	first := true
	for _, e := range s.d.entries {
		if e.deleted {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(Repr(e.key))
	}
	b.WriteByte('}')
	if s.frozen {
		b.WriteByte(')')
	}
	return b.String()
}

func (s *Set) Truth() (bool, error) { return s.d.live > 0, nil }

func (s *Set) copySet(frozen bool) *Set {
	c := &Set{d: *s.d.copyDict(), frozen: frozen}
	return c
}
