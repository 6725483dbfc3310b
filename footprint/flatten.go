package footprint

import "github.com/narwhal-compiler/narwhal/bir"

// Flatten is seed 000's flatten (a DenseMap<Instruction*, ulong> threaded
// across nested loop bodies) as a dense slice indexed by InstID.
//
// Flatten numbers the live instructions of f in program order (Walk
// order: a loop before its body), starting at 0, and returns the numbering
// indexed by InstID (-1 for instructions the walk does not reach) and the
// count. pos is reused when large enough.
func Flatten(f *bir.Function, pos []int32) ([]int32, int32) {
	n := f.NumInstSlots()
	if cap(pos) < n {
		pos = make([]int32, n)
	}
	pos = pos[:n]
	for k := range pos {
		pos[k] = -1
	}
	var c int32
	f.Walk(func(i bir.InstID) bool {
		pos[i] = c
		c++
		return true
	})
	return pos, c
}
