package interp

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestLocalGather_Semantics: the NKI reference's NumPy semantics on two
// GpSimd cores (32 partitions): each core's indices, flattened
// partition-first and cut to num_valid_indices, index every partition of
// the core; num_elem_per_idx contiguous elements per index.
func TestLocalGather_Semantics(t *testing.T) {
	const P, F, Fi = 32, 8, 2
	// src[p, j] = 100p + j
	src := seq(P*F, func(i int) float64 { return float64(100*(i/F) + i%F) })
	// index[p, j]: core 0 uses offsets 0..; core 1 others. Flattened
	// partition-first: idx[k] = index[16c + k%16, k/16].
	index := make([]float64, P*Fi)
	for p := 0; p < P; p++ {
		for j := 0; j < Fi; j++ {
			k := j*16 + p%16
			index[p*Fi+j] = float64((k*2 + 3*(p/16)) % 7)
		}
	}
	cases := []struct {
		name string
		E, V int64
	}{
		{"one element per index, every index", 1, 32},
		{"two elements per index, five valid indices", 2, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ioModule(t, "trn2", []tio{{"s", bir.Float32, shp(P, F)}, {"i", bir.Uint16, shp(P, Fi)}}, []tio{{"z", bir.Float32, shp(P, c.V*c.E)}},
				func(b *bir.Builder, sb map[string]bir.T) {
					b.LocalGather("lg", sb["z"].All(), sb["s"].All(), sb["i"].All(), c.E, c.V)
				})
			out := mustRun(t, m, map[string]*Tensor{"s": f32Tensor("s", shp(P, F), src...), "i": tensorOf("i", bir.Uint16, shp(P, Fi), index...)}, Options{})
			var want []float64
			for p := 0; p < P; p++ {
				core := p / 16
				for v := 0; v < int(c.V); v++ {
					at := (v*2 + 3*core) % 7 // index[16c + v%16, v/16] by construction
					for e := 0; e < int(c.E); e++ {
						want = append(want, float64(100*p+at+e))
					}
				}
			}
			wantValues(t, "gathered", values(out["z"]), want...)
		})
	}
}

// TestNGather_Semantics: per-partition gather over the flattened free
// elements, repeated and reordered indices, raw bf16 bits.
func TestNGather_Semantics(t *testing.T) {
	m := ioModule(t, "trn2", []tio{{"d", bir.BFloat16, shp(2, 2, 3)}, {"i", bir.Uint32, shp(2, 4)}}, []tio{{"z", bir.BFloat16, shp(2, 4)}},
		func(b *bir.Builder, sb map[string]bir.T) { b.NGather("g", sb["z"].All(), sb["d"].All(), sb["i"].All()) })
	out := mustRun(t, m, map[string]*Tensor{
		"d": tensorOf("d", bir.BFloat16, shp(2, 2, 3), 0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15),
		"i": tensorOf("i", bir.Uint32, shp(2, 4), 5, 0, 0, 3, 1, 1, 4, 2),
	}, Options{})
	wantValues(t, "gathered", values(out["z"]), 5, 0, 0, 3, 11, 11, 14, 12)
}

// TestStreamShuffle_Semantics: a mask applied per 32-partition quadrant,
// 255 keeping the destination row, and the in-place form (dst == src).
func TestStreamShuffle_Semantics(t *testing.T) {
	const P, F = 64, 2
	mask := make([]int64, 32)
	for i := range mask {
		mask[i] = int64(31 - i) // reverse each quadrant
	}
	mask[5] = 255
	x := seq(P*F, func(i int) float64 { return float64(i) })
	want := func(keep func(r int) float64) []float64 {
		var w []float64
		for r := 0; r < P; r++ {
			for j := 0; j < F; j++ {
				if r%32 == 5 {
					w = append(w, keep(r*F+j))
					continue
				}
				w = append(w, float64((32*(r/32)+31-r%32)*F+j))
			}
		}
		return w
	}
	m := ioModule(t, "trn2", []tio{{"x", bir.Float32, shp(P, F)}, {"y", bir.Float32, shp(P, F)}}, []tio{{"z", bir.Float32, shp(P, F)}, {"w", bir.Float32, shp(P, F)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorCopy("keep", bir.EngDVE, sb["z"].All(), sb["y"].All())
			b.StreamShuffle("sh", sb["z"].All(), sb["x"].All(), mask)
			b.TensorCopy("cp", bir.EngDVE, sb["w"].All(), sb["x"].All())
			b.StreamShuffle("inplace", sb["w"].All(), sb["w"].All(), mask)
		})
	y := seq(P*F, func(i int) float64 { return -float64(i) - 1 })
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", shp(P, F), x...), "y": f32Tensor("y", shp(P, F), y...)}, Options{})
	wantValues(t, "shuffled", values(out["z"]), want(func(k int) float64 { return y[k] })...)
	wantValues(t, "shuffled in place", values(out["w"]), want(func(k int) float64 { return x[k] })...)
}

// TestSequenceBounds_Semantics: the reference's NumPy equivalent on runs,
// padding (id 0) and a single-element segment, for int32 and float32.
func TestSequenceBounds_Semantics(t *testing.T) {
	ids := []float64{1, 1, 0, 2, 2, 2, 3, 0}
	// starts: 0 0 8 3 3 3 6 8; ends: 2 2 -1 6 6 6 7 -1
	want := []float64{0, 0, 8, 3, 3, 3, 6, 8, 2, 2, -1, 6, 6, 6, 7, -1}
	for _, dt := range []bir.Dtype{bir.Int32, bir.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			m := ioModule(t, "trn2", []tio{{"s", dt, shp(1, 8)}}, []tio{{"z", dt, shp(1, 2, 8)}},
				func(b *bir.Builder, sb map[string]bir.T) { b.SequenceBounds("sb", sb["z"].All(), sb["s"].All()) })
			out := mustRun(t, m, map[string]*Tensor{"s": tensorOf("s", dt, shp(1, 8), ids...)}, Options{})
			wantValues(t, "bounds", values(out["z"]), want...)
		})
	}
	// A segment that reaches the end: its end is n.
	m := ioModule(t, "trn2", []tio{{"s", bir.Int32, shp(1, 3)}}, []tio{{"z", bir.Int32, shp(1, 2, 3)}},
		func(b *bir.Builder, sb map[string]bir.T) { b.SequenceBounds("sb", sb["z"].All(), sb["s"].All()) })
	out := mustRun(t, m, map[string]*Tensor{"s": tensorOf("s", bir.Int32, shp(1, 3), 4, 5, 5)}, Options{})
	wantValues(t, "bounds to the end", values(out["z"]), 0, 1, 1, 1, 3, 3)
}

// TestNonzeroWithCount_Semantics: the reference's example row (T = 8,
// index_offset 16), only rows 0 and 16 written, NaN nonzero and -0 zero.
func TestNonzeroWithCount_Semantics(t *testing.T) {
	const P, T = 32, 8
	src := make([]float64, P*T)
	copy(src, []float64{0, 1, 1, 0, 0, 1, 0, 0})
	copy(src[16*T:], []float64{math.NaN(), negZero, 0, 0, 0, 0, 0, 2.5})
	for k := T; k < 16*T; k++ {
		src[k] = 7 // rows 1..15: not read
	}
	m := ioModule(t, "trn2", []tio{{"s", bir.Float32, shp(P, T)}, {"init", bir.Int32, shp(P, T+1)}}, []tio{{"z", bir.Int32, shp(P, T+1)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorCopy("fill", bir.EngDVE, sb["z"].All(), sb["init"].All())
			b.NonzeroWithCount("nz", sb["z"].All(), sb["s"].All(), 16, -1)
		})
	init := seq(P*(T+1), func(i int) float64 { return 1000 })
	out := mustRun(t, m, map[string]*Tensor{"s": f32Tensor("s", shp(P, T), src...), "init": tensorOf("init", bir.Int32, shp(P, T+1), init...)}, Options{})
	got := values(out["z"])
	wantValues(t, "row 0", got[:T+1], 17, 18, 21, -1, -1, -1, -1, -1, 3)
	wantValues(t, "row 1 untouched", got[T+1:2*(T+1)], 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)
	wantValues(t, "row 16", got[16*(T+1):17*(T+1)], 16, 23, -1, -1, -1, -1, -1, -1, 2)
}

// TestGather_Errors: out-of-bounds indices, mismatched shapes and
// dtypes, malformed masks.
func TestGather_Errors(t *testing.T) {
	cases := []struct {
		name string
		ins  []tio
		outs []tio
		in   map[string]*Tensor
		body func(b *bir.Builder, sb map[string]bir.T)
		kind ErrorKind
		inst string
		frag []string
	}{
		{name: "local_gather index past the row",
			ins: []tio{{"s", bir.Float32, shp(16, 4)}, {"i", bir.Uint16, shp(16, 1)}}, outs: []tio{{"z", bir.Float32, shp(16, 2)}},
			in: map[string]*Tensor{"s": f32Tensor("s", shp(16, 4), seq(64, func(int) float64 { return 1 })...), "i": tensorOf("i", bir.Uint16, shp(16, 1), seq(16, func(i int) float64 { return float64(i % 4) })...)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				b.LocalGather("lg", sb["z"].All(), sb["s"].All(), sb["i"].All(), 2, 2)
			}, kind: ErrCountMismatch, inst: "lg", frag: []string{"num_elem_per_idx 2"}},
		{name: "local_gather out of bounds",
			ins: []tio{{"s", bir.Float32, shp(16, 4)}, {"i", bir.Uint16, shp(16, 1)}}, outs: []tio{{"z", bir.Float32, shp(16, 4)}},
			in: map[string]*Tensor{"s": f32Tensor("s", shp(16, 4), seq(64, func(int) float64 { return 1 })...), "i": tensorOf("i", bir.Uint16, shp(16, 1), seq(16, func(i int) float64 { return 3 })...)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				b.LocalGather("lg", sb["z"].All(), sb["s"].All(), sb["i"].All(), 2, 2)
			}, kind: ErrDomain, inst: "lg", frag: []string{"out of bounds"}},
		{name: "local_gather on 8 partitions",
			ins: []tio{{"s", bir.Float32, shp(8, 4)}, {"i", bir.Uint16, shp(8, 1)}}, outs: []tio{{"z", bir.Float32, shp(8, 1)}},
			in: map[string]*Tensor{"s": f32Tensor("s", shp(8, 4), seq(32, func(int) float64 { return 1 })...), "i": tensorOf("i", bir.Uint16, shp(8, 1), seq(8, func(int) float64 { return 0 })...)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				b.LocalGather("lg8", sb["z"].All(), sb["s"].All(), sb["i"].All(), 1, 1)
			}, kind: ErrCountMismatch, inst: "lg8", frag: []string{"multiple of 16"}},
		{name: "nc_n_gather index out of range",
			ins: []tio{{"d", bir.Float32, shp(1, 3)}, {"i", bir.Uint32, shp(1, 2)}}, outs: []tio{{"z", bir.Float32, shp(1, 2)}},
			in:   map[string]*Tensor{"d": f32Tensor("d", shp(1, 3), 1, 2, 3), "i": tensorOf("i", bir.Uint32, shp(1, 2), 0, 3)},
			body: func(b *bir.Builder, sb map[string]bir.T) { b.NGather("g", sb["z"].All(), sb["d"].All(), sb["i"].All()) },
			kind: ErrDomain, inst: "g", frag: []string{"index 3", "[0, 3)"}},
		{name: "nc_n_gather dtype change",
			ins: []tio{{"d", bir.Float32, shp(1, 3)}, {"i", bir.Uint32, shp(1, 2)}}, outs: []tio{{"z", bir.BFloat16, shp(1, 2)}},
			in:   map[string]*Tensor{"d": f32Tensor("d", shp(1, 3), 1, 2, 3), "i": tensorOf("i", bir.Uint32, shp(1, 2), 0, 1)},
			body: func(b *bir.Builder, sb map[string]bir.T) { b.NGather("g", sb["z"].All(), sb["d"].All(), sb["i"].All()) },
			kind: ErrOperand, inst: "g", frag: []string{"copies raw"}},
		{name: "stream shuffle from a row the source lacks",
			ins: []tio{{"x", bir.Float32, shp(4, 1)}}, outs: []tio{{"z", bir.Float32, shp(8, 1)}},
			in: map[string]*Tensor{"x": f32Tensor("x", shp(4, 1), 1, 2, 3, 4)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				mask := make([]int64, 32)
				for i := range mask {
					mask[i] = int64(i)
				}
				b.StreamShuffle("sh", sb["z"].All(), sb["x"].All(), mask)
			}, kind: ErrCountMismatch, inst: "sh", frag: []string{"source row 4"}},
		{name: "stream shuffle mask entry 40",
			ins: []tio{{"x", bir.Float32, shp(4, 1)}}, outs: []tio{{"z", bir.Float32, shp(4, 1)}},
			in: map[string]*Tensor{"x": f32Tensor("x", shp(4, 1), 1, 2, 3, 4)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				mask := make([]int64, 32)
				mask[3] = 40
				b.StreamShuffle("sh", sb["z"].All(), sb["x"].All(), mask)
			}, kind: ErrOperand, inst: "sh", frag: []string{"entry 3", "255"}},
		{name: "sequence_bounds negative id",
			ins: []tio{{"s", bir.Int32, shp(1, 2)}}, outs: []tio{{"z", bir.Int32, shp(1, 4)}},
			in:   map[string]*Tensor{"s": tensorOf("s", bir.Int32, shp(1, 2), 1, -2)},
			body: func(b *bir.Builder, sb map[string]bir.T) { b.SequenceBounds("sq", sb["z"].All(), sb["s"].All()) },
			kind: ErrDomain, inst: "sq", frag: []string{"non-negative"}},
		{name: "nonzero_with_count without the count column",
			ins: []tio{{"s", bir.Float32, shp(16, 2)}}, outs: []tio{{"z", bir.Int32, shp(16, 2)}},
			in: map[string]*Tensor{"s": f32Tensor("s", shp(16, 2), seq(32, func(int) float64 { return 1 })...)},
			body: func(b *bir.Builder, sb map[string]bir.T) {
				b.NonzeroWithCount("nz", sb["z"].All(), sb["s"].All(), 0, -1)
			},
			kind: ErrCountMismatch, inst: "nz", frag: []string{"one more element"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ioModule(t, "trn2", c.ins, c.outs, c.body)
			_, err := Run(m, c.in, Options{AllowUninitReads: true})
			wantErr(t, err, c.kind, c.inst, c.frag...)
		})
	}
}
