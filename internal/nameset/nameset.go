// Package nameset is an open-addressing set of names (the verifier's
// uniqueness rules, the text printer's dependency targets). It stores ids
// and hash fragments, never strings: the caller supplies the hash (maphash
// of the name's bytes, which for instruction names are read in place from
// the module's symbol arena) and an equality callback, so checking a
// million instruction names allocates only the table itself.
//
// A slot is one uint64: the high 32 bits of the name's hash (which also
// pick the probe start, so the table can grow without the full hashes) and
// id+1 (0 marks an empty slot); a probe touches one cache line. Tables are sized
// to a load factor of at most 3/4. Instruction names are inserted in
// batches (the verifier's checker.flushNames): computing a batch's hashes first and
// then probing lets the processor overlap the cache misses of independent
// probes, which dominate on tables of millions of names.
package nameset

import "hash/maphash"

// Table is a set of names given by ids (see the package comment).
type Table struct {
	slots []uint64
	mask  uint64
	n     int
}

// Reset prepares the table for up to n names, reusing its storage.
func (t *Table) Reset(n int) {
	size := 16
	for size*3 < 4*n {
		size <<= 1
	}
	if cap(t.slots) >= size {
		t.slots = t.slots[:size]
		clear(t.slots)
	} else {
		t.slots = make([]uint64, size)
	}
	t.mask = uint64(size - 1)
	t.n = 0
}

// grow doubles the table (only when a caller under-sized it).
func (t *Table) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		j := (s >> 32) & t.mask
		for t.slots[j] != 0 {
			j = (j + 1) & t.mask
		}
		t.slots[j] = s
	}
}

// Insert adds id with hash h (only the high 32 bits of h are used: they
// are the slot's tag and pick the probe start). If an equal name is already present (same
// hash fragment and eq(other, id)), it returns the other id and does not
// insert. Otherwise it returns -1.
func (t *Table) Insert(h uint64, id int32, eq func(a, b int32) bool) int32 {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	frag := h >> 32 << 32
	for k := (h >> 32) & t.mask; ; k = (k + 1) & t.mask {
		s := t.slots[k]
		if s == 0 {
			t.slots[k] = frag | uint64(uint32(id+1))
			t.n++
			return -1
		}
		if s&^0xffffffff == frag && eq(int32(uint32(s))-1, id) {
			return int32(uint32(s)) - 1
		}
	}
}

// Find returns the id of a name with hash h for which eq(id) holds, or -1.
func (t *Table) Find(h uint64, eq func(id int32) bool) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	frag := h >> 32 << 32
	for k := (h >> 32) & t.mask; ; k = (k + 1) & t.mask {
		s := t.slots[k]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == frag && eq(int32(uint32(s))-1) {
			return int32(uint32(s)) - 1
		}
	}
}

var seed = maphash.MakeSeed()

// HashString and HashBytes are the hashes the tables expect (one seed per
// process).
func HashString(s string) uint64 { return maphash.String(seed, s) }
func HashBytes(b []byte) uint64  { return maphash.Bytes(seed, b) }

// Bytes returns the bytes the table's slots occupy.
func (t *Table) Bytes() int { return 8 * cap(t.slots) }

// Key packs a name's hash and its id for Duplicates: the high 32 bits of
// h and id+1.
func Key(h uint64, id int32) uint64 { return h>>32<<32 | uint64(uint32(id+1)) }

// Scratch is Duplicates' reusable storage.
type Scratch struct {
	sorted []uint64
	pos    []int32
	table  Table
}

// Bytes returns the bytes s holds.
func (s *Scratch) Bytes() int { return 8*cap(s.sorted) + 4*cap(s.pos) + s.table.Bytes() }

// Duplicates appends to dst a pair {id, first} for every key (Key) whose
// name equals that of an earlier key of keys (first: the earliest such
// key's id), and returns dst; pairs of one name come in keys' order, pairs
// of different names in no particular order. eq(a, b) compares the names
// of ids a and b.
//
// A hash table over millions of names misses the cache on every probe, so
// the keys are partitioned by the top bits of their hash into buckets of
// about 2048 with a (stable) counting sort, and each bucket is then
// checked with a small table that stays in cache; within a bucket the
// table probes from the key's hash bits below the bucket bits.
func (s *Scratch) Duplicates(keys []uint64, eq func(a, b int32) bool, dst [][2]int32) [][2]int32 {
	k := 0
	for k < 20 && len(keys)>>k > 2048 {
		k++
	}
	nb := 1 << k
	if cap(s.pos) >= nb+1 {
		s.pos = s.pos[:nb+1]
		clear(s.pos)
	} else {
		s.pos = make([]int32, nb+1)
	}
	pos := s.pos
	shift := uint(64 - k) // k == 0: one bucket (a shift by 64 yields 0)
	for _, key := range keys {
		pos[key>>shift+1]++
	}
	for b := 1; b <= nb; b++ {
		pos[b] += pos[b-1]
	}
	if cap(s.sorted) < len(keys) {
		s.sorted = make([]uint64, len(keys))
	}
	sorted := s.sorted[:len(keys)]
	for _, key := range keys {
		b := key >> shift
		sorted[pos[b]] = key
		pos[b]++
	}
	start := int32(0)
	for b := 0; b < nb; b++ {
		end := pos[b]
		bucket := sorted[start:end]
		start = end
		if len(bucket) < 2 {
			continue
		}
		s.table.Reset(len(bucket))
		for _, key := range bucket {
			id := int32(uint32(key)) - 1
			if o := s.table.Insert(key, id, eq); o >= 0 {
				dst = append(dst, [2]int32{id, o})
			}
		}
	}
	return dst
}

// Release drops s's storage when it holds more than max bytes.
func (s *Scratch) Release(max int) {
	if s.Bytes() > max {
		*s = Scratch{}
	}
}
