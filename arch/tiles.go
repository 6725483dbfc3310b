// Partition placement rules shared by the allocator, the tiling passes and
// the verifier: the partition-start rule (seed 002 §3, sbuf.pyi's
// base_partition_constrained) and the matmul tile table (seed 000
// validTileSizes / isValidTileSize). Both are facts of the 128-row
// partition array and its 32-partition quadrants, identical on every
// generation narwhal models, so they are package functions rather than
// Model fields.

package arch

import "github.com/narwhal-compiler/narwhal/bir"

// PartitionArray is the number of partitions the placement rules are
// defined over (seed 002 §3: "64 < pdim_size <= 128").
const PartitionArray = 128

// LegalPartitionStart reports whether an access of count partitions may
// start at partition start (seed 002 §3, verbatim from sbuf.pyi):
//
//	64 < count <= 128: start must be 0
//	32 < count <=  64: start must be 0 or 64
//	 0 < count <=  32: start must be one of 0/32/64/96
//
// Any other count (<= 0 or > 128) or a negative start is illegal.
func LegalPartitionStart(start, count int) bool {
	switch {
	case count > 64 && count <= PartitionArray:
		return start == 0
	case count > 32 && count <= 64:
		return start == 0 || start == 64
	case count > 0 && count <= 32:
		return start == 0 || start == 32 || start == 64 || start == 96
	}
	return false
}

// PartitionStarts returns the legal starts of an access of count
// partitions, ascending (nil for a count outside 1..128). The slice is new.
func PartitionStarts(count int) []int {
	switch {
	case count > 64 && count <= PartitionArray:
		return []int{0}
	case count > 32 && count <= 64:
		return []int{0, 64}
	case count > 0 && count <= 32:
		return []int{0, 32, 64, 96}
	}
	return nil
}

// PartitionStartsText returns the legal starts as text for messages
// ("0", "0 or 64", "0, 32, 64 or 96"), or "none" for an illegal count.
func PartitionStartsText(count int) string {
	switch {
	case count > 64 && count <= PartitionArray:
		return "0"
	case count > 32 && count <= 64:
		return "0 or 64"
	case count > 0 && count <= 32:
		return "0, 32, 64 or 96"
	}
	return "none (want 1..128 partitions)"
}

// validTileSizes is seed 000's table: legal PE-array tile sizes per
// quadrant base partition, {0:{32,64,128}, 32:{32}, 64:{32,64}, 96:{32}}.
var validTileSizes = map[int][]int{
	0:  {32, 64, 128},
	32: {32},
	64: {32, 64},
	96: {32},
}

// ValidTileSizes returns a copy of seed 000's validTileSizes table.
func ValidTileSizes() map[int][]int {
	out := make(map[int][]int, len(validTileSizes))
	for k, v := range validTileSizes {
		out[k] = append([]int(nil), v...)
	}
	return out
}

// IsValidTileSize is seed 000's isValidTileSize(base_partition, tile_size):
// whether the table lists tileSize for basePartition.
func IsValidTileSize(basePartition, tileSize int) bool {
	// A switch rather than the map: the verifier calls this per matmul.
	switch basePartition {
	case 0:
		return tileSize == 32 || tileSize == 64 || tileSize == 128
	case 32, 96:
		return tileSize == 32
	case 64:
		return tileSize == 32 || tileSize == 64
	}
	return false
}

// TilePair reads a matmul's tile_position or tile_size field (key), a
// [row, column] integer pair: present is false when the key is absent or
// null, ok false when the value is not a pair of integers. [-1, -1] means
// "no constraint" (seed 000 getLegalTilePosition's fallback). The
// verifier's tile rules and the allocator's placement read it here.
func TilePair(attrs bir.AttrSet, key string) (a, b int64, present, ok bool) {
	v, has := attrs.Get(key)
	if !has || v.Kind == bir.ValNull {
		return 0, 0, false, true
	}
	if v.Kind != bir.ValList || len(v.L) != 2 {
		return 0, 0, true, false
	}
	x, ok1 := v.L[0].AsInt()
	y, ok2 := v.L[1].AsInt()
	return x, y, true, ok1 && ok2
}
