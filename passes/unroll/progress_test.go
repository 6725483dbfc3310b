package unroll

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// TestFullUnroll_Progress: FullUnroll reports its clones to the progress
// hook, never more done than the total, reaching the clone count.
func TestFullUnroll_Progress(t *testing.T) {
	const n = 200_000
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	o := b.Output("o", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	b.Load("ld", s.All(), x.All())
	b.Loop("i", 0, n, 1, func(affine.Expr) { b.Save("st", o.All(), s.All()) })
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	var calls int
	var last, lastTotal int64
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2, Progress: func(done, total int64) {
		calls++
		if done < last || done > total {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last, lastTotal = done, total
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != n/65536 || lastTotal != n {
		t.Errorf("%d progress calls, last total %d; want %d calls of total %d", calls, lastTotal, n/65536, n)
	}
}
