package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/verify"
)

// allSpecs are the default instance and the test instances of every kernel.
func allSpecs() []string {
	var out []string
	for _, k := range All() {
		out = append(out, k.Name)
		for _, s := range k.TestSpecs() {
			if s != k.Name {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestLibrary_Contents(t *testing.T) {
	want := []string{"attention", "average_pool2d", "cce_reduce", "embedding", "matmul", "rmsnorm", "softmax", "tensor_add", "transpose2d"}
	for _, n := range want {
		k, ok := Lookup(n)
		if !ok {
			t.Errorf("kernel %s is not registered", n)
			continue
		}
		if k.Reference == nil {
			t.Errorf("kernel %s has no reference implementation", n)
		}
		if len(k.Tests) == 0 {
			t.Errorf("kernel %s has no test instances", n)
		}
		if !strings.HasPrefix(k.Describe(), n+" ") {
			t.Errorf("Describe() = %q, want it to start with the name", k.Describe())
		}
	}
}

// TestLibrary_Verify builds every instance and runs the verifier on it.
func TestLibrary_Verify(t *testing.T) {
	for _, spec := range allSpecs() {
		inst, err := Instantiate(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if err := verify.Module(inst.Module, verify.Options{}); err != nil {
			t.Errorf("%s: verifier: %v", spec, err)
		}
		if inst.Module.Main().NumInsts() == 0 {
			t.Errorf("%s: no instructions", spec)
		}
	}
}

// TestLibrary_Loops checks that each hand-tiled kernel keeps its loops
// symbolic: at least one Loop instruction and a symbolic access pattern
// in its body; and that each macro kernel has neither (its instructions
// work on whole tensors, tiling is the compiler's).
func TestLibrary_Loops(t *testing.T) {
	for _, k := range All() {
		inst, err := Instantiate(k.Name)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		if k.Macro {
			f := inst.Module.Main()
			f.Walk(func(i bir.InstID) bool {
				for _, o := range f.Operands(i) {
					if f.Inst(i).Op.IsLoop() || o.Kind == bir.OpdSymAP {
						t.Errorf("%s: instruction %s has a loop or a symbolic AP: a macro kernel has none", k.Name, f.InstName(i))
					}
				}
				return true
			})
			continue
		}
		f := inst.Module.Main()
		loops, sym := 0, 0
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				loops++
				return true
			}
			for _, o := range f.Operands(i) {
				if o.Kind == bir.OpdSymAP && !f.Module().Expr(o.OffsetExpr()).IsConst() {
					sym++
				}
			}
			return true
		})
		if loops == 0 || sym == 0 {
			t.Errorf("%s: %d loops, %d symbolic APs with a loop-dependent offset; want both > 0", k.Name, loops, sym)
		}
	}
}

// TestLibrary_MatchesReference runs every instance in the interpreter and
// compares its outputs with the kernel's Go reference.
func TestLibrary_MatchesReference(t *testing.T) {
	for _, spec := range allSpecs() {
		t.Run(spec, func(t *testing.T) {
			inst, err := Instantiate(spec)
			if err != nil {
				t.Fatal(err)
			}
			in := inst.Inputs(7)
			got, err := interp.Run(inst.Module, in, interp.Options{Macro: inst.Kernel.Macro})
			if err != nil {
				t.Fatalf("interpreter: %v", err)
			}
			want, tol, err := inst.Expected(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := ref.CompareSets(got, want, tol); err != nil {
				t.Fatalf("interpreter vs reference: %v", err)
			}
			for name, w := range want {
				if tl, ok := tol[name]; ok {
					t.Logf("%s: max |error| %.3g, tolerance %s", name, ref.MaxError(got[name], w), tl)
				}
			}
		})
	}
}

// TestLibrary_TolerancesAreTight checks that no tolerance is vacuous: the
// absolute part stays below 1% of the output's magnitude, and a result
// off by 5% of an element fails the comparison.
func TestLibrary_TolerancesAreTight(t *testing.T) {
	for _, k := range All() {
		inst, err := Instantiate(k.Name)
		if err != nil {
			t.Fatal(err)
		}
		in := inst.Inputs(3)
		want, tol, err := inst.Expected(in)
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range want {
			vals, err := ref.Floats(w)
			if err != nil {
				t.Fatal(err)
			}
			var mx float64
			k := 0
			for i, v := range vals {
				if math.Abs(v) > mx {
					mx, k = math.Abs(v), i
				}
			}
			tl := tol[name]
			if tl.Abs > 0.01*mx || tl.Rel > 0.01 {
				t.Errorf("%s output %s: tolerance %s is loose for values up to %.3g", inst.Spec, name, tl, mx)
			}
			bad := &interp.Tensor{Name: name, Dtype: w.Dtype, Shape: w.Shape, Data: bytes.Clone(w.Data)}
			sz := w.Dtype.Size()
			if err := ref.Put(w.Dtype, bad.Data[int64(k)*sz:], vals[k]*1.05); err != nil {
				t.Fatal(err)
			}
			if ref.Compare(bad, w, tl) == nil {
				t.Errorf("%s output %s: a 5%% error at element %d passes tolerance %s", inst.Spec, name, k, tl)
			}
		}
	}
}

// TestLibrary_Inputs checks the kernels' own input generators: stable for
// a seed, different across seeds, complete, and within their constraints.
func TestLibrary_Inputs(t *testing.T) {
	for _, k := range All() {
		if k.Inputs == nil {
			continue
		}
		inst, err := Instantiate(k.TestSpecs()[0])
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := inst.Inputs(1), inst.Inputs(1), inst.Inputs(2)
		for _, s := range interp.InputSpecs(inst.Module) {
			ta, ok := a[s.Name]
			if !ok {
				t.Errorf("%s: input %s missing", inst.Spec, s.Name)
				continue
			}
			if ta.Dtype != s.Dtype || int64(len(ta.Data)) != ta.NumElements()*s.Dtype.Size() {
				t.Errorf("%s: input %s: %s with %d bytes, want %s %v", inst.Spec, s.Name, ta.Dtype, len(ta.Data), s.Dtype, s.Shape)
			}
			if !bytes.Equal(ta.Data, b[s.Name].Data) {
				t.Errorf("%s: input %s differs between two calls with seed 1", inst.Spec, s.Name)
			}
			if bytes.Equal(ta.Data, c[s.Name].Data) {
				t.Errorf("%s: input %s is the same for seeds 1 and 2", inst.Spec, s.Name)
			}
		}
	}
	inst, err := Instantiate("embedding:vocab=7,d=4,tokens=512")
	if err != nil {
		t.Fatal(err)
	}
	idx := inst.Inputs(5)["indices"]
	seen := map[int32]bool{}
	for i := 0; i < len(idx.Data); i += 4 {
		v := int32(binary.LittleEndian.Uint32(idx.Data[i:]))
		if v < 0 || v >= 7 {
			t.Fatalf("index %d = %d, outside [0, 7)", i/4, v)
		}
		seen[v] = true
	}
	if len(seen) != 7 {
		t.Errorf("512 indices drawn from 7 rows hit only %d of them", len(seen))
	}
}

func TestLibrary_BadParams(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"matmul:m=100", "m=100"},
		{"matmul:tile_n=1024", "tile_n=1024"},
		{"matmul:n=500,tile_n=128", "n=500"},
		{"matmul:dtype=int8", "dtype=int8"},
		{"softmax:rows=0", "rows=0"},
		{"rmsnorm:d=600", "d=600"},
		{"rmsnorm:eps=-1", "eps=-1"},
		{"rmsnorm:eps=nan", "eps"},
		{"transpose2d:mode=dve", "mode"},
		{"transpose2d:mode=pe,dtype=int32", "mode=pe"},
		{"average_pool2d:h=15,pool=2", "h=15"},
		{"average_pool2d:c=200", "c=200"},
		{"attention:d=256", "d=256"},
		{"embedding:tokens=100", "tokens=100"},
		{"embedding:dtype=float8e3", "float8e3"},
		{"cce_reduce:sources=41", "sources=41"},
		{"cce_reduce:sources=1", "sources=1"},
		{"tensor_add:cols=x", "cols"},
		{"softmax:arch=trn9", "arch=trn9"},
	}
	for _, tt := range tests {
		_, err := Build(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Build(%q) error = %v, want one mentioning %q", tt.spec, err, tt.want)
		}
	}
}

func TestKernel_Spec(t *testing.T) {
	k, p, err := ParseSpec("matmul:n=256,m=128")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Spec(p); got != "matmul:m=128,n=256" {
		t.Errorf("Spec = %q, want matmul:m=128,n=256 (declaration order)", got)
	}
	_, p, _ = ParseSpec("matmul")
	if got := k.Spec(p); got != "matmul" {
		t.Errorf("Spec of the defaults = %q, want matmul", got)
	}
}
