package interp

// Run, InputSpecs, OutputSpecs and RandomInputs: the package's entry points
// (api.go fixes their contract).
//
// Inputs and outputs of a function are its tensors whose kind is one of the
// input (output) kinds or whose location is typed Input (Output), in
// declaration order. A tensor is named by its location's name (BIR-JSON's
// memref, e.g. "x") when it has exactly one location, else by its
// MemoryLocationSet name without the "_set" suffix. Inputs and outputs must
// live in DRAM.
//
// Run checks each input tensor against its spec: the dtype must be equal
// and the element count must match (the shape may differ, so a flat .npy
// array can feed a [128, 512] tensor; the decision is documented in
// docs/semantics-choices.md) and the data length must be count x dtype size.
// Unknown input names are an error, so a typo cannot silently leave an input
// at its sentinel fill.

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// ioTensor is one input or output of a function.
type ioTensor struct {
	spec   Spec
	tensor bir.TensorID
	loc    bir.LocID
}

func tensorIOName(f *bir.Function, t bir.TensorID) string {
	ts := f.Tensor(t)
	if len(ts.Locs) == 1 {
		return f.Loc(ts.Locs[0]).Name
	}
	return strings.TrimSuffix(ts.Name, "_set")
}

// ioTensors lists the inputs (out=false) or outputs (out=true) of f.
func ioTensors(f *bir.Function, out bool) []ioTensor {
	var res []ioTensor
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		want := bir.MemInput
		is := ts.Kind.IsInput()
		if out {
			want = bir.MemOutput
			is = ts.Kind.IsOutput()
		}
		loc := bir.NoLoc
		for _, l := range ts.Locs {
			if f.Loc(l).Type == want {
				is = true
			}
			if loc == bir.NoLoc {
				loc = l
			}
		}
		if !is {
			continue
		}
		res = append(res, ioTensor{
			spec:   Spec{Name: tensorIOName(f, bir.TensorID(t)), Dtype: ts.Dtype, Shape: slices.Clone(ts.Shape)},
			tensor: bir.TensorID(t),
			loc:    loc,
		})
	}
	return res
}

func specsOf(f *bir.Function, out bool) []Spec {
	if f == nil {
		return nil
	}
	io := ioTensors(f, out)
	res := make([]Spec, len(io))
	for i, x := range io {
		res[i] = x.spec
	}
	return res
}

// InputSpecs returns the entry function's inputs: name, dtype, shape, in
// declaration order.
func InputSpecs(m *bir.Module) []Spec { return specsOf(m.Main(), false) }

// OutputSpecs returns the entry function's outputs.
func OutputSpecs(m *bir.Module) []Spec { return specsOf(m.Main(), true) }

// NumElements returns the product of the spec's shape (-1 when it
// overflows int64).
func (s Spec) NumElements() int64 { return shapeElements(s.Shape) }

// shapeElements is the checked product of a shape, -1 on overflow.
func shapeElements(shape []int64) int64 {
	n, ok := checked.Product(shape...)
	if !ok {
		return -1
	}
	return n
}

// RandomInputs returns random inputs for the entry function that depend
// only on the seed and each input's name, dtype and shape. Floats are drawn
// uniformly from [-1, 1) and rounded to the dtype; signed integers from
// [-8, 8); unsigned integers from [0, 16); x4-packed types pack four values
// of [-1, 1).
func RandomInputs(m *bir.Module, seed int64) map[string]*Tensor {
	out := map[string]*Tensor{}
	for _, s := range InputSpecs(m) {
		out[s.Name] = RandomTensor(s, seed)
	}
	return out
}

// RandomTensor returns the random tensor RandomInputs draws for spec s.
func RandomTensor(s Spec, seed int64) *Tensor {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", seed, s.Name, s.Dtype)
	for _, d := range s.Shape {
		fmt.Fprintf(h, "\x00%d", d)
	}
	k := h.Sum64()
	r := rand.New(rand.NewPCG(k, k^0x9e3779b97f4a7c15))
	n := max(s.NumElements(), 0)
	size := s.Dtype.Size()
	t := &Tensor{Name: s.Name, Dtype: s.Dtype, Shape: slices.Clone(s.Shape), Data: make([]byte, n*size)}
	for i := int64(0); i < n; i++ {
		var bits uint64
		switch {
		case numeric.Packed(s.Dtype):
			var v [4]float32
			for j := range v {
				v[j] = float32(r.Float64()*2 - 1)
			}
			bits, _ = numeric.PackLanes(s.Dtype, v)
		case s.Dtype.IsFloat():
			bits, _ = numeric.FromFloat32(s.Dtype, float32(r.Float64()*2-1))
		case s.Dtype.IsSigned():
			bits = uint64(int64(r.IntN(16)) - 8)
		default:
			bits = uint64(r.IntN(16))
		}
		numeric.StoreBits(s.Dtype, t.Data[i*size:], bits)
	}
	return t
}

// Run executes the entry function of m on inputs and returns its outputs
// (see api.go).
func Run(m *bir.Module, inputs map[string]*Tensor, opt Options) (res map[string]*Tensor, err error) {
	if m == nil {
		return nil, &Error{Kind: ErrInput, Msg: "nil module"}
	}
	f := m.Main()
	if opt.Function != "" {
		f = m.Func(opt.Function)
		if f == nil {
			return nil, &Error{Kind: ErrInput, Msg: fmt.Sprintf("no function %q in the module", opt.Function)}
		}
	}
	if f == nil {
		return nil, &Error{Kind: ErrInput, Msg: "the module has no function"}
	}
	geo, err := geometryFor(m, opt)
	if err != nil {
		return nil, err
	}
	mc := newMachine(m, opt, geo)
	defer func() {
		if p := recover(); p != nil {
			res = nil
			if be, ok := p.(*budgetError); ok {
				err = mc.limitError(be)
				return
			}
			err = mc.internalError(p, debug.Stack())
		}
	}()
	fr := newFrame(f)
	if err := mc.bindInputs(fr, inputs); err != nil {
		return nil, err
	}
	mc.push(fr)
	if err := mc.runFunction(fr); err != nil {
		return nil, err
	}
	mc.pop()
	return mc.collectOutputs(fr)
}

func (mc *machine) bindInputs(fr *frame, inputs map[string]*Tensor) error {
	f := fr.f
	io := ioTensors(f, false)
	known := map[string]bool{}
	for _, x := range io {
		known[x.spec.Name] = true
	}
	for name := range inputs {
		if !known[name] {
			names := make([]string, len(io))
			for i, x := range io {
				names[i] = x.spec.Name
			}
			return &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("unknown input %q (the inputs of function %s are: %s)", name, f.Name, strings.Join(names, ", "))}
		}
	}
	for _, x := range io {
		in := inputs[x.spec.Name]
		fail := func(format string, args ...any) error {
			return &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("input %s: ", x.spec.Name) + fmt.Sprintf(format, args...)}
		}
		if in == nil {
			return fail("missing (want %s %v)", x.spec.Dtype, x.spec.Shape)
		}
		if x.loc == bir.NoLoc {
			return fail("tensor %s has no memory location", f.Tensor(x.tensor).Name)
		}
		loc := f.Loc(x.loc)
		if !loc.Type.IsDRAM() {
			return fail("location %s is in %s; inputs must live in DRAM", loc.Name, loc.Type)
		}
		if in.Dtype != x.spec.Dtype {
			return fail("dtype %s, want %s", in.Dtype, x.spec.Dtype)
		}
		if in.NumElements() != x.spec.NumElements() {
			return fail("shape %v (%d elements), want %v (%d elements)", in.Shape, in.NumElements(), x.spec.Shape, x.spec.NumElements())
		}
		if int64(len(in.Data)) != in.NumElements()*in.Dtype.Size() {
			return fail("%d data bytes, want %d (%d elements of %s)", len(in.Data), in.NumElements()*in.Dtype.Size(), in.NumElements(), in.Dtype)
		}
		if err := mc.tryCharge(int64(len(in.Data)), "input "+x.spec.Name); err != nil {
			return &Error{Kind: ErrLimit, Func: f.Name, Msg: err.Error()}
		}
		r, err := mc.region(fr, x.loc, 0)
		if err != nil {
			if oe, ok := err.(*opError); ok && oe.kind == ErrLimit {
				return &Error{Kind: ErrLimit, Func: f.Name, Msg: oe.msg}
			}
			return fail("%v", err)
		}
		if r.bytes != int64(len(in.Data)) {
			return fail("location %s holds %d bytes, the tensor %s %v needs %d", loc.Name, r.bytes, x.spec.Dtype, x.spec.Shape, len(in.Data))
		}
		copy(r.st.data, in.Data)
		r.st.markAll()
	}
	return nil
}

func (mc *machine) collectOutputs(fr *frame) (map[string]*Tensor, error) {
	f := fr.f
	out := map[string]*Tensor{}
	for _, x := range ioTensors(f, true) {
		if x.loc == bir.NoLoc {
			return nil, &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("output %s: tensor %s has no memory location", x.spec.Name, f.Tensor(x.tensor).Name)}
		}
		loc := f.Loc(x.loc)
		if !loc.Type.IsDRAM() {
			return nil, &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("output %s: location %s is in %s; outputs must live in DRAM", x.spec.Name, loc.Name, loc.Type)}
		}
		r, err := mc.region(fr, x.loc, 0)
		if err != nil {
			return nil, &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("output %s: %v", x.spec.Name, err)}
		}
		want := x.spec.NumElements() * x.spec.Dtype.Size()
		if r.bytes != want {
			return nil, &Error{Kind: ErrInput, Func: f.Name, Msg: fmt.Sprintf("output %s: location %s holds %d bytes, the tensor %s %v needs %d", x.spec.Name, loc.Name, r.bytes, x.spec.Dtype, x.spec.Shape, want)}
		}
		if err := mc.tryCharge(want, "output "+x.spec.Name); err != nil {
			return nil, &Error{Kind: ErrLimit, Func: f.Name, Msg: err.Error()}
		}
		out[x.spec.Name] = &Tensor{Name: x.spec.Name, Dtype: x.spec.Dtype, Shape: slices.Clone(x.spec.Shape), Data: slices.Clone(r.st.data)}
	}
	return out, nil
}
