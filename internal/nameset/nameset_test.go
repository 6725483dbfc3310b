package nameset

import (
	"fmt"
	"testing"
)

// TestTable_InsertFind inserts names with duplicates into an under-sized
// table (so it grows) and checks that Insert reports the first id of each
// name and Find finds it.
func TestTable_InsertFind(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []int32 // Insert's result per name
	}{
		{"empty", nil, nil},
		{"unique", []string{"a", "b", "c"}, []int32{-1, -1, -1}},
		{"duplicates", []string{"a", "b", "a", "b", "a"}, []int32{-1, -1, 0, 1, 0}},
		{"grows", func() []string {
			var s []string
			for k := range 100 {
				s = append(s, fmt.Sprint("n", k%40))
			}
			return s
		}(), func() []int32 {
			var w []int32
			for k := range 100 {
				if k < 40 {
					w = append(w, -1)
				} else {
					w = append(w, int32(k%40))
				}
			}
			return w
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab Table
			tab.Reset(2)
			eq := func(a, b int32) bool { return tt.names[a] == tt.names[b] }
			for k, n := range tt.names {
				if got := tab.Insert(HashString(n), int32(k), eq); got != tt.want[k] {
					t.Errorf("Insert(%q, %d) = %d, want %d", n, k, got, tt.want[k])
				}
			}
			for k, n := range tt.names {
				want := int32(k)
				if tt.want[k] >= 0 {
					want = tt.want[k]
				}
				if got := tab.Find(HashBytes([]byte(n)), func(id int32) bool { return tt.names[id] == n }); got != want {
					t.Errorf("Find(%q) = %d, want %d", n, got, want)
				}
			}
			if got := tab.Find(HashString("absent"), func(id int32) bool { return tt.names[id] == "absent" }); got != -1 {
				t.Errorf("Find(absent) = %d, want -1", got)
			}
		})
	}
}

// TestScratch_Duplicates checks Duplicates against a map on key sets of
// one bucket and of many (more than 2048 keys), with and without repeated
// names, reusing one Scratch.
func TestScratch_Duplicates(t *testing.T) {
	tests := []struct {
		name   string
		n, mod int // names k % mod for k < n (mod == 0: all distinct)
	}{
		{"empty", 0, 0},
		{"one", 1, 0},
		{"small unique", 10, 0},
		{"small repeated", 10, 3},
		{"many buckets unique", 50_000, 0},
		{"many buckets repeated", 50_000, 17_000},
	}
	var s Scratch
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := make([]string, tt.n)
			keys := make([]uint64, tt.n)
			for k := range names {
				v := k
				if tt.mod > 0 {
					v = k % tt.mod
				}
				names[k] = fmt.Sprint("inst_", v)
				keys[k] = Key(HashString(names[k]), int32(k))
			}
			got := s.Duplicates(keys, func(a, b int32) bool { return names[a] == names[b] }, nil)
			first := map[string]int32{}
			want := map[int32]int32{}
			for k, n := range names {
				if f, ok := first[n]; ok {
					want[int32(k)] = f
				} else {
					first[n] = int32(k)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d duplicates, want %d", len(got), len(want))
			}
			for _, d := range got {
				if w, ok := want[d[0]]; !ok || w != d[1] {
					t.Errorf("duplicate {%d, %d}: want {%d, %d} (ok %v)", d[0], d[1], d[0], w, ok)
				}
			}
		})
	}
}
