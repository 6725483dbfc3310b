// Small ordered containers used by the heuristics and the validator.
//
// pairSet is a treap (randomized balanced binary search tree) over keys that
// are pairs of int64, ordered lexicographically. It provides the O(log n)
// ordered queries the n log n allocators need (smallest key at or above a
// bound, predecessor, successor) without pulling in anything beyond the
// standard library. Priorities come from a fixed-seed xorshift generator, so
// the shape of the tree, and with it every result, is deterministic.
//
// endHeap is a binary min-heap of (buffer index, upper) used to expire live
// intervals in time order.
package pack

type pairKey struct{ a, b int64 }

func (k pairKey) less(o pairKey) bool {
	if k.a != o.a {
		return k.a < o.a
	}
	return k.b < o.b
}

type treapNode struct {
	key         pairKey
	priority    uint64
	left, right int32
}

// pairSet is an ordered set of pairKey. The zero value is not usable; call
// newPairSet.
type pairSet struct {
	nodes []treapNode // index 0 is the nil sentinel
	free  []int32
	root  int32
	rng   uint64
	size  int
}

func newPairSet() *pairSet {
	return &pairSet{nodes: make([]treapNode, 1, 64), rng: 0x9E3779B97F4A7C15}
}

func (s *pairSet) Len() int { return s.size }

func (s *pairSet) nextPriority() uint64 {
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	return s.rng
}

func (s *pairSet) newNode(k pairKey) int32 {
	n := treapNode{key: k, priority: s.nextPriority()}
	if len(s.free) > 0 {
		id := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		s.nodes[id] = n
		return id
	}
	s.nodes = append(s.nodes, n)
	return int32(len(s.nodes) - 1)
}

// split divides tree t into keys < k and keys >= k.
func (s *pairSet) split(t int32, k pairKey) (int32, int32) {
	if t == 0 {
		return 0, 0
	}
	if s.nodes[t].key.less(k) {
		l, r := s.split(s.nodes[t].right, k)
		s.nodes[t].right = l
		return t, r
	}
	l, r := s.split(s.nodes[t].left, k)
	s.nodes[t].left = r
	return l, t
}

// merge joins trees l and r where every key of l is below every key of r.
func (s *pairSet) merge(l, r int32) int32 {
	if l == 0 {
		return r
	}
	if r == 0 {
		return l
	}
	if s.nodes[l].priority > s.nodes[r].priority {
		s.nodes[l].right = s.merge(s.nodes[l].right, r)
		return l
	}
	s.nodes[r].left = s.merge(l, s.nodes[r].left)
	return r
}

// insert adds k (no effect if present).
func (s *pairSet) insert(k pairKey) {
	if s.contains(k) {
		return
	}
	l, r := s.split(s.root, k)
	s.root = s.merge(s.merge(l, s.newNode(k)), r)
	s.size++
}

func (s *pairSet) contains(k pairKey) bool {
	t := s.root
	for t != 0 {
		n := &s.nodes[t]
		switch {
		case k == n.key:
			return true
		case k.less(n.key):
			t = n.left
		default:
			t = n.right
		}
	}
	return false
}

// remove deletes k if present.
func (s *pairSet) remove(k pairKey) {
	parent, t := int32(0), s.root
	for t != 0 && s.nodes[t].key != k {
		parent = t
		if k.less(s.nodes[t].key) {
			t = s.nodes[t].left
		} else {
			t = s.nodes[t].right
		}
	}
	if t == 0 {
		return
	}
	joined := s.merge(s.nodes[t].left, s.nodes[t].right)
	switch {
	case parent == 0:
		s.root = joined
	case s.nodes[parent].left == t:
		s.nodes[parent].left = joined
	default:
		s.nodes[parent].right = joined
	}
	s.free = append(s.free, t)
	s.size--
}

// ceil returns the smallest key >= k.
func (s *pairSet) ceil(k pairKey) (pairKey, bool) {
	var best pairKey
	found := false
	t := s.root
	for t != 0 {
		n := &s.nodes[t]
		if n.key.less(k) {
			t = n.right
		} else {
			best, found = n.key, true
			t = n.left
		}
	}
	return best, found
}

// floorBelow returns the largest key < k.
func (s *pairSet) floorBelow(k pairKey) (pairKey, bool) {
	var best pairKey
	found := false
	t := s.root
	for t != 0 {
		n := &s.nodes[t]
		if n.key.less(k) {
			best, found = n.key, true
			t = n.right
		} else {
			t = n.left
		}
	}
	return best, found
}

// offsetSet is the live set of the validator: buffers keyed by (offset, index).
type offsetSet struct{ set *pairSet }

func newOffsetSet() offsetSet { return offsetSet{newPairSet()} }

func (o offsetSet) insert(offset int64, index int) {
	o.set.insert(pairKey{offset, int64(index)})
}
func (o offsetSet) remove(offset int64, index int) {
	o.set.remove(pairKey{offset, int64(index)})
}

// floor returns the index of the buffer just before (offset, index).
func (o offsetSet) floor(offset int64, index int) (int, bool) {
	k, ok := o.set.floorBelow(pairKey{offset, int64(index)})
	return int(k.b), ok
}

// ceil returns the index of the buffer just after (offset, index).
func (o offsetSet) ceil(offset int64, index int) (int, bool) {
	k, ok := o.set.ceil(pairKey{offset, int64(index) + 1})
	return int(k.b), ok
}

// endHeap is a min-heap of buffer indices keyed by upper (ties by index).
type endHeap struct {
	index []int
	upper []int64
}

func (h *endHeap) Len() int        { return len(h.index) }
func (h *endHeap) minUpper() int64 { return h.upper[0] }
func (h *endHeap) lessAt(i, j int) bool {
	if h.upper[i] != h.upper[j] {
		return h.upper[i] < h.upper[j]
	}
	return h.index[i] < h.index[j]
}
func (h *endHeap) swap(i, j int) {
	h.index[i], h.index[j] = h.index[j], h.index[i]
	h.upper[i], h.upper[j] = h.upper[j], h.upper[i]
}

func (h *endHeap) push(index int, upper int64) {
	h.index = append(h.index, index)
	h.upper = append(h.upper, upper)
	for i := len(h.index) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.lessAt(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *endHeap) pop() int {
	top := h.index[0]
	last := len(h.index) - 1
	h.swap(0, last)
	h.index, h.upper = h.index[:last], h.upper[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.lessAt(l, m) {
			m = l
		}
		if r < last && h.lessAt(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h.swap(i, m)
		i = m
	}
	return top
}
