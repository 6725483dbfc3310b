package sbsize_test

// The randomized footprint test (issue 15): generated oversized modules
// through the four footprint passes. Whenever sb_size_legalization leaves
// a tensor to vn_splitter or shrink_ml, that pass must fix it: every module
// either verifies SB-legal after shrink_ml with outputs bit-identical to
// the input module's, or fails in sb_size_legalization with an
// UnfittableError naming the tensor and why. Any other failure (a cut
// FullUnroll refuses, shrink_ml's IllegalError) is a prediction that
// disagreed with the pass it predicted.
//
// The machine is trn2 with a 4 KiB SBUF per partition (module options
// arch.sbuf-bytes-per-partition, arch.sbuf-carveout-bytes), so oversized
// tensors stay small for the interpreter. NARWHAL_FOOTPRINT_MODULES sets
// the number of modules (default 150).

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

const randomBudget = 4096 // usable SBUF bytes per partition of the generated modules

// randomModule builds the module of seed: one SB tensor w of random
// partitions and free size (fp32 or bf16, around the budget), accessed in
// random groups of partitions and element windows, each group loaded from
// x, maybe changed in place (TensorScalar), copied (TensorCopy, DMACopy
// Copy or, for bf16, a 2-D DMACopy Transpose) or read as another element
// size, and saved to z; some groups are walked in a loop of symbolic
// accesses (sb_size_legalization forces it).
func randomModule(seed int64) (*bir.Module, string, error) {
	r := rand.New(rand.NewSource(seed))
	m := bir.NewModule("trn2")
	m.Config.Options = map[string]string{"arch.sbuf-bytes-per-partition": strconv.Itoa(randomBudget), "arch.sbuf-carveout-bytes": "0"}
	b := bir.NewBuilder(m, "main")
	dt := bir.Float32
	if r.Intn(3) == 0 {
		dt = bir.BFloat16
	}
	ds := dt.Size()
	parts := []int64{64, 100, 128, 128, 128, 192, 255, 256}[r.Intn(8)]
	budgetElems := randomBudget / ds
	free := budgetElems/2 + r.Int63n(budgetElems*2)
	if r.Intn(3) == 0 {
		free = budgetElems + 1 + r.Int63n(64) // just over
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "w %s [%d, %d]", dt, parts, free)
	x := b.Input("x", dt, parts, free)
	z := b.Output("z", dt, parts, free)
	w := b.SBUF("w", dt, parts, free)
	// Some modules keep every window inside one zone of half the budget
	// (so shrink_ml can trim the tensor), the others spread them.
	zone0, zone := int64(0), free
	if r.Intn(3) == 0 {
		zone = budgetElems / 2
		zone0 = r.Int63n(free - zone + 1)
		fmt.Fprintf(&desc, " zone e%d+%d", zone0, zone)
	}
	ngroups := 1 + r.Intn(20)
	for g := 0; g < ngroups; g++ {
		p0 := r.Int63n(parts)
		np := 1 + r.Int63n(min(parts-p0, 1+r.Int63n(parts)))
		f0 := zone0 + r.Int63n(zone)
		nf := 1 + r.Int63n(min(zone0+zone-f0, 1+r.Int63n(budgetElems/2)))
		if r.Intn(8) == 0 && zone == free { // a long window
			f0, nf = 0, free-r.Int63n(free/2+1)
		}
		fmt.Fprintf(&desc, "; g%d p%d+%d e%d+%d", g, p0, np, f0, nf)
		name := func(s string) string { return fmt.Sprintf("%s_%d", s, g) }
		tile := func(t bir.T) bir.Operand { return t.Tile(p0, np, f0, nf) }
		// The auxiliary tiles stay small: the start of the group's window.
		anf, anp := min(nf, budgetElems/2), min(np, 128)
		head := func(t bir.T) bir.Operand { return t.Tile(p0, anp, f0, anf) }
		if r.Intn(4) == 0 && np > 1 {
			// A loop over the group's rows, symbolic accesses.
			fmt.Fprintf(&desc, " loop")
			zero := affine.Const(0)
			row := [][2]int64{{free, 1}, {1, nf}}
			b.Loop(name("rows"), 0, np, 1, func(i affine.Expr) {
				off := affine.Add(affine.Const(p0*free+f0), affine.Scale(i, free))
				b.Load(name("ldl"), w.Sym(zero, off, row...), x.Sym(zero, off, row...))
				b.Save(name("stl"), z.Sym(zero, off, row...), w.Sym(zero, off, row...))
			})
			continue
		}
		b.Load(name("ld"), tile(w), tile(x))
		switch r.Intn(6) {
		case 0:
			fmt.Fprintf(&desc, " scale")
			b.TensorScalar(name("sc"), bir.EngDVE, tile(w), tile(w), "mult", 2, "bypass", 0)
		case 1:
			fmt.Fprintf(&desc, " copy")
			u := b.SBUF(name("u"), dt, anp, anf)
			b.TensorCopy(name("cp"), bir.EngDVE, u.All(), head(w))
			b.TensorCopy(name("back"), bir.EngDVE, head(w), u.All())
		case 2:
			fmt.Fprintf(&desc, " dmacopy")
			u := b.SBUF(name("u"), dt, anp, anf)
			b.DMACopy(name("dc"), u.All(), head(w))
		case 3:
			if tn := min(anf, 128); dt == bir.BFloat16 && np <= 128 {
				fmt.Fprintf(&desc, " transpose")
				u := b.SBUF(name("tr"), dt, tn, np)
				b.Inst(bir.OpDMACopy, name("tp"), bir.EngUnassigned, []bir.Operand{w.Tile(p0, np, f0, tn)}, []bir.Operand{u.All()}, bir.Attrs("mode", "Transpose"))
			}
		case 4:
			if dt == bir.Float32 && r.Intn(6) == 0 {
				fmt.Fprintf(&desc, " recast")
				u := b.SBUF(name("u"), bir.BFloat16, anp, 2*anf)
				b.TensorCopy(name("rc"), bir.EngDVE, u.All(), bir.PhysAP(w.Loc, bir.BFloat16, 2*(p0*free+f0), b.Pat([2]int64{2 * free, anp}, [2]int64{1, 2 * anf})))
			}
		}
		b.Save(name("st"), tile(z), tile(w))
	}
	if err := b.Err(); err != nil {
		return nil, "", err
	}
	return m, desc.String(), nil
}

func TestFootprintPipeline_Random(t *testing.T) {
	n := 150
	if s := os.Getenv("NARWHAL_FOOTPRINT_MODULES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("NARWHAL_FOOTPRINT_MODULES=%q: want a positive count", s)
		}
		n = v
	}
	tbl := footprintTable(unroll.LevelAuto)
	// vn_splitter's knobs vary by seed: the plan must read them.
	knobs := []map[string]string{nil, nil, {"perSplitLimit": "2"}, {"vn_limit": "6"}, {"ratio": "1.5"}, {"splitSB": "false"}, {"skip": "w"}}
	outcome := map[string]int{}
	for seed := int64(1); seed <= int64(n); seed++ {
		m, desc, err := randomModule(seed)
		if err != nil {
			t.Fatalf("seed %d: building: %v", seed, err)
		}
		cfg := pass.Config{Passes: tbl.Names(), VerifyEach: true}
		if k := knobs[seed%int64(len(knobs))]; k != nil {
			cfg.Options = map[string]map[string]string{"vn_splitter": k}
			desc += fmt.Sprintf("; vn_splitter %v", k)
		}
		run := func(m *bir.Module, rep **pass.Report) error {
			r, err := tbl.Run(m, cfg)
			*rep = r
			return err
		}
		var rep *pass.Report
		err = run(m, &rep)
		if err != nil {
			var ue *sbsize.UnfittableError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "pass sb_size_legalization:") || !strings.Contains(err.Error(), "tensor w_set:") {
				t.Errorf("seed %d (%s): %v", seed, desc, err)
				continue
			}
			outcome["unfittable"]++
			continue
		}
		sb := rep.Result("sb_size_legalization")
		kind := "legal"
		switch {
		case sb.Counter(sbsize.CounterTotalSplit) > 0:
			kind = "cut"
		case sb.Counter(sbsize.CounterLeftToVN) > 0:
			kind = "vn_splitter"
		case sb.Counter(sbsize.CounterLeftToShrink) > 0:
			kind = "shrink_ml"
		}
		outcome[kind]++
		// Translation validation on a fresh copy: verified before, SB-legal
		// after, outputs bit-identical.
		m2, _, _ := randomModule(seed)
		ok := t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			passtest.Check(t, m2, func(m *bir.Module) error { return run(m, &rep) }, passtest.Stage(verify.StageSBLegal|verify.StageUnrolled), passtest.Seed(seed))
		})
		if !ok {
			t.Logf("seed %d: %s", seed, desc)
		}
	}
	t.Logf("%d modules: %v", n, outcome)
	if outcome["cut"] == 0 || outcome["vn_splitter"] == 0 || outcome["shrink_ml"] == 0 || outcome["unfittable"] == 0 {
		t.Errorf("the generator missed an outcome: %v", outcome)
	}
}
