package alloc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// prefix runs the default pipeline's passes that come before pass last,
// with FullUnroll at the given level, verifying after each. At levels 0
// and 1 a kernel the footprint passes cannot fit without unrolling is
// skipped (their error says why); at level 2 every kernel must get there.
func prefix(t testing.TB, m *bir.Module, level int, last string) *pass.Report {
	t.Helper()
	cfg := pass.Config{Passes: schedtest.Before(last), VerifyEach: true, Options: map[string]map[string]string{"full_unroll": {"unrollLevel": fmt.Sprint(level)}}}
	rep, err := pipeline.Table.Run(m, cfg)
	if err != nil && level < 2 && strings.Contains(err.Error(), "pass sb_size_legalization") {
		t.Skipf("the footprint passes do not fit this kernel at unroll level %d: %v", level, err)
	}
	if err != nil {
		t.Fatalf("pipeline up to %s (level %d): %v", last, level, err)
	}
	return rep
}

func lookup(t testing.TB, name string) *pass.Pass {
	t.Helper()
	p, ok := pipeline.Table.Lookup(name)
	if !ok {
		t.Fatalf("no pass %s", name)
	}
	return p
}

// openTensors counts the tensors with an OnChip location.
func openTensors(m *bir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		for t := 0; t < f.NumTensors(); t++ {
			ts := f.Tensor(bir.TensorID(t))
			for _, l := range ts.Locs {
				if !ts.Dead && f.Loc(l).Type == bir.MemOnChip {
					n++
					break
				}
			}
		}
	}
	return n
}

// TestInferPSumTensorPass_Kernels: translation validation of
// infer_psum_tensor on every built-in kernel as built (loops, templates);
// it acts on the kernels that declare OnChip tensors (matmul, attention,
// softmax) and leaves none behind.
func TestInferPSumTensorPass_Kernels(t *testing.T) {
	acted := map[string]bool{}
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		before := openTensors(m)
		passtest.CheckPass(t, m, lookup(t, "infer_psum_tensor"))
		if n := openTensors(m); n != 0 {
			t.Fatalf("%d OnChip tensors remain", n)
		}
		if before > 0 {
			acted[strings.Split(name, ":")[0]] = true
		}
	})
	for _, k := range []string{"matmul", "attention", "softmax"} {
		if !acted[k] {
			t.Errorf("kernel %s: infer_psum_tensor had no OnChip tensor to place", k)
		}
	}
}

// TestAllocPass_Kernels: translation validation of alloc on every
// built-in kernel at FullUnroll levels 0, 1 (loops remain: the stack
// discipline) and 2 (straight-line); the outputs are bit-identical
// (the interpreter executes allocated locations at their addresses in one
// shared SBUF and PSUM, so an overlap changes them) and the verifier's
// allocated stage, overlap rule included, holds after.
func TestAllocPass_Kernels(t *testing.T) {
	for _, level := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
				prefix(t, m, level, "alloc")
				passtest.CheckPass(t, m, lookup(t, "alloc"))
				placed := 0
				for _, f := range m.Funcs {
					for l := 0; l < f.NumLocs(); l++ {
						if lc := f.Loc(bir.LocID(l)); !lc.Dead && lc.Type.IsOnChip() && lc.Allocated {
							placed++
						}
					}
				}
				if placed == 0 {
					t.Fatalf("no on-chip location was allocated")
				}
			})
		})
	}
}

// TestAllocPass_LinearScan: the seed's allocator, selected by option,
// also gives a valid allocation on every kernel.
func TestAllocPass_LinearScan(t *testing.T) {
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		prefix(t, m, 2, "alloc")
		passtest.CheckPass(t, m, lookup(t, "alloc"), passtest.PassOptions(map[string]string{"allocator": "linear-scan"}))
	})
}

// build returns a module with function main built by fn.
func build(t *testing.T, fn func(b *bir.Builder)) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	fn(b)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func trn2(t testing.TB) *arch.Model {
	a, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestInferPSumTensor_Decisions: the seed's predicates on small modules:
// each case's OnChip tensor "x" ends in the memory wanted, or the pass
// fails with the seed's verifier string verbatim.
func TestInferPSumTensor_Decisions(t *testing.T) {
	const P, F = 128, 64
	tests := []struct {
		name    string
		act     bool
		body    func(b *bir.Builder, x, s1, s2 bir.T, in, out bir.T)
		want    bir.MemoryType
		wantErr string
	}{
		{"matmul result to PSUM", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Matmult("mm", x.All(), s1.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s2.All(), true, true)
		}, bir.MemPSUM, ""},
		{"matmul operand to SB", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Load("ld", x.All(), in.All())
			b.Matmult("mm", s2.All(), x.AP(0, [2]int64{F, P}, [2]int64{1, F}), x.All(), true, true)
		}, bir.MemSB, ""},
		{"activation result to PSUM", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Activation("act", "Exp", x.All(), s1.All(), 1, bir.Operand{})
			b.TensorCopy("cp", bir.EngDVE, s2.All(), x.All())
		}, bir.MemPSUM, ""},
		{"activation result kept in SB by option", false, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Activation("act", "Exp", x.All(), s1.All(), 1, bir.Operand{})
			b.TensorCopy("cp", bir.EngDVE, s2.All(), x.All())
		}, bir.MemSB, ""},
		{"activation result read by DMA to SB", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Activation("act", "Exp", x.All(), s1.All(), 1, bir.Operand{})
			b.Save("st", out.All(), x.All())
		}, bir.MemSB, ""},
		{"vector result to SB", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.TensorCopy("cp", bir.EngDVE, x.All(), s1.All())
		}, bir.MemSB, ""},
		{"matmul result read by GpSimd", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Matmult("mm", x.All(), s1.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s2.All(), true, true)
			b.TensorCopy("cp", bir.EngPool, s2.All(), x.All())
		}, 0, alloc.MsgGpSimdInstPSUM},
		{"matmul result read by a GpSimd-only opcode", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Matmult("mm", x.All(), s1.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s2.All(), true, true)
			b.Inst(bir.OpIota, "iota", bir.EngUnassigned, nil, []bir.Operand{x.All()},
				bir.Attrs("base", bir.Int(0), "pattern", bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(1)}, bir.Field{Key: "num", Val: bir.Int(F)})), "channel_multiplier", bir.Int(1)))
		}, 0, alloc.MsgGpSimdPSUM},
		{"matmul result as a custom-op argument", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Matmult("mm", x.All(), s1.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s2.All(), true, true)
			b.Inst(bir.OpCustomOp, "custom", bir.EngPool, []bir.Operand{x.All()}, []bir.Operand{s2.All()}, nil)
		}, 0, alloc.MsgCustomOpArgs},
		{"matmul result as a custom-op output", true, func(b *bir.Builder, x, s1, s2, in, out bir.T) {
			b.Inst(bir.OpCustomOp, "custom", bir.EngPool, []bir.Operand{s2.All()}, []bir.Operand{x.All()}, nil)
			b.Matmult("mm", x.All(), s1.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s2.All(), true, true)
		}, 0, alloc.MsgCustomOpOuts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, func(b *bir.Builder) {
				in := b.Input("in", bir.Float32, P, F)
				out := b.Output("out", bir.Float32, P, F)
				x := b.Tensor("x", bir.MemOnChip, bir.KindInternal, bir.Float32, P, F)
				s1 := b.SBUF("s1", bir.Float32, P, F)
				s2 := b.SBUF("s2", bir.Float32, P, F)
				tc.body(b, x, s1, s2, in, out)
			})
			_, err := alloc.InferPSumTensor(m, trn2(t), alloc.InferOptions{ActToPSUM: tc.act}, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || diag.CodeOf(err) != diag.WrongMemory {
					t.Fatalf("error %v (code %q): want %s containing %q", err, diag.CodeOf(err), diag.WrongMemory, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			l, _ := f.LocByName("x")
			if got := f.Loc(l).Type; got != tc.want {
				t.Fatalf("x placed in %s: want %s", got, tc.want)
			}
		})
	}
}

// TestInferPSumTensor_ForceTensorTensor: force_tensortensor_psum_sb moves
// the Activation result, not the matmul result, back to SBUF when a
// TensorTensor would read both from PSUM; two matmul results are an error.
func TestInferPSumTensor_ForceTensorTensor(t *testing.T) {
	const P, F = 128, 64
	m := build(t, func(b *bir.Builder) {
		s := b.SBUF("s", bir.Float32, P, F)
		a := b.Tensor("a", bir.MemOnChip, bir.KindInternal, bir.Float32, P, F)
		mm := b.Tensor("mm", bir.MemOnChip, bir.KindInternal, bir.Float32, P, F)
		b.Activation("act", "Exp", a.All(), s.All(), 1, bir.Operand{})
		b.Matmult("matmul", mm.All(), s.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s.All(), true, true)
		b.TensorTensor("add", bir.EngDVE, "add", s.All(), mm.All(), a.All())
	})
	st, err := alloc.InferPSumTensor(m, trn2(t), alloc.InferOptions{ActToPSUM: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	la, _ := f.LocByName("a")
	lm, _ := f.LocByName("mm")
	if f.Loc(la).Type != bir.MemSB || f.Loc(lm).Type != bir.MemPSUM || st.ForcedSB != 1 {
		t.Fatalf("a in %s, mm in %s, forced %d: want SB, PSUM, 1", f.Loc(la).Type, f.Loc(lm).Type, st.ForcedSB)
	}
	m2 := build(t, func(b *bir.Builder) {
		s := b.SBUF("s", bir.Float32, P, F)
		x := b.Tensor("x", bir.MemOnChip, bir.KindInternal, bir.Float32, P, F)
		y := b.Tensor("y", bir.MemOnChip, bir.KindInternal, bir.Float32, P, F)
		b.Matmult("m1", x.All(), s.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s.All(), true, true)
		b.Matmult("m2", y.All(), s.AP(0, [2]int64{F, P}, [2]int64{1, P / 2}), s.All(), true, true)
		b.TensorTensor("add", bir.EngDVE, "add", s.All(), x.All(), y.All())
	})
	if _, err := alloc.InferPSumTensor(m2, trn2(t), alloc.InferOptions{ActToPSUM: true}, nil); err == nil || !strings.Contains(err.Error(), "function main, instruction add (TensorTensor): both inputs must be in PSUM") ||
		!strings.Contains(err.Error(), "at most one PSUM input") || diag.CodeOf(err) != diag.WrongMemory {
		t.Fatalf("two matmul results into one TensorTensor: error %v (code %q)", err, diag.CodeOf(err))
	}
}

// TestAlloc_RequiresInference: the allocator refuses a module with an
// OnChip location left, naming it.
func TestAlloc_RequiresInference(t *testing.T) {
	m := build(t, func(b *bir.Builder) {
		x := b.Tensor("x", bir.MemOnChip, bir.KindInternal, bir.Float32, 128, 4)
		s := b.SBUF("s", bir.Float32, 128, 4)
		b.TensorCopy("cp", bir.EngDVE, x.All(), s.All())
	})
	_, err := alloc.Allocate(m, trn2(t), alloc.Options{})
	if err == nil || !strings.Contains(err.Error(), "location x") || !strings.Contains(err.Error(), "infer_psum_tensor") || diag.CodeOf(err) != diag.Stage {
		t.Fatalf("error %v (code %q), want %s", err, diag.CodeOf(err), diag.Stage)
	}
	var fe *alloc.FitError
	if errors.As(err, &fe) {
		t.Fatalf("a FitError for a placement-open location")
	}
	_ = verify.StageAllocated
}

// TestPreSchedulePass_Kernels: translation validation of pre_schedule on
// every built-in kernel after the footprint passes, with a target so low
// that every order is over it: the list schedule reorders for pressure
// (a report counter shows it moved instructions) and the outputs are
// bit-identical; the allocator then places the new order.
func TestPreSchedulePass_Kernels(t *testing.T) {
	moved := 0
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		prefix(t, m, 2, "pre_schedule")
		before := instOrder(m)
		passtest.CheckPass(t, m, lookup(t, "pre_schedule"), passtest.PassOptions(map[string]string{"target": "0.0001"}))
		after := instOrder(m)
		if len(before) != len(after) {
			t.Fatalf("%d instructions before, %d after", len(before), len(after))
		}
		for k := range before {
			if before[k] != after[k] {
				moved++
			}
		}
		passtest.CheckPass(t, m, lookup(t, "alloc"))
	})
	if moved == 0 {
		t.Fatal("the pre-schedule moved no instruction on any kernel")
	}
}

func instOrder(m *bir.Module) []string {
	var out []string
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			out = append(out, f.Name+"."+f.InstName(i))
			return true
		})
	}
	return out
}
