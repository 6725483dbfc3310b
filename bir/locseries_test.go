package bir

import (
	"fmt"
	"strconv"
	"testing"
)

// seriesFixture returns a function with a block tensor "x" (template
// location "x", block 0) and the given extra locations on a second tensor.
func seriesFixture(t *testing.T, existing []string) (*Function, TensorID) {
	t.Helper()
	m := NewModule("trn2")
	f, err := m.NewFunction("main")
	if err != nil {
		t.Fatal(err)
	}
	x, err := f.AddTensor(Tensor{Name: "x", Kind: KindInternal, IsBlock: true, NBlocks: 4})
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.AddTensor(Tensor{Name: "other", Kind: KindInternal})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range existing {
		if _, err := f.AddLoc(other, MemLoc{Name: name, Type: MemSB, Partitions: 1, Bytes: 4}); err != nil {
			t.Fatal(err)
		}
	}
	return f, x
}

// TestFunction_AddLocSeries compares AddLocSeries with the loop it
// replaces (UniqueLocName + AddLoc per block) on short and long series,
// with and without existing names that collide, and checks the name table
// (rebuilt on demand after a long series) finds every location.
func TestFunction_AddLocSeries(t *testing.T) {
	many := func(n int, f func(k int) string) []string {
		out := make([]string, n)
		for k := range out {
			out[k] = f(k)
		}
		return out
	}
	tests := []struct {
		name     string
		existing []string
		n        int64
	}{
		{"short, empty", nil, 5},
		{"short, collisions", []string{"x_sub1", "x_sub1_1", "x_sub3"}, 5},
		{"long, empty (scan path)", nil, 3000},
		{"long, collisions (scan path)", []string{"x_sub7", "x_sub2999", "x_sub2999_1", "x_sub07", "x_sub-1", "x_sub3000"}, 3000},
		{"long into a large function (probe path)", many(20000, func(k int) string { return "y" + strconv.Itoa(k) }), 1500},
		{"long into a large function, collisions (probe path)", append(many(20000, func(k int) string { return "z" + strconv.Itoa(k) }), "x_sub0", "x_sub1499"), 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := MemLoc{Type: MemSB, Partitions: 128, Bytes: 256, Addr: 64, RawDims: []int64{128, 256}}
			got, x := seriesFixture(t, tt.existing)
			first, err := got.AddLocSeries(x, tmpl, "x_sub", tt.n)
			if err != nil {
				t.Fatal(err)
			}
			want, wx := seriesFixture(t, tt.existing)
			for b := int64(0); b < tt.n; b++ {
				l := tmpl
				l.Name = want.UniqueLocName("x_sub" + strconv.FormatInt(b, 10))
				l.TensorIdx = b
				l.RawDims = append([]int64(nil), tmpl.RawDims...)
				if _, err := want.AddLoc(wx, l); err != nil {
					t.Fatal(err)
				}
			}
			if int(first) != len(tt.existing) {
				t.Errorf("first id %d, want %d", first, len(tt.existing))
			}
			if got.NumLocs() != want.NumLocs() {
				t.Fatalf("%d locations, want %d", got.NumLocs(), want.NumLocs())
			}
			for l := LocID(0); int(l) < got.NumLocs(); l++ {
				g, w := got.Loc(l), want.Loc(l)
				if fmt.Sprint(*g) != fmt.Sprint(*w) {
					t.Fatalf("location %d = %+v, want %+v", l, *g, *w)
				}
				if id, ok := got.LocByName(g.Name); !ok || id != l {
					t.Fatalf("LocByName(%q) = %d, %v; want %d", g.Name, id, ok, l)
				}
			}
			if &got.Loc(first).RawDims[0] == &got.Loc(first + 1).RawDims[0] {
				t.Error("two locations share one RawDims array")
			}
			if fmt.Sprint(got.Tensor(x).Locs) != fmt.Sprint(want.Tensor(wx).Locs) {
				t.Errorf("tensor locations differ")
			}
			if errs := got.CheckTables(AllTables); len(errs) != 0 {
				t.Errorf("CheckTables: %v", errs)
			}
		})
	}
}

// TestFunction_AddLocSeriesThenMutate: after a long series left the name
// table unbuilt, AddLoc, RenameLoc and RemoveLoc keep names unique and the
// table exact.
func TestFunction_AddLocSeriesThenMutate(t *testing.T) {
	f, x := seriesFixture(t, nil)
	if _, err := f.AddLocSeries(x, MemLoc{Type: MemSB, Partitions: 1, Bytes: 4}, "x_sub", 2000); err != nil {
		t.Fatal(err)
	}
	if f.locByName != nil {
		t.Fatal("a long series into an empty function kept probing the name table")
	}
	if _, err := f.AddLoc(x, MemLoc{Name: "x_sub5", Type: MemSB}); err == nil {
		t.Error("AddLoc accepted a duplicate of a series name")
	}
	l, _ := f.LocByName("x_sub10")
	f.RemoveLoc(l)
	if _, ok := f.LocByName("x_sub10"); ok {
		t.Error("a removed location is still found")
	}
	l, _ = f.LocByName("x_sub11")
	if err := f.RenameLoc(l, "renamed"); err != nil {
		t.Fatal(err)
	}
	if id, ok := f.LocByName("renamed"); !ok || id != l {
		t.Errorf("LocByName(renamed) = %d, %v", id, ok)
	}
	if errs := f.CheckTables(AllTables); len(errs) != 0 {
		t.Errorf("CheckTables: %v", errs)
	}
	if _, err := f.AddLocSeries(TensorID(99), MemLoc{}, "p", 3); err == nil {
		t.Error("AddLocSeries accepted a missing tensor")
	}
}

func TestSeriesIndex(t *testing.T) {
	tests := []struct {
		name string
		k    int64
		ok   bool
	}{
		{"x_sub0", 0, true}, {"x_sub12", 12, true}, {"x_sub012", 0, false}, {"x_sub", 0, false},
		{"x_sub+1", 0, false}, {"x_sub1_1", 0, false}, {"y_sub1", 0, false}, {"x_sub9999999999999999999", 0, false},
	}
	for _, tt := range tests {
		k, ok := seriesIndex(tt.name, "x_sub")
		if ok != tt.ok || (ok && k != tt.k) {
			t.Errorf("seriesIndex(%q) = %d, %v; want %d, %v", tt.name, k, ok, tt.k, tt.ok)
		}
	}
}

func TestSeriesDigits(t *testing.T) {
	for _, n := range []int64{1, 9, 10, 11, 99, 100, 101, 12345} {
		want := 0
		for k := int64(0); k < n; k++ {
			want += len(strconv.FormatInt(k, 10))
		}
		if got := seriesDigits(n); got != want {
			t.Errorf("seriesDigits(%d) = %d, want %d", n, got, want)
		}
	}
}
