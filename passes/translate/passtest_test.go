package translate

import (
	"path/filepath"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// TestTranslate_Kernels: translation validation on every built-in kernel
// where the pass acts. The transformation saves the kernel's main function
// as a BIR-JSON kernel file and replaces main by a caller with the same
// inputs and outputs holding one NKIKLIRKernel placeholder for that file
// (format "bir", bound by name); translate_nki_ast_to_bir then expands it
// (its "kernels lowered" counter must be 1). The outputs after must equal
// the kernel's own, bit for bit, on the same inputs.
func TestTranslate_Kernels(t *testing.T) {
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		dir := t.TempDir()
		var lowered int64
		passtest.Check(t, m, func(m *bir.Module) error {
			main := m.Main()
			file := filepath.Join(dir, "kernel.json")
			if err := driver.Save(file, m); err != nil {
				return err
			}
			ins, outs := interp.InputSpecs(m), interp.OutputSpecs(m)
			m.RemoveFunction(main)
			b := bir.NewBuilder(m, "main")
			var inOps, outOps []bir.Operand
			var inNames, outNames []string
			for _, s := range ins {
				inOps = append(inOps, b.Input(s.Name, s.Dtype, s.Shape...).All())
				inNames = append(inNames, s.Name)
			}
			for _, s := range outs {
				outOps = append(outOps, b.Output(s.Name, s.Dtype, s.Shape...).All())
				outNames = append(outNames, s.Name)
			}
			AddPlaceholder(b.F, b.Block(), "k", file, FormatBIR, inOps, inNames, outOps, outNames)
			if err := b.Err(); err != nil {
				return err
			}
			res, err := Translate(m, pass.Config{})
			if res != nil {
				lowered = res.Counter("kernels lowered")
			}
			return err
		})
		if lowered != 1 {
			t.Fatalf("kernels lowered = %d, want 1: the pass did not act", lowered)
		}
	})
}

// directKernel is a KLR fixture's kernel written by hand with the builder:
// its on-chip tensors at the fixture's addresses.
type directKernel struct {
	fixture string
	ins     []string
	outs    []string
	build   func(b *bir.Builder) // builds the kernel function's body and tensors
	main    func(b *bir.Builder) (ins, outs []bir.Operand)
}

// place sets an allocated address on a builder tensor's location.
func place(b *bir.Builder, t bir.T, base, addr, bank int64) {
	l := b.F.Loc(t.Loc)
	l.Allocated, l.Base, l.Addr, l.Bank = true, base, addr, bank
}

var directKernels = []directKernel{
	{
		fixture: "tensor_add", ins: []string{"a", "b"}, outs: []string{"out"},
		build: func(b *bir.Builder) {
			a := b.Input("a", bir.Float32, 128, 512)
			bb := b.Input("b", bir.Float32, 128, 512)
			o := b.Output("out", bir.Float32, 128, 512)
			at := b.SBUF("a_tile", bir.Float32, 128, 512)
			bt := b.SBUF("b_tile", bir.Float32, 128, 512)
			st := b.SBUF("sum_tile", bir.Float32, 128, 512)
			place(b, at, 0, 0, 0)
			place(b, bt, 0, 2048, 0)
			place(b, st, 0, 4096, 0)
			b.Load("ld_a", at.All(), a.All())
			b.Load("ld_b", bt.All(), bb.All())
			b.TensorTensor("add", bir.EngDVE, "add", st.All(), at.All(), bt.All())
			b.Save("st", o.All(), st.All())
		},
		main: func(b *bir.Builder) ([]bir.Operand, []bir.Operand) {
			return []bir.Operand{b.Input("a", bir.Float32, 128, 512).All(), b.Input("b", bir.Float32, 128, 512).All()},
				[]bir.Operand{b.Output("out", bir.Float32, 128, 512).All()}
		},
	},
	{
		fixture: "matmul_tile", ins: []string{"lhsT", "rhs"}, outs: []string{"out"},
		build: func(b *bir.Builder) {
			l := b.Input("lhsT", bir.BFloat16, 128, 128)
			r := b.Input("rhs", bir.BFloat16, 128, 512)
			o := b.Output("out", bir.Float32, 128, 512)
			lt := b.SBUF("lhsT_tile", bir.BFloat16, 128, 128)
			rt := b.SBUF("rhs_tile", bir.BFloat16, 128, 512)
			ps := b.PSUM("res_psum", bir.Float32, 128, 512)
			rs := b.SBUF("res_tile", bir.Float32, 128, 512)
			place(b, lt, 0, 0, 0)
			place(b, rt, 0, 1024, 0)
			place(b, ps, 0, 0, 0)
			place(b, rs, 0, 2048, 0)
			b.Load("ld_l", lt.All(), l.All())
			b.Load("ld_r", rt.All(), r.All())
			b.Matmult("mm", ps.All(), lt.All(), rt.All(), true, true)
			b.TensorCopy("cp", bir.EngDVE, rs.All(), ps.All())
			b.Save("st", o.All(), rs.All())
		},
		main: func(b *bir.Builder) ([]bir.Operand, []bir.Operand) {
			return []bir.Operand{b.Input("lhsT", bir.BFloat16, 128, 128).All(), b.Input("rhs", bir.BFloat16, 128, 512).All()},
				[]bir.Operand{b.Output("out", bir.Float32, 128, 512).All()}
		},
	},
}

// TestTranslate_PasstestValidation: translation validation with the
// harness. Before: main calls the hand-built kernel through NKIKernel.
// The transformation replaces that call and function by a placeholder for
// the fixture's KLR file and runs the pass. The outputs must be
// bit-identical and the module must verify before and after.
func TestTranslate_PasstestValidation(t *testing.T) {
	fixtureNames(t)
	for _, dk := range directKernels {
		t.Run(dk.fixture, func(t *testing.T) {
			m := bir.NewModule("trn2")
			mb := bir.NewBuilder(m, "main")
			ins, outs := dk.main(mb)
			kb := bir.NewBuilder(m, "direct")
			kb.F.Kind = bir.FuncNKI
			dk.build(kb)
			call := mb.Inst(bir.OpNKIKernel, "call", bir.EngUnassigned, ins, outs, bir.AttrSet{
				{Key: AttrFunc, Val: bir.String("direct")},
				{Key: AttrInputNames, Val: strList(dk.ins)},
				{Key: AttrOutputNames, Val: strList(dk.outs)}})
			if err := mb.Err(); err != nil {
				t.Fatal(err)
			}
			if err := kb.Err(); err != nil {
				t.Fatal(err)
			}
			passtest.Check(t, m, func(m *bir.Module) error {
				f := m.Func("main")
				blk := f.Inst(call).Block
				f.Remove(call)
				m.RemoveFunction(m.Func("direct"))
				AddPlaceholder(f, blk, "k", fixturePath(dk.fixture), FormatKLR, ins, dk.ins, outs, dk.outs)
				_, err := Translate(m, pass.Config{})
				return err
			})
			if m.Func(dk.fixture) == nil || m.Func("direct") != nil {
				t.Errorf("after the transformation the module has functions %v", funcNames(m))
			}
		})
	}
}

func funcNames(m *bir.Module) []string {
	var out []string
	for _, f := range m.Funcs {
		out = append(out, f.Name)
	}
	return out
}
