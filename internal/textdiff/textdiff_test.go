package textdiff

import (
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// apply checks the diff's consistency: its Same+Removed lines are a and
// its Same+Added lines are b.
func apply(ls []Line) (a, b []string) {
	for _, l := range ls {
		if l.Op != Added {
			a = append(a, l.Text)
		}
		if l.Op != Removed {
			b = append(b, l.Text)
		}
	}
	return
}

func count(ls []Line) (same, edits int) {
	for _, l := range ls {
		if l.Op == Same {
			same++
		} else {
			edits++
		}
	}
	return
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		edits int
		want  string
	}{
		{"x\ny\nz", "x\ny\nz", 0, "  ...\n"},
		{"x\ny\nz", "x\nY\nz", 2, "  x\n- y\n+ Y\n  z\n"},
		{"", "a\nb", 2, "+ a\n+ b\n"},
		{"a\nb", "", 2, "- a\n- b\n"},
		{"a\nb\nc\nd", "a\nc\nd\ne", 2, "  a\n- b\n  c\n  d\n+ e\n"},
		{"k\na\nb\nk", "k\nb\na\nk", 2, ""},
	} {
		ls := Lines(Split(tc.a), Split(tc.b))
		a, b := apply(ls)
		if !slices.Equal(a, Split(tc.a)) || !slices.Equal(b, Split(tc.b)) {
			t.Errorf("%q -> %q: the diff does not rebuild both texts: %v", tc.a, tc.b, ls)
		}
		if _, e := count(ls); e != tc.edits {
			t.Errorf("%q -> %q: %d edits, want %d (minimal)", tc.a, tc.b, e, tc.edits)
		}
		if tc.want != "" {
			if got := Unified(ls, 10); got != tc.want {
				t.Errorf("%q -> %q:\n%s\nwant\n%s", tc.a, tc.b, got, tc.want)
			}
		}
	}
}

// TestLines_Random: random edits of random texts rebuild both sides and
// never use more edits than were made.
func TestLines_Random(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		n := r.Intn(60)
		a := make([]string, n)
		for i := range a {
			a[i] = strconv.Itoa(r.Intn(8))
		}
		b := slices.Clone(a)
		made := 0
		for e := r.Intn(10); e > 0; e-- {
			switch {
			case len(b) > 0 && r.Intn(2) == 0:
				i := r.Intn(len(b))
				b = slices.Delete(b, i, i+1)
			default:
				b = slices.Insert(b, r.Intn(len(b)+1), "n"+strconv.Itoa(r.Intn(3)))
			}
			made++
		}
		ls := Lines(a, b)
		ga, gb := apply(ls)
		if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
			t.Fatalf("iteration %d: the diff does not rebuild the texts", iter)
		}
		if _, e := count(ls); e > made {
			t.Fatalf("iteration %d: %d edits for %d changes", iter, e, made)
		}
	}
}

// TestLines_Bounded: past MaxEdits the middle is one replaced region,
// still consistent.
func TestLines_Bounded(t *testing.T) {
	var a, b []string
	for i := 0; i < 3*MaxEdits; i++ {
		a = append(a, "a"+strconv.Itoa(i))
		b = append(b, "b"+strconv.Itoa(i))
	}
	ls := Lines(a, b)
	ga, gb := apply(ls)
	if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
		t.Fatal("the bounded diff does not rebuild the texts")
	}
	if u := Unified(ls, 1); !strings.HasPrefix(u, "- a0\n") {
		t.Errorf("unexpected start %q", u[:20])
	}
}

func BenchmarkLines10kFewEdits(b *testing.B) {
	var x []string
	for i := 0; i < 10000; i++ {
		x = append(x, "line "+strconv.Itoa(i))
	}
	y := slices.Clone(x)
	for i := 0; i < len(y); i += 500 {
		y[i] = "changed"
	}
	for range b.N {
		Lines(x, y)
	}
}
