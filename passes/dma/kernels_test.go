package dma

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// owned counts the instructions of m a pass owns and would change.
func owned(p *pass.Pass, m *bir.Module) int {
	model, err := arch.ForModule(m)
	if err != nil {
		panic(err)
	}
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			switch p.Name {
			case IndirectName:
				if op := f.Inst(i).Op; op == bir.OpGenericIndirectLoad || op == bir.OpGenericIndirectSave {
					n++
				}
			case StridedName:
				if f.Inst(i).Op == bir.OpLoad && f.Inst(i).NIns == 1 && !arch.PartitionContiguous(m.Pattern(f.Ins(i)[0].Pattern)) {
					n++
				}
			case CCEName:
				if IsCCEDMA(f, i) && int64(f.Inst(i).NIns) > model.MaxCceDmaSource {
					n++
				}
			}
			return true
		})
	}
	return n
}

// Translation validation of each pass on every built-in kernel at its test
// sizes. The kernels that exercise a pass (embedding: GenericIndirectLoad;
// transpose2d mode=dma: a partition-strided Load; cce_reduce with 40
// sources: a CCE DMACopy over MaxCceDmaSource) must be rewritten and give
// bit-identical outputs; every other kernel must come out unchanged (a
// pass leaves alone what it does not own).
func TestPasses_Kernels(t *testing.T) {
	for _, p := range []*pass.Pass{&LowerGenericIndirectPass, &LegalizeStridedDMAPass, &LegalizeCCEDMAPass} {
		t.Run(p.Name, func(t *testing.T) {
			exercised := 0
			passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
				n := owned(p, m)
				before := bir.Format(m)
				passtest.CheckPass(t, m, p)
				after := bir.Format(m)
				if p.Name == CCEName {
					after = strings.Replace(after, " attributes=["+CCECompletedAttr+"]", "", 1)
					if !m.Main().HasAttribute(CCECompletedAttr) {
						t.Fatalf("main lacks %s", CCECompletedAttr)
					}
				}
				if n == 0 {
					if after != before {
						t.Fatalf("%s changed %s, which has nothing it owns:\n%s", p.Name, name, after)
					}
					return
				}
				exercised++
				if left := owned(p, m); left != 0 {
					t.Fatalf("%d instructions still need %s:\n%s", left, p.Name, after)
				}
				switch p.Name {
				case IndirectName:
					if opCount(m, bir.OpIndirectLoad) == 0 {
						t.Fatalf("no IndirectLoad after lowering:\n%s", after)
					}
				case StridedName:
					if opCount(m, bir.OpTensorCopy) == 0 {
						t.Fatalf("no TensorCopy after the rewrite:\n%s", after)
					}
				case CCEName:
					if !strings.Contains(after, "_imm_output_0") {
						t.Fatalf("no partial output after the split:\n%s", after)
					}
				}
			})
			if exercised == 0 {
				t.Fatalf("no built-in kernel exercises %s", p.Name)
			}
		})
	}
}
