package api

// The argument reader of the nki.isa and nki.language bindings. A binding
// converts its unpacked arguments one after another (the kernel state, the
// destination, each input tile, scalar, operator, mask, dtype and engine),
// and each conversion can fail. argReader keeps the first failure and
// skips every conversion after it, so a binding reads as the list of what
// it converts followed by one check:
//
//	arg := newArgs(what)
//	st := arg.state(th)
//	d := arg.dst(dst)
//	a := arg.tile(data, "data")
//	if arg.err != nil {
//		return nil, arg.err
//	}
//
// The error reported is the one the first failing conversion returns, in
// the order the binding converts: the same error, code and position as a
// return after each conversion (tests check which argument's error comes
// first when several are wrong). A conversion skipped after a failure
// returns its zero value, which the binding must not use before checking
// arg.err: a check that reads a converted value (d.T, st.k) comes after
// an `if arg.err != nil` that ends the run of conversions before it.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// argReader converts the arguments of the API function what, keeping the
// first error (err).
type argReader struct {
	what string
	err  error
}

func newArgs(what string) *argReader { return &argReader{what: what} }

// fail records err unless an earlier conversion failed.
func (r *argReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// ok reports whether every conversion so far succeeded: a check that
// reads a converted value runs only then.
func (r *argReader) ok() bool { return r.err == nil }

// read runs conv unless an earlier conversion failed, keeping its error.
func read[T any](r *argReader, conv func() (T, error)) T {
	var v T
	if r.err == nil {
		v, r.err = conv()
	}
	return v
}

// state is kernelState: the trace in progress.
func (r *argReader) state(th *tracer.Thread) *state {
	return read(r, func() (*state, error) { return kernelState(th, r.what) })
}

// dst is onChipDst: a destination in SBUF or PSUM.
func (r *argReader) dst(v tracer.Value) lower.Access {
	return read(r, func() (lower.Access, error) { return onChipDst(v, r.what) })
}

// anyDst is dstOf: a destination in any memory.
func (r *argReader) anyDst(v tracer.Value) lower.Access {
	return read(r, func() (lower.Access, error) { return dstOf(v, r.what) })
}

// tile is curTile: an input tile on chip.
func (r *argReader) tile(v tracer.Value, param string) lower.Access {
	return read(r, func() (lower.Access, error) { return curTile(v, r.what, param) })
}

// optTile is tile for an optional input: nil when v is None.
func (r *argReader) optTile(v tracer.Value, param string) *lower.Access {
	if isNone(v) || r.err != nil {
		return nil
	}
	a := r.tile(v, param)
	return &a
}

// onChip is onChipOf: a legacy-API input tile on chip and its mask.
func (r *argReader) onChip(v tracer.Value, param string) (lower.Access, *lower.Mask) {
	if r.err != nil {
		return lower.Access{}, nil
	}
	a, m, err := onChipOf(v, r.what, param)
	r.err = err
	return a, m
}

// anyTile is tileOf: a legacy-API input tile in any memory and its mask.
func (r *argReader) anyTile(v tracer.Value, param string) (lower.Access, *lower.Mask) {
	if r.err != nil {
		return lower.Access{}, nil
	}
	a, m, err := tileOf(v, r.what, param)
	r.err = err
	return a, m
}

// scalar is scalarOf: a number or a [P, 1] tile.
func (r *argReader) scalar(v tracer.Value, param string) lower.Scalar {
	return read(r, func() (lower.Scalar, error) { return scalarOf(v, r.what, param) })
}

// alu is opArg: op= as an ALU operation.
func (r *argReader) alu(v tracer.Value) string {
	return read(r, func() (string, error) { return opArg(v, r.what) })
}

// mask is maskOf: mask= (None: no mask).
func (r *argReader) mask(v tracer.Value) lower.Mask {
	return read(r, func() (lower.Mask, error) { return maskOf(v) })
}

// optDtype is optDtype: dtype= (None: def).
func (r *argReader) optDtype(v tracer.Value, def bir.Dtype) bir.Dtype {
	return read(r, func() (bir.Dtype, error) { return optDtype(v, def) })
}

// engine is engineArg: engine= (None: def), one of allowed.
func (r *argReader) engine(v tracer.Value, def bir.Engine, allowed ...bir.Engine) bir.Engine {
	return read(r, func() (bir.Engine, error) { return engineArg(v, def, r.what, allowed...) })
}

// enum is enumArg: a member of the nisa enum e (None: def).
func (r *argReader) enum(v tracer.Value, e *enumClass, def, param string) string {
	return read(r, func() (string, error) { return enumArg(v, e, def, r.what, param) })
}

// int is tracer.AsInt64: a Python integer.
func (r *argReader) int(th *tracer.Thread, v tracer.Value) int64 {
	return read(r, func() (int64, error) { return tracer.AsInt64(th, v) })
}

// written is the end of a current-API binding: the lowering's result
// (or its error, converted) written into dst.
func written(res *lower.Result, err error, d lower.Access, what string) (tracer.Value, error) {
	if err != nil {
		return nil, convert(err)
	}
	return write(res, d, what)
}

// pending is the end of a legacy-API binding: the lowering's result (or
// its error, converted) as a tensor made at the call.
func pending(th *tracer.Thread, st *state, res *lower.Result, err error) (tracer.Value, error) {
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, res, th.CallPos()), nil
}

// act is op= as an activation function (nl.exp, nl.tanh, ...); the error
// names op, then examples.
func (r *argReader) act(op tracer.Value, examples string) string {
	if r.err != nil {
		return ""
	}
	o, ok := op.(*Op)
	if !ok || o.act == "" {
		r.err = nkiErrorf("%s: op=%s is not an activation function%s", r.what, tracer.Repr(op), examples)
		return ""
	}
	return o.act
}

// axes is axesOf: axis= as a list of free axes.
func (r *argReader) axes(th *tracer.Thread, v tracer.Value) []int {
	return read(r, func() ([]int, error) { return axesOf(th, v) })
}

// pattern is patternOf: an access pattern of [step, num] pairs.
func (r *argReader) pattern(th *tracer.Thread, v tracer.Value) [][2]int64 {
	return read(r, func() ([][2]int64, error) { return patternOf(th, v, r.what) })
}

// dtype is dtypeOf: a required dtype=.
func (r *argReader) dtype(v tracer.Value) bir.Dtype {
	return read(r, func() (bir.Dtype, error) { return dtypeOf(v) })
}

// shape is shapeOf: a shape tuple and its partition count.
func (r *argReader) shape(th *tracer.Thread, v tracer.Value) ([]int64, int) {
	if r.err != nil {
		return nil, 0
	}
	s, n, err := shapeOf(th, v, r.what)
	r.err = err
	return s, n
}

// optOnChip is onChip for an optional input: nil when v is None (its
// mask is not used).
func (r *argReader) optOnChip(v tracer.Value, param string) *lower.Access {
	if isNone(v) || r.err != nil {
		return nil
	}
	a, _ := r.onChip(v, param)
	return &a
}

// index is toIndex for param: an affine expression of nl.arange grids.
func (r *argReader) index(th *tracer.Thread, v tracer.Value, param string) lower.Index {
	if r.err != nil {
		return lower.Index{}
	}
	x, ok, err := toIndex(th, v)
	switch {
	case err != nil:
		r.err = err
	case !ok:
		r.err = typeErrorf("%s: %s must be an affine expression of nl.arange grids, not %s", r.what, param, v.Type())
	}
	return x
}

// lockstep is checkLockstep: a must have dst's partitions and elements
// per partition.
func (r *argReader) lockstep(dst, a lower.Access, param string) {
	if r.err == nil {
		r.err = checkLockstep(r.what, dst, a, param)
	}
}

// top8 checks the max8 family's shapes (top8).
func (r *argReader) top8(data, eight lower.Access, param string) {
	if r.err == nil {
		r.err = top8(r.what, data, eight, param)
	}
}

// operand is scalarOperand: an immediate or a [P, 1] tile (None: unset).
func (r *argReader) operand(v tracer.Value, param string) scalarOpd {
	return read(r, func() (scalarOpd, error) { return scalarOperand(v, r.what, param) })
}

// reduceRes is reduceRes: an optional [rows, 1] accumulator readout.
func (r *argReader) reduceRes(v tracer.Value, rows int64) *lower.Access {
	return read(r, func() (*lower.Access, error) { return reduceRes(v, r.what, rows) })
}

// reduceCmd is reduceCmdOf: reduce_cmd= (None: reset_reduce with a
// readout, else def).
func (r *argReader) reduceCmd(v tracer.Value, hasRes bool, def string) string {
	return read(r, func() (string, error) { return reduceCmdOf(v, hasRes, def, r.what) })
}

// built is the end of a binding lowered with a bir.Builder call: emit
// the instruction what, which reads and writes the accesses given, with
// the kernel k for its operands.
func built(st *state, what string, reads, writes []lower.Access, emit func(b *bir.Builder, k *lower.Kernel)) (tracer.Value, error) {
	k := st.k
	return tracer.None, convert(k.Build(what, reads, writes, func(b *bir.Builder) error {
		emit(b, k)
		return nil
	}))
}

// float is tracer.AsFloat64: a Python number.
func (r *argReader) float(th *tracer.Thread, v tracer.Value) float64 {
	return read(r, func() (float64, error) { return tracer.AsFloat64(th, v) })
}
