package translate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/klr"
	"github.com/narwhal-compiler/narwhal/klr/klrtest"
)

func ref(a *klr.Access) klr.TensorRef { return klr.TensorRef{Kind: klr.RefAbstract, Access: a} }

func simpleRef(t klr.TensorName) klr.TensorRef {
	return ref(&klr.Access{Kind: klr.AccessKindSimple, Simple: &t})
}

func sl(l, u uint64, step int64) klr.Index {
	return klr.Index{Kind: klr.IndexSlice, Slice: klr.Slice{L: l, U: u, Step: step}}
}

func coord(c uint64) klr.Index { return klr.Index{Kind: klr.IndexCoord, Coord: c} }

// noFixedAxis is AccessPattern.fixedAxis = Option.none; fixedAxis1
// Option.some 1.
var (
	noFixedAxis = klr.Raw{Kind: klr.RawCtor, Type: 0xff}
	fixedAxis1  = klr.Raw{Kind: klr.RawCtor, Type: 0xff, Ctor: 1, Items: []klr.Raw{{Kind: klr.RawUint, Uint: 1}}}
)

// TestTranslate_AccessFormFiles: KLR files whose operands use each Access
// form - simple, basic (Index.coord and Index.slice, negative and
// positive steps), pattern (with and without per-pair starts) and
// birPattern - written with klrtest, loaded as files (driver.Load), run
// through translate_nki_ast_to_bir, verified, and executed: each output is
// the element selection the form states, computed here from the input.
// formOutput is an output of an access-form kernel: element k (row-major)
// must be want(k).
type formOutput struct {
	name  string
	shape []int64
	want  func(k int) float32
}

// accessFormCase is a kernel exercising one Access form, its inputs and
// what its outputs hold.
type accessFormCase struct {
	name   string
	kernel *klr.LncKernel
	inputs []*interp.Tensor
	outs   []formOutput
}

// accessFormCases are the kernels of TestTranslate_AccessFormFiles (also
// seeds of FuzzTranslateKLR).
func accessFormCases() []accessFormCase {

	// a: [64, 4, 16] in HBM; a[p][i][j] = ramp value at p*64 + i*16 + j.
	a3 := klr.TensorName{Name: "a", Dtype: kdt("float32"), Shape: klr.Shape{ParDim: 64, FreeDims: []uint64{4, 16}}, FreeElements: 64,
		Address: klr.Address{Name: "a", Memory: klr.MemHBM, ParSize: 64, FreeSize: 256}}
	av := ramp(64*64, 0.5, -3)
	at := func(p, i, j int) float32 { return av[p*64+i*16+j] }
	a2 := hbmT("a", "float32", 128, 64)
	a2v := ramp(128*64, 0.25, 1)
	b2 := hbmT("b", "float32", 128, 64)
	b2v := ramp(128*64, 1, -7)

	return []accessFormCase{
		{
			// out = a + b, every operand the whole tensor (Access.simple).
			name: "simple",
			kernel: func() *klr.LncKernel {
				o := hbmT("out", "float32", 128, 64)
				ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
				tb := chipT("tb", "float32", klr.MemSBUF, 128, 64, 0, 256)
				return lncKernel("simple", []klr.TensorName{a2, b2}, []klr.TensorName{o},
					dma(simpleRef(ta), simpleRef(a2)), dma(simpleRef(tb), simpleRef(b2)),
					&klr.TensorTensor{Dst: simpleRef(ta), Src0: simpleRef(ta), Src1: simpleRef(tb), Op: aluOp("add"), Engine: klr.EngDVE},
					dma(simpleRef(o), simpleRef(ta)))
			}(),
			inputs: []*interp.Tensor{f32Tensor("a", []int64{128, 64}, a2v), f32Tensor("b", []int64{128, 64}, b2v)},
			outs:   []formOutput{{"out", []int64{128, 64}, func(k int) float32 { return a2v[k] + b2v[k] }}},
		},
		{
			// row = a[0:64, 2, 0:16] (a coordinate drops the middle dim);
			// col = a[63:0:-2, 0:4, 15] (negative partition step, coord on
			// the last dim), through SBUF.
			name: "basic",
			kernel: func() *klr.LncKernel {
				row := hbmT("row", "float32", 64, 16)
				col := hbmT("col", "float32", 32, 4)
				tr := chipT("tr", "float32", klr.MemSBUF, 64, 16, 0, 0)
				tc := chipT("tc", "float32", klr.MemSBUF, 32, 4, 0, 64)
				basic := func(idx ...klr.Index) klr.TensorRef {
					return ref(&klr.Access{Kind: klr.AccessKindBasic, Basic: &klr.AccessBasic{Tensor: a3, Indexes: idx}})
				}
				return lncKernel("basic", []klr.TensorName{a3}, []klr.TensorName{row, col},
					dma(simpleRef(tr), basic(sl(0, 64, 1), coord(2), sl(0, 16, 1))),
					dma(simpleRef(row), simpleRef(tr)),
					dma(simpleRef(tc), basic(sl(63, 0, -2), sl(0, 4, 1), coord(15))),
					dma(simpleRef(col), simpleRef(tc)))
			}(),
			inputs: []*interp.Tensor{f32Tensor("a", []int64{64, 4, 16}, av)},
			outs: []formOutput{
				{"row", []int64{64, 16}, func(k int) float32 { return at(k/16, 2, k%16) }},
				{"col", []int64{32, 4}, func(k int) float32 { return at(63-2*(k/4), k%4, 15) }},
			},
		},
		{
			// even = ta[[32 + p, 1 + 2j]] (parOffset 32, freeOffset 1, pair
			// (2, 32)); pairs = ta[[64 + p, 2 + 2j + k]] written with the
			// per-pair starts folded into freeOffset (pair (2, 16, start 1),
			// freeOffset 2).
			name: "pattern",
			kernel: func() *klr.LncKernel {
				even := hbmT("even", "float32", 64, 32)
				pairs := hbmT("pairs", "float32", 32, 32)
				ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
				pat := func(parNum, parOff, freeOff uint64, ps ...klr.APPair) klr.TensorRef {
					return ref(&klr.Access{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: ta, ParNum: parNum, Pattern: ps,
						ParOffset: parOff, FreeOffset: freeOff, FixedAxis: noFixedAxis}})
				}
				return lncKernel("pattern", []klr.TensorName{a2}, []klr.TensorName{even, pairs},
					dma(simpleRef(ta), simpleRef(a2)),
					dma(simpleRef(even), pat(64, 32, 1, klr.APPair{Step: 2, Num: 32})),
					dma(simpleRef(pairs), pat(32, 64, 2, klr.APPair{Step: 2, Num: 16, Offset: 1}, klr.APPair{Step: 1, Num: 2})))
			}(),
			inputs: []*interp.Tensor{f32Tensor("a", []int64{128, 64}, a2v)},
			outs: []formOutput{
				{"even", []int64{64, 32}, func(k int) float32 { return a2v[(32+k/32)*64+1+2*(k%32)] }},
				{"pairs", []int64{32, 32}, func(k int) float32 { return a2v[(64+k/32)*64+2+k%32] }},
			},
		},
		{
			// The same even selection with fixedAxis = some 1: KLR's
			// fromAccessPattern does not read it, and neither does the
			// lowering (the same elements).
			name: "pattern with a fixedAxis",
			kernel: func() *klr.LncKernel {
				even := hbmT("even", "float32", 64, 32)
				ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
				return lncKernel("pattern_fixed", []klr.TensorName{a2}, []klr.TensorName{even},
					dma(simpleRef(ta), simpleRef(a2)),
					dma(simpleRef(even), ref(&klr.Access{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: ta, ParNum: 64,
						Pattern: []klr.APPair{{Step: 2, Num: 32}}, ParOffset: 32, FreeOffset: 1, FixedAxis: fixedAxis1}})))
			}(),
			inputs: []*interp.Tensor{f32Tensor("a", []int64{128, 64}, a2v)},
			outs:   []formOutput{{"even", []int64{64, 32}, func(k int) float32 { return a2v[(32+k/32)*64+1+2*(k%32)] }}},
		},
		{
			// out = 2 * a[32:96, 8:40] with birPattern tiles.
			name: "birPattern",
			kernel: func() *klr.LncKernel {
				o := hbmT("out", "float32", 64, 32)
				// 64 partitions start at partition 0 or 64 (the
				// partition-start rule holds of allocated kernels).
				ta := chipT("ta", "float32", klr.MemSBUF, 64, 32, 64, 0)
				return lncKernel("bir", []klr.TensorName{a2}, []klr.TensorName{o},
					dma(whole(ta), tile(a2, 32, 64, 8, 32)),
					&klr.TensorScalar{Dst: whole(ta), Src: whole(ta), Imm0: fimm(2), Op0: aluOp("mult"), Engine: klr.EngDVE},
					dma(whole(o), whole(ta)))
			}(),
			inputs: []*interp.Tensor{f32Tensor("a", []int64{128, 64}, a2v)},
			outs:   []formOutput{{"out", []int64{64, 32}, func(k int) float32 { return 2 * a2v[(32+k/32)*64+8+k%32] }}},
		},
	}
}

func TestTranslate_AccessFormFiles(t *testing.T) {
	for _, c := range accessFormCases() {
		t.Run(c.name, func(t *testing.T) {
			data, err := klrtest.Encode(klrtest.LncFile(c.kernel))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), c.name+".klr")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := driver.Load(path)
			if err != nil {
				t.Fatalf("driver.Load: %v", err)
			}
			if _, err := runTranslate(m); err != nil {
				t.Fatalf("translate: %v", err)
			}
			verifyModule(t, m, "after translate")
			in := map[string]*interp.Tensor{}
			for _, x := range c.inputs {
				in[x.Name] = x
			}
			out, err := interp.Run(m, in, interp.Options{})
			if err != nil {
				t.Fatalf("interp: %v", err)
			}
			for _, o := range c.outs {
				x := out[o.name]
				if x == nil {
					t.Fatalf("no output %s (have %v)", o.name, keys(out))
				}
				g := f32s(x)
				n := 1
				for _, d := range o.shape {
					n *= int(d)
				}
				if len(g) != n {
					t.Fatalf("%s: %d elements, want %d", o.name, len(g), n)
				}
				for k := range g {
					if w := o.want(k); g[k] != w {
						t.Fatalf("%s[%d] = %v, want %v", o.name, k, g[k], w)
					}
				}
			}
		})
	}
}

// copyKernelFile writes a small KLR file (out = a, by DMA through SBUF)
// and returns its path and the module driver.Load makes of it.
func copyKernelFile(t *testing.T) (string, *bir.Module) {
	t.Helper()
	a := hbmT("a", "float32", 128, 64)
	o := hbmT("out", "float32", 128, 64)
	ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
	data, err := klrtest.Encode(klrtest.LncFile(lncKernel("cp", []klr.TensorName{a}, []klr.TensorName{o}, dma(whole(ta), whole(a)), dma(whole(o), whole(ta)))))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cp.klr")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := driver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, m
}

// TestCheckVersionMatch: seed 003 path A, "checkVersionMatch(node) // gate
// "M.m.p" against "1.0.0"", before the file is opened: the placeholder's
// klir_version must be 1.0.0; absent, the file's own header decides.
func TestCheckVersionMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    *bir.Value
		want string // "" = translates
	}{
		{"absent", nil, ""},
		{"1.0.0", ptr(bir.String("1.0.0")), ""},
		{"1.0.1", ptr(bir.String("1.0.1")), "KLIR version mismatch: the kernel is KLIR 1.0.1, narwhal lowers KLIR 1.0.0 (checkVersionMatch)"},
		{"2.0.0", ptr(bir.String("2.0.0")), "KLIR version mismatch"},
		{"malformed", ptr(bir.String("1.0")), `klir_version "1.0": want "M.m.p" (three numbers)`},
		{"not a string", ptr(bir.Int(1)), `klir_version: want a version string "M.m.p", have 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := copyKernelFile(t)
			f := m.Main()
			_, ps := calls(f)
			if tc.v != nil {
				f.SetAttr(ps[0], AttrKLIRVersion, *tc.v)
			}
			_, err := runTranslate(m)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if len(m.Funcs) != 1 {
				t.Errorf("a failed translation left %d functions", len(m.Funcs))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestLowerFromKLR_FailToLocate: the seed's fopen failure after the path
// resolved, "fail to locate KLIR artifact", naming the path and the cause
// (the file removed between the existence check and the open).
func TestLowerFromKLR_FailToLocate(t *testing.T) {
	path, m := copyKernelFile(t)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	_, ps := calls(f)
	tr := &translator{m: m}
	_, err := tr.lowerFromKLR(f, ps[0], path)
	if err == nil || !strings.Contains(err.Error(), "fail to locate KLIR artifact "+path) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error %v, want fail to locate KLIR artifact %s (not exist)", err, path)
	}
}
