package bir

import (
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Builder constructs a function with a few readable lines per instruction:
//
//	m := bir.NewModule("trn2")
//	b := bir.NewBuilder(m, "main")
//	x := b.Input("x", bir.Float32, 128, 512)
//	z := b.Output("z", bir.Float32, 128, 512)
//	t := b.SBUF("t", bir.Float32, 128, 512)
//	b.Load("ld", t.All(), x.All())
//	b.TensorScalar("scale", bir.EngDVE, t.All(), t.All(), "mult", 2, "bypass", 0)
//	b.Save("st", z.All(), t.All())
//	if err := b.Err(); err != nil { ... }
//
// Loops nest with closures: b.Loop("i", 0, 4, 1, func(i affine.Expr) {...}).
// The first error is kept and every later call is a no-op; Err returns it.
type Builder struct {
	M     *Module
	F     *Function
	cur   BlockID
	err   error
	count int
	pos   PosID
}

// NewBuilder creates function name in m (with one top-level block "Block1")
// and returns a builder appending to it.
func NewBuilder(m *Module, name string) *Builder {
	b := &Builder{M: m}
	f, err := m.NewFunction(name)
	if err != nil {
		b.err = err
		f = newFunction(m, name)
	}
	b.F = f
	b.cur = f.NewBlock("Block1", NoInst)
	return b
}

// BuilderFor returns a builder appending to block blk of an existing function.
func BuilderFor(f *Function, blk BlockID) *Builder {
	return &Builder{M: f.m, F: f, cur: blk}
}

// At sets the source position of the instructions appended from now on
// (the zero Pos: none). Kernels written with the builder may call it with
// their own source lines, as the KLR code generator does with NKI's.
func (b *Builder) At(p Pos) *Builder {
	b.pos = b.M.InternPos(p)
	return b
}

// Err returns the first error.
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("builder: function %s: %s", b.F.Name, fmt.Sprintf(format, args...))
	}
}

// Block returns the block being appended to.
func (b *Builder) Block() BlockID { return b.cur }

// T is a tensor handle: the tensor, its first location and element type.
type T struct {
	b     *Builder
	ID    TensorID
	Loc   LocID
	Dtype Dtype
	Shape []int64
}

// Tensor declares a tensor of the given memory type and shape ([partitions,
// free...] for on-chip memories; any row-major shape for DRAM) with one
// location of the same name; the set is named name+"_set" as in BIR-JSON.
func (b *Builder) Tensor(name string, mt MemoryType, kind TensorKind, dt Dtype, shape ...int64) T {
	return b.tensor(name, mt, kind, dt, 1, shape)
}

// BlockTensor declares a block tensor with nblocks blocks of the given
// shape, with a single template location (FullUnroll generates the
// per-block "_sub<b>" locations).
func (b *Builder) BlockTensor(name string, mt MemoryType, dt Dtype, nblocks int64, shape ...int64) T {
	return b.tensor(name, mt, KindInternal, dt, nblocks, shape)
}

func (b *Builder) tensor(name string, mt MemoryType, kind TensorKind, dt Dtype, nblocks int64, shape []int64) T {
	if b.err != nil {
		return T{b: b, ID: NoTensor, Loc: NoLoc, Dtype: dt}
	}
	if len(shape) == 0 {
		b.fail("tensor %s: empty shape", name)
		return T{b: b, ID: NoTensor, Loc: NoLoc, Dtype: dt}
	}
	class := ClassTensor
	switch mt {
	case MemSB:
		class = ClassNeuronSBTensor
	case MemPSUM:
		class = ClassNeuronPSUMTensor
	}
	t := Tensor{Name: name + "_set", Kind: kind, Class: class, Dtype: dt, Shape: append([]int64(nil), shape...)}
	if nblocks > 1 {
		t.IsBlock, t.NBlocks = true, nblocks
	}
	id, err := b.F.AddTensor(t)
	if err != nil {
		b.err = err
		return T{b: b, ID: NoTensor, Loc: NoLoc, Dtype: dt}
	}
	free := int64(1)
	for _, d := range shape[1:] {
		free *= d
	}
	l, err := b.F.AddLoc(id, MemLoc{Name: name, Type: mt, Partitions: shape[0], Bytes: free * dt.Size()})
	if err != nil {
		b.err = err
	}
	return T{b: b, ID: id, Loc: l, Dtype: dt, Shape: append([]int64(nil), shape...)}
}

// Input declares a DRAM kernel input.
func (b *Builder) Input(name string, dt Dtype, shape ...int64) T {
	return b.Tensor(name, MemInput, KindInput, dt, shape...)
}

// Output declares a DRAM kernel output.
func (b *Builder) Output(name string, dt Dtype, shape ...int64) T {
	return b.Tensor(name, MemOutput, KindOutput, dt, shape...)
}

// DRAM declares an internal DRAM tensor.
func (b *Builder) DRAM(name string, dt Dtype, shape ...int64) T {
	return b.Tensor(name, MemDRAM, KindInternal, dt, shape...)
}

// SBUF declares an internal SBUF tensor [partitions, free...].
func (b *Builder) SBUF(name string, dt Dtype, shape ...int64) T {
	return b.Tensor(name, MemSB, KindInternal, dt, shape...)
}

// PSUM declares an internal PSUM tensor [partitions, free...].
func (b *Builder) PSUM(name string, dt Dtype, shape ...int64) T {
	return b.Tensor(name, MemPSUM, KindInternal, dt, shape...)
}

// rowMajor returns the row-major [step, num] pairs of a shape.
func rowMajor(shape []int64) Pattern {
	p := make(Pattern, len(shape))
	step := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		p[i] = APPair{Step: step, Num: shape[i]}
		step *= shape[i]
	}
	return p
}

// Pat builds and interns a pattern from [step, num] pairs.
func (b *Builder) Pat(pairs ...[2]int64) PatternID {
	var buf [maxInlinePairs]APPair
	p := Pattern(buf[:0])
	if len(pairs) > maxInlinePairs {
		p = make(Pattern, 0, len(pairs))
	}
	for _, q := range pairs {
		p = append(p, APPair{Step: q[0], Num: q[1]})
	}
	return b.M.InternPattern(p)
}

// All returns a physical AP covering the whole tensor in row-major order
// (for on-chip tensors pair 0 walks partitions with step = elements per
// partition, the partition-contiguous form).
func (t T) All() Operand {
	if t.ID == NoTensor {
		return Operand{}
	}
	return PhysAP(t.Loc, t.Dtype, 0, t.b.M.InternPattern(rowMajor(t.Shape)))
}

// AP returns a physical AP on the tensor's location with an explicit
// element offset and [step, num] pairs.
func (t T) AP(offset int64, pairs ...[2]int64) Operand {
	if t.ID == NoTensor {
		return Operand{}
	}
	return PhysAP(t.Loc, t.Dtype, offset, t.b.Pat(pairs...))
}

// Free returns the elements per partition (row length) of a 2-D view.
func (t T) Free() int64 {
	n := int64(1)
	for _, d := range t.Shape[1:] {
		n *= d
	}
	return n
}

// Tile returns the [np x nf] tile at partition p0, free offset f0 of a
// tensor viewed as [partitions, free].
func (t T) Tile(p0, np, f0, nf int64) Operand {
	e := t.Free()
	return t.AP(p0*e+f0, [2]int64{e, np}, [2]int64{1, nf})
}

// Sym returns a symbolic AP: block index and element offset are affine
// expressions over loop axes, resolved per iteration.
func (t T) Sym(block, offset affine.Expr, pairs ...[2]int64) Operand {
	if t.ID == NoTensor {
		return Operand{}
	}
	m := t.b.M
	return SymAP(t.ID, t.Dtype, m.InternExpr(block), m.InternExpr(offset), t.b.Pat(pairs...))
}

// As reinterprets an AP operand with another dtype.
func As(o Operand, dt Dtype) Operand { o.Dtype = dt; return o }

// Imm returns a float immediate operand (fp32).
func Imm(v float64) Operand { return ImmF(v, Float32) }

// Inst appends a generic instruction. An empty name gets an automatic one.
func (b *Builder) Inst(op Opcode, name string, eng Engine, ins, outs []Operand, attrs AttrSet) InstID {
	if b.err != nil {
		return NoInst
	}
	if name == "" {
		b.count++
		name = op.String() + "_" + strconv.Itoa(b.count)
	}
	id := b.F.NewInst(op, name, eng, ins, outs, attrs)
	b.F.insts[id].Pos = b.pos
	b.F.Append(b.cur, id)
	return id
}

// Loop appends a static loop over [lb, ub) step stride and builds its body
// with fn, which receives the axis as an expression.
func (b *Builder) Loop(axis string, lb, ub, stride int64, fn func(i affine.Expr)) InstID {
	return b.loop(OpLoop, axis, lb, ub, stride, fn)
}

// DynamicLoop is Loop as a DynamicForLoop bounded by its axis (no
// register operands): a loop the hardware iterates at run time, which
// FullUnroll's default level keeps (NKI's nl.dynamic_range with constant
// bounds).
func (b *Builder) DynamicLoop(axis string, lb, ub, stride int64, fn func(i affine.Expr)) InstID {
	return b.loop(OpDynamicForLoop, axis, lb, ub, stride, fn)
}

func (b *Builder) loop(op Opcode, axis string, lb, ub, stride int64, fn func(i affine.Expr)) InstID {
	if b.err != nil {
		return NoInst
	}
	if stride <= 0 {
		b.fail("loop %s: stride %d must be positive", axis, stride)
		return NoInst
	}
	id, ax := b.F.NewLoop(op, "loop_"+axis, axis, lb, ub, stride)
	b.F.insts[id].Pos = b.pos
	b.F.Append(b.cur, id)
	body := b.F.NewBlock("Block_"+axis, id)
	saved := b.cur
	b.cur = body
	fn(affine.Var(ax))
	b.cur = saved
	return id
}

// Load is a DMA from DRAM to on-chip memory.
func (b *Builder) Load(name string, dst, src Operand) InstID {
	return b.Inst(OpLoad, name, EngUnassigned, []Operand{src}, []Operand{dst}, nil)
}

// Save is a DMA from on-chip memory to DRAM.
func (b *Builder) Save(name string, dst, src Operand) InstID {
	return b.Inst(OpSave, name, EngUnassigned, []Operand{src}, []Operand{dst}, nil)
}

// DMACopy is a plain copy DMA.
func (b *Builder) DMACopy(name string, dst, src Operand) InstID {
	return b.Inst(OpDMACopy, name, EngUnassigned, []Operand{src}, []Operand{dst}, Attrs("mode", "Copy"))
}

// CCECopy is a collective-compute DMA: dst = sum_i scales[i] * srcs[i].
func (b *Builder) CCECopy(name string, dst Operand, srcs []Operand, scales []float64) InstID {
	return b.Inst(OpDMACopy, name, EngUnassigned, srcs, []Operand{dst}, Attrs("mode", "CCE", "cce_op", "add", "constants", Floats(scales...)))
}

// TensorTensor is dst = a op b (op: add, subtract, mult, max, ...).
func (b *Builder) TensorTensor(name string, eng Engine, op string, dst, x, y Operand) InstID {
	return b.Inst(OpTensorTensor, name, eng, []Operand{x, y}, []Operand{dst}, Attrs("op", op, "acc", "Idle"))
}

// TensorScalar is dst = (src op0 c0) op1 c1.
func (b *Builder) TensorScalar(name string, eng Engine, dst, src Operand, op0 string, c0 float64, op1 string, c1 float64) InstID {
	return b.Inst(OpTensorScalar, name, eng, []Operand{src}, []Operand{dst},
		Attrs("op0", op0, "const0", Float(c0), "reverse0", false, "op1", op1, "const1", Float(c1), "reverse1", false))
}

// TensorScalarPtr is dst = (src op0 s0[p]) op1 s1[p] with per-partition
// scalars read from memory ([P,1] APs); s1 may be the zero Operand.
func (b *Builder) TensorScalarPtr(name string, eng Engine, dst, src, s0 Operand, op0 string, s1 Operand, op1 string) InstID {
	ins := []Operand{src, s0}
	if s1.Kind.IsAP() && !s1.IsZero() {
		ins = append(ins, s1)
	}
	return b.Inst(OpTensorScalarPtr, name, eng, ins, []Operand{dst},
		Attrs("op0", op0, "reverse0", false, "op1", op1, "reverse1", false))
}

// Activation is dst = fn(src*scale + bias); bias may be the zero Operand
// (no bias), a [P,1] AP or an immediate (NC-v3 and newer).
func (b *Builder) Activation(name, fn string, dst, src Operand, scale float64, bias Operand) InstID {
	ins := []Operand{src}
	if !bias.IsZero() {
		ins = append(ins, bias)
	}
	return b.Inst(OpActivation, name, EngAct, ins, []Operand{dst},
		Attrs("func", fn, "scale", Float(scale), "alpha", Float(0), "acc", "Idle"))
}

// Matmult is dst[M,N] (+)= stationary[K,M]^T @ moving[K,N] on the PE.
// start zeroes the accumulation group, stop ends it.
func (b *Builder) Matmult(name string, dst, stationary, moving Operand, start, stop bool) InstID {
	return b.Inst(OpMatmult, name, EngPE, []Operand{stationary, moving}, []Operand{dst},
		Attrs("start_tensor_calc", start, "stop_tensor_calc", stop))
}

// Transpose is dst[f,p] = src[p,f] (PE: SBUF -> PSUM; DVE: 32x32 blocks).
func (b *Builder) Transpose(name string, eng Engine, dst, src Operand) InstID {
	return b.Inst(OpTranspose, name, eng, []Operand{src}, []Operand{dst}, nil)
}

// TensorCopy is dst = src on an engine.
func (b *Builder) TensorCopy(name string, eng Engine, dst, src Operand) InstID {
	return b.Inst(OpTensorCopy, name, eng, []Operand{src}, []Operand{dst}, nil)
}

// Memset fills dst with value.
func (b *Builder) Memset(name string, eng Engine, dst Operand, value float64) InstID {
	return b.Inst(OpMemset, name, eng, nil, []Operand{dst}, Attrs("mode", "Const", "constant", Float(value)))
}

// Iota fills dst[c, ...] = base + c*channelMultiplier + sum(i_k * step_k)
// over pattern pairs.
func (b *Builder) Iota(name string, dst Operand, base, channelMultiplier int64, pattern ...[2]int64) InstID {
	pl := make([]Value, len(pattern))
	for i, q := range pattern {
		pl[i] = Object(Field{"step", Int(q[0])}, Field{"num", Int(q[1])})
	}
	return b.Inst(OpIota, name, EngPool, nil, []Operand{dst},
		Attrs("base", Int(base), "pattern", List(pl...), "channel_multiplier", Int(channelMultiplier)))
}

// TensorReduce is dst = fold op over the trailing free axes named by axis
// (X, XY, XYZ, XYZW).
func (b *Builder) TensorReduce(name string, eng Engine, op, axis string, dst, src Operand) InstID {
	return b.Inst(OpTensorReduce, name, eng, []Operand{src}, []Operand{dst},
		Attrs("op", op, "axis", axis, "negate", false))
}
