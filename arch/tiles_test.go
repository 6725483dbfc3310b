package arch

import (
	"slices"
	"testing"
)

// quadrantRule is an independent formulation of seed 002 §3: an access must
// start on a boundary of its size class (128, 64 or 32 partitions) and stay
// inside the 128-partition array.
func quadrantRule(start, count int) bool {
	if count < 1 || count > 128 || start < 0 {
		return false
	}
	class := 32
	if count > 64 {
		class = 128
	} else if count > 32 {
		class = 64
	}
	return start%class == 0 && start+class <= 128
}

func TestLegalPartitionStart_Exhaustive(t *testing.T) {
	for count := 1; count <= 128; count++ {
		starts := PartitionStarts(count)
		for start := 0; start < 128; start++ {
			got := LegalPartitionStart(start, count)
			if want := quadrantRule(start, count); got != want {
				t.Errorf("LegalPartitionStart(%d, %d) = %v, want %v", start, count, got, want)
			}
			if got != slices.Contains(starts, start) {
				t.Errorf("PartitionStarts(%d) = %v disagrees with LegalPartitionStart at %d", count, starts, start)
			}
			if got && start+count > 128 {
				t.Errorf("legal start %d for %d partitions overflows the array", start, count)
			}
		}
	}
}

func TestLegalPartitionStart_Rows(t *testing.T) {
	tests := []struct {
		count int
		want  []int
		text  string
	}{
		{128, []int{0}, "0"}, {65, []int{0}, "0"}, {64, []int{0, 64}, "0 or 64"}, {33, []int{0, 64}, "0 or 64"},
		{32, []int{0, 32, 64, 96}, "0, 32, 64 or 96"}, {8, []int{0, 32, 64, 96}, "0, 32, 64 or 96"},
		{1, []int{0, 32, 64, 96}, "0, 32, 64 or 96"}, {0, nil, "none (want 1..128 partitions)"},
		{129, nil, "none (want 1..128 partitions)"}, {-3, nil, "none (want 1..128 partitions)"},
	}
	for _, tc := range tests {
		if got := PartitionStarts(tc.count); !slices.Equal(got, tc.want) {
			t.Errorf("PartitionStarts(%d) = %v, want %v", tc.count, got, tc.want)
		}
		if got := PartitionStartsText(tc.count); got != tc.text {
			t.Errorf("PartitionStartsText(%d) = %q, want %q", tc.count, got, tc.text)
		}
	}
	// The hardware.md example: "Invalid access of 8 partitions starting at partition 48".
	if LegalPartitionStart(48, 8) {
		t.Error("8 partitions at 48 accepted")
	}
	if LegalPartitionStart(-32, 8) || LegalPartitionStart(0, 0) || LegalPartitionStart(0, 129) {
		t.Error("out-of-range input accepted")
	}
	s := PartitionStarts(8)
	s[0] = 99
	if PartitionStarts(8)[0] != 0 {
		t.Error("PartitionStarts returns shared storage")
	}
}

func TestIsValidTileSize(t *testing.T) {
	table := map[int][]int{0: {32, 64, 128}, 32: {32}, 64: {32, 64}, 96: {32}} // seed 000
	for base := -32; base <= 160; base++ {
		for size := -1; size <= 256; size++ {
			want := slices.Contains(table[base], size)
			if got := IsValidTileSize(base, size); got != want {
				t.Errorf("IsValidTileSize(%d, %d) = %v, want %v", base, size, got, want)
			}
		}
	}
	vt := ValidTileSizes()
	if len(vt) != 4 {
		t.Fatalf("ValidTileSizes has %d bases", len(vt))
	}
	for base, sizes := range table {
		if !slices.Equal(vt[base], sizes) {
			t.Errorf("ValidTileSizes()[%d] = %v, want %v", base, vt[base], sizes)
		}
		for _, s := range sizes {
			// Every listed tile starts on a multiple of its size and fits the array.
			if base%s != 0 || base+s > PartitionArray {
				t.Errorf("table entry %d:%d is not size-aligned", base, s)
			}
		}
	}
	vt[0][0] = 7
	if ValidTileSizes()[0][0] != 32 {
		t.Error("ValidTileSizes returns shared storage")
	}
}
