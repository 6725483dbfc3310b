// Partition placement rules shared by the allocator, the tiling passes and
// the verifier: the partition-start rule (seed 002 §3, sbuf.pyi's
// base_partition_constrained) and the matmul tile table (seed 000
// validTileSizes / isValidTileSize). Both are facts of the 128-row
// partition array and its 32-partition quadrants, identical on every
// generation narwhal models, so they are package functions rather than
// Model fields.

package arch

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
