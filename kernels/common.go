package kernels

// Helpers shared by the kernel builders and their reference
// implementations: parameter validation with messages that name the
// parameter, the NKI tile-size constants, deterministic input generators
// for kernels with constrained inputs, and reference-side input decoding.

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// NKI tile-size constants (hardware.md "NKI tile-size constants").
const (
	pmax       = 128 // partitions of a tile (nl.tile_size.pmax)
	psumFmax   = 512 // fp32 elements of one PSUM bank per partition (psum_fmax)
	movingFmax = 512 // free size of the matmul moving operand (gemm_moving_fmax)
)

// archParam is the target parameter every kernel declares.
var archParam = Param{Name: "arch", Default: "trn2", Doc: "target (module arch)"}

// newModule creates the kernel's module for the arch parameter, which must
// name a machine model (arch.Lookup's spellings: trn2, gen3, NC-v3, ...).
func newModule(p Params) (*bir.Module, error) {
	a := p.Str("arch")
	if _, err := arch.Lookup(a); err != nil {
		return nil, fmt.Errorf("arch=%s: %w", a, err)
	}
	return bir.NewModule(a), nil
}

// intParams reads integer parameters in order.
func intParams(p Params, names ...string) ([]int64, error) {
	out := make([]int64, len(names))
	for i, n := range names {
		v, err := p.Int(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// multipleOf checks that parameter name is a positive multiple of m.
func multipleOf(name string, v, m int64) error {
	if v <= 0 || v%m != 0 {
		return fmt.Errorf("%s=%d: want a positive multiple of %d", name, v, m)
	}
	return nil
}

// inRange checks lo <= v <= hi.
func inRange(name string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s=%d: want %d..%d", name, v, lo, hi)
	}
	return nil
}

// computeDtypes are the element types the compute kernels accept: the
// float formats every engine reads and the matmul accepts (semantics.md
// §4.7: fp32 only with fp32, bf16/fp16 with each other).
var computeDtypes = []bir.Dtype{bir.Float32, bir.BFloat16, bir.Float16}

// floatDtype reads the dtype parameter and checks it is a compute dtype.
func floatDtype(p Params) (bir.Dtype, error) {
	dt, err := p.Dtype("dtype")
	if err != nil {
		return 0, err
	}
	if !slices.Contains(computeDtypes, dt) {
		return 0, fmt.Errorf("dtype=%s: want float32, bfloat16 or float16", dt)
	}
	return dt, nil
}

// anyDtype reads the dtype parameter and checks the reference can decode
// it (data-movement kernels accept every decodable dtype).
func anyDtype(p Params) (bir.Dtype, error) {
	dt, err := p.Dtype("dtype")
	if err != nil {
		return 0, err
	}
	if !ref.Decodable(dt) {
		return 0, fmt.Errorf("dtype=%s: not supported by this kernel (no documented encoding)", dt)
	}
	return dt, nil
}

// finish returns the module or the builder's first error.
func finish(b *bir.Builder) (*bir.Module, error) {
	if err := b.Err(); err != nil {
		return nil, err
	}
	return b.M, nil
}

// pred sets the predicate of instruction id (no-op after a builder error).
func pred(b *bir.Builder, id bir.InstID, p affine.Pred) {
	if id == bir.NoInst || b.Err() != nil {
		return
	}
	b.F.SetPred(id, p)
}

// ---- reference side ----

// refInput checks that input name is present with the given dtype and
// shape and returns it decoded to the fp32 values the engines compute with.
func refInput(in map[string]*interp.Tensor, name string, dt bir.Dtype, shape ...int64) ([]float32, error) {
	t, err := refTensor(in, name, dt, shape...)
	if err != nil {
		return nil, err
	}
	return ref.Float32s(t)
}

// refBinary is the reference of an elementwise kernel over inputs x and y
// of shape [rows, cols]: out[i] = f(x[i], y[i]) in fp32 (f applies the
// kernel's own fp32 steps), then one cast to dt, named output.
func refBinary(in map[string]*interp.Tensor, output string, dt bir.Dtype, rows, cols int64, f func(x, y float32) float32) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	x, err := refInput(in, "x", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	y, err := refInput(in, "y", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	o := make([]float32, len(x))
	for i := range o {
		o[i] = f(x[i], y[i])
	}
	out, err := ref.FromFloat32s(output, dt, []int64{rows, cols}, o)
	if err != nil {
		return nil, nil, err
	}
	return map[string]*interp.Tensor{output: out}, nil, nil
}

// refTensor checks presence, dtype, shape and size of input name.
func refTensor(in map[string]*interp.Tensor, name string, dt bir.Dtype, shape ...int64) (*interp.Tensor, error) {
	t, ok := in[name]
	if !ok || t == nil {
		return nil, fmt.Errorf("input %s is missing", name)
	}
	if t.Dtype != dt {
		return nil, fmt.Errorf("input %s: dtype %s, want %s", name, t.Dtype, dt)
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("input %s: shape %v, want %v", name, t.Shape, shape)
	}
	if int64(len(t.Data)) != t.NumElements()*dt.Size() {
		return nil, fmt.Errorf("input %s: %d data bytes, want %d", name, len(t.Data), t.NumElements()*dt.Size())
	}
	return t, nil
}

// u32 is the unit roundoff of fp32 arithmetic (2^-24).
var u32 = math.Ldexp(1, -24)

// outTol is the tolerance of an output of dtype dt computed in fp32 with
// an absolute error bound abs and a relative bound rel before the final
// cast: the cast adds at most one unit in the last place of dt (the
// interpreter rounds its fp32 result, the reference its float64 one; the
// two roundings can land on neighbouring values).
func outTol(dt bir.Dtype, abs, rel float64, why string) ref.Tolerance {
	return ref.Tolerance{Abs: abs, Rel: rel + ref.UnitRoundoff(dt), Why: why}
}

// ---- input generators ----

// rng returns a generator that depends only on the seed and a name, so
// that inputs are stable across passes (the contract of Kernel.Inputs).
func rng(seed int64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// specOf finds the input spec named name of m's entry function.
func specOf(m *bir.Module, name string) (interp.Spec, bool) {
	for _, s := range interp.InputSpecs(m) {
		if s.Name == name {
			return s, true
		}
	}
	return interp.Spec{}, false
}

// fillFloats makes a tensor of spec s with values from gen, rounded to the
// spec's dtype.
func fillFloats(s interp.Spec, gen func(i int64) float64) *interp.Tensor {
	t := &interp.Tensor{Name: s.Name, Dtype: s.Dtype, Shape: append([]int64(nil), s.Shape...)}
	n := t.NumElements()
	sz := s.Dtype.Size()
	t.Data = make([]byte, n*sz)
	for i := int64(0); i < n; i++ {
		// Put fails only for undecodable dtypes, which the kernels reject.
		_ = ref.Put(s.Dtype, t.Data[i*sz:], gen(i))
	}
	return t
}

// randomValue draws one value for dtype dt: floats uniform in [-1, 1),
// signed integers in [-100, 100], unsigned ones in [0, 200].
func randomValue(r *rand.Rand, dt bir.Dtype) float64 {
	switch {
	case dt.IsFloat():
		return 2*r.Float64() - 1
	case dt.IsSigned():
		return float64(r.IntN(201) - 100)
	}
	return float64(r.IntN(201))
}
