package dma

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/verify"
)

// genDMA returns a module whose "main" holds n DMA instructions in one
// block (a post-unroll straight line, like bir.GenStraightLine), in groups
// of eight:
//
//	0, 1  Load, partition-contiguous           (every pass leaves it alone)
//	2     Load, partition-strided (transposing) legalize_strided_dma rewrites it
//	3     DMACopy mode Copy
//	4     DMACopy CCE, 4 sources with scales   under MaxCceDmaSource
//	5     DMACopy CCE, 20 sources with scales  legalize_cce_dma splits it (3 pieces)
//	6     GenericIndirectLoad                   lower_generic_indirect lowers it
//	7     Save
//
// so each pass rewrites one instruction in eight. With work false the
// three rewrite candidates are replaced by instructions no pass changes
// (a contiguous Load, a 4-source CCE copy, an IndirectLoad-free Load), to
// measure the walk alone.
func genDMA(n int, work ...bool) *bir.Module {
	rewrite := len(work) == 0 || work[0]
	m := bir.NewModule("trn2")
	f, _ := m.NewFunction("main")
	blk := f.NewBlock("Block1", bir.NoInst)
	mk := func(name string, mt bir.MemoryType, kind bir.TensorKind, dt bir.Dtype, shape ...int64) bir.LocID {
		l, err := newScratch(f, name, mt, kind, dt, shape)
		if err != nil {
			panic(err)
		}
		return l
	}
	const tiles = 16
	x := mk("x", bir.MemInput, bir.KindInput, bir.Float32, 512, 512)
	tab := mk("table", bir.MemInput, bir.KindInput, bir.Float32, 1000, 64)
	out := mk("out", bir.MemOutput, bir.KindOutput, bir.Float32, 512, 512)
	idx := mk("idx", bir.MemSB, bir.KindInternal, bir.Int32, 128, 1)
	var sb [tiles]bir.LocID
	for k := range sb {
		sb[k] = mk("sb_"+strconv.Itoa(k), bir.MemSB, bir.KindInternal, bir.Float32, 128, 64)
	}
	p := func(pairs ...bir.APPair) bir.PatternID { return m.InternPattern(pairs) }
	dramTile := p(bir.APPair{Step: 512, Num: 128}, bir.APPair{Step: 1, Num: 64})
	strided := p(bir.APPair{Step: 1, Num: 128}, bir.APPair{Step: 512, Num: 64})
	sbTile := p(bir.APPair{Step: 64, Num: 128}, bir.APPair{Step: 1, Num: 64})
	gatherSrc := p(bir.APPair{Step: 0, Num: 128}, bir.APPair{Step: 1, Num: 64})
	idxAP := p(bir.APPair{Step: 1, Num: 128}, bir.APPair{Step: 1, Num: 1})
	scales := func(k int) bir.AttrID {
		v := make([]float64, k)
		for i := range v {
			v[i] = 1
		}
		return m.InternAttrs(bir.Attrs("mode", "CCE", "cce_op", "add", "constants", bir.Floats(v...)))
	}
	cce4, cce20 := scales(4), scales(20)
	copyAttrs := m.InternAttrs(bir.Attrs("mode", "Copy"))
	gatherAttrs := m.InternAttrs(bir.Attrs("indirect_dims", bir.Ints(0)))
	f.Reserve(n, 4*n)
	var name []byte
	var srcs [20]bir.Operand
	prefixes := [8]string{"ld_", "ld_", "ldt_", "cp_", "cce_", "cce_", "gather_", "st_"}
	for i := 0; i < n; i++ {
		g := i / 8
		off := int64(g%4) * 128 * 512
		t := sb[g%tiles]
		t2 := sb[(g+5)%tiles]
		name = strconv.AppendInt(append(name[:0], prefixes[i%8]...), int64(i), 10)
		sym := m.NewSymBytes(name)
		var id bir.InstID
		kind := i % 8
		if !rewrite && (kind == 2 || kind == 6) {
			kind = 0
		} else if !rewrite && kind == 5 {
			kind = 4
		}
		switch kind {
		case 0, 1:
			id = f.NewInstSym(bir.OpLoad, sym, bir.EngUnassigned, []bir.Operand{bir.PhysAP(x, bir.Float32, off, dramTile)}, []bir.Operand{bir.PhysAP(t, bir.Float32, 0, sbTile)}, 0)
		case 2:
			id = f.NewInstSym(bir.OpLoad, sym, bir.EngUnassigned, []bir.Operand{bir.PhysAP(x, bir.Float32, int64(g%4)*128, strided)}, []bir.Operand{bir.PhysAP(t, bir.Float32, 0, sbTile)}, 0)
		case 3:
			id = f.NewInstSym(bir.OpDMACopy, sym, bir.EngUnassigned, []bir.Operand{bir.PhysAP(t, bir.Float32, 0, sbTile)}, []bir.Operand{bir.PhysAP(t2, bir.Float32, 0, sbTile)}, copyAttrs)
		case 4, 5:
			k, attrs := 4, cce4
			if kind == 5 {
				k, attrs = 20, cce20
			}
			for s := 0; s < k; s++ {
				srcs[s] = bir.PhysAP(sb[(g+s)%tiles], bir.Float32, 0, sbTile)
			}
			id = f.NewInstSym(bir.OpDMACopy, sym, bir.EngUnassigned, srcs[:k], []bir.Operand{bir.PhysAP(t2, bir.Float32, 0, sbTile)}, attrs)
		case 6:
			id = f.NewInstSym(bir.OpGenericIndirectLoad, sym, bir.EngUnassigned, []bir.Operand{bir.PhysAP(tab, bir.Float32, 0, gatherSrc), bir.PhysAP(idx, bir.Int32, 0, idxAP)}, []bir.Operand{bir.PhysAP(t, bir.Float32, 0, sbTile)}, gatherAttrs)
		default:
			id = f.NewInstSym(bir.OpSave, sym, bir.EngUnassigned, []bir.Operand{bir.PhysAP(t, bir.Float32, 0, sbTile)}, []bir.Operand{bir.PhysAP(out, bir.Float32, off, dramTile)}, 0)
		}
		f.Append(blk, id)
	}
	return m
}

// BenchmarkPasses1M runs each pass over genDMA modules of 250k and 1M
// instructions (one in eight rewritten), and of 1M instructions with
// nothing to rewrite (the walk alone), and reports ns per instruction of
// the input, wall and CPU; equal figures at both sizes show linear time.
func BenchmarkPasses1M(b *testing.B) {
	a := trn2(b)
	runs := []struct {
		name string
		run  func(m *bir.Module) error
	}{
		{IndirectName, func(m *bir.Module) error { _, err := LowerGenericIndirect(m, Options{Arch: a}); return err }},
		{StridedName, func(m *bir.Module) error { _, err := LegalizeStridedDMA(m, Options{Arch: a}); return err }},
		{CCEName, func(m *bir.Module) error { _, err := LegalizeCCEDMA(m, Options{Arch: a}); return err }},
	}
	for _, r := range runs {
		for _, tc := range []struct {
			n    int
			work bool
		}{{250_000, true}, {1_000_000, true}, {1_000_000, false}} {
			n := tc.n
			label := fmt.Sprintf("%s/n=%d", r.name, n)
			if !tc.work {
				label += "/nothing-to-do"
			}
			b.Run(label, func(b *testing.B) {
				var total, cpu time.Duration
				cpuOK := true
				b.ReportAllocs()
				for k := 0; k < b.N; k++ {
					b.StopTimer()
					m := genDMA(n, tc.work)
					runtime.GC()
					b.StartTimer()
					t0 := time.Now()
					c0, ok := cputime.Now()
					if err := r.run(m); err != nil {
						b.Fatal(err)
					}
					c1, _ := cputime.Now()
					total += time.Since(t0)
					cpu += c1 - c0
					cpuOK = cpuOK && ok
				}
				b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(n), "ns/inst")
				if cpuOK {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/inst")
				}
			})
		}
	}
}

// The generator's module is valid and every pass leaves it valid and
// legal (a check of the benchmark input at a small size).
func TestGenDMA_Valid(t *testing.T) {
	m := genDMA(800)
	a := trn2(t)
	mustVerify(t, m, a, 0)
	if _, err := LowerGenericIndirect(m, Options{Arch: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := LegalizeStridedDMA(m, Options{Arch: a}); err != nil {
		t.Fatal(err)
	}
	st, err := LegalizeCCEDMA(m, Options{Arch: a})
	if err != nil {
		t.Fatal(err)
	}
	if st.Split != 100 || opCount(m, bir.OpTensorCopy) != 100 || opCount(m, bir.OpIndirectLoad) != 100 {
		t.Fatalf("stats %+v, %d copies, %d indirect loads: want 100 of each rewrite", st, opCount(m, bir.OpTensorCopy), opCount(m, bir.OpIndirectLoad))
	}
	mustVerify(t, m, a, verify.StageIndirectLowered|verify.StageCCELegal)
}
