// Package lower is the NKI front end's lowering layer: a Go API that builds
// a kernel as BIR while the tracer (package nki/tracer, driven by the
// Python binding in package nki/api) runs the kernel's Python. It owns
// everything that is BIR: tensors and tiles, index expressions and access
// patterns, masks, kept loops, the SPMD grid, PSUM accumulation groups, the
// instructions each NKI operation becomes, rollback of a speculative loop
// body, and the module's structure. It does not know Python; it is tested
// on its own (lower_test.go) by building kernels through this API and
// running them in the interpreter.
//
// # The module
//
// A kernel under construction is a bir.Module with two functions, the
// structure the KLR path makes (docs/klr.md, passes/translate
// insertCall): the kernel function (kind NKI, named after the Python
// kernel) holding the traced body, and "main", which declares the
// kernel's DRAM inputs and outputs and calls the kernel through one
// NKIKernel instruction whose input_names/output_names bind main's tensors
// to the kernel's. The kernel function is not allocated (its on-chip
// tensors are unplaced, or fixed placements), so no scratchpad is
// reserved; the default pipeline processes both functions unchanged (every
// test of lower_test.go runs it with the verifier after each pass and the
// interpreter equal before and after: pipelineCheck).
//
// # Kernel I/O (Finish)
//
// Every tensor parameter is a DRAM input of main and of the kernel, under
// its parameter name. A parameter the kernel writes is an in/out buffer:
// the kernel gets an output tensor "<name>_out" that a DMA at the kernel's
// start fills from the input, and every read and write of the parameter
// goes to it, so a read after a write (in program order or in a later loop
// iteration) sees the write, and elements the kernel does not write keep
// the caller's values, as NKI's pass-by-reference parameters do; main has
// the input <name> and the output <name>_out. A returned HBM tensor (made
// with nl.ndarray(buffer=nl.shared_hbm/hbm)) becomes an output of the
// kernel and of main under its own name.
//
// # Positions
//
// SetPos sets the source position (file:line:col of the NKI call) that the
// instructions emitted from then on carry (Instruction.Pos), which every
// pass keeps.
package lower

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Kernel is a kernel under construction.
type Kernel struct {
	M *bir.Module
	F *bir.Function // the kernel function

	pos      bir.Pos
	posID    bir.PosID
	cur      bir.BlockID
	top      bir.BlockID
	loops    []*Loop // open kept loops, outermost first
	axisLoop map[affine.Axis]*Loop
	params   []*Tensor
	tensors  []*Tensor
	undo     []func()
	pending  *Result
	accs     []*accState
	zeros    []*zeroState
	ninst    int
	nregs    int
	finished bool
	sticky   error
}

// NewKernel starts a kernel named name for machine archName ("" for the
// default).
func NewKernel(archName, name string) (*Kernel, error) {
	if archName == "" {
		archName = arch.DefaultName
	}
	if _, err := arch.Lookup(archName); err != nil {
		return nil, err
	}
	m := bir.NewModule(archName)
	if name == "" || name == "main" {
		name = "kernel_" + name
	}
	f, err := m.NewFunction(name)
	if err != nil {
		return nil, err
	}
	f.Kind = bir.FuncNKI
	k := &Kernel{M: m, F: f, axisLoop: map[affine.Axis]*Loop{}}
	k.cur = f.NewBlock("Block1", bir.NoInst)
	k.top = k.cur
	return k, nil
}

// SetPos sets the source position of the instructions emitted from now on
// and of the errors raised.
func (k *Kernel) SetPos(p bir.Pos) {
	if p == k.pos {
		return
	}
	k.pos = p
	k.posID = k.M.InternPos(p)
}

// Pos returns the current source position.
func (k *Kernel) Pos() bir.Pos { return k.pos }

// at fills in the current position of a lowering error.
func (k *Kernel) at(err error) error {
	if e, ok := err.(*Error); ok && !e.Pos.IsKnown() {
		e.Pos = k.pos
	}
	return err
}

// Errorf returns an error of the kind at the current position.
func (k *Kernel) Errorf(kind, format string, args ...any) error {
	return k.at(errorf(kind, format, args...))
}

func (k *Kernel) onUndo(fn func()) { k.undo = append(k.undo, fn) }

// Mark is a point in the kernel's construction that Rollback returns to.
type Mark struct{ undo int }

// Mark flushes a pending result and marks the current state.
func (k *Kernel) Mark() Mark {
	k.flush()
	return Mark{undo: len(k.undo)}
}

// Rollback discards everything built since m: instructions, tensors,
// loops and accumulation-group members (a speculative loop-body trace
// that the Looper unrolls instead).
func (k *Kernel) Rollback(m Mark) {
	k.pending = nil
	for i := len(k.undo) - 1; i >= m.undo; i-- {
		k.undo[i]()
	}
	k.undo = k.undo[:m.undo]
}

func (k *Kernel) loopOf(a affine.Axis) *Loop { return k.axisLoop[a] }

// instName returns a fresh instruction name.
func (k *Kernel) instName(base string) string {
	k.ninst++
	return fmt.Sprintf("%s_%d", base, k.ninst)
}

// append adds instruction i at the end of the current block.
func (k *Kernel) append(i bir.InstID) {
	f := k.F
	f.Append(k.cur, i)
	f.Inst(i).Pos = k.posID
	k.onUndo(func() { f.Remove(i) })
}

// Return names a tensor the kernel returns: Key is its output key
// ("return", "return0", ...).
type Return struct {
	Key string
	T   *Tensor
}

// IO is one output of the module: Key (the .npz key: "return", "return0",
// or a parameter name) and Tensor, main's output tensor name.
type IO struct {
	Key    string
	Tensor string
}

// Outputs describes the module's outputs.
type Outputs struct {
	Returns []IO
	Written []IO
}

// Finish completes the kernel: accumulation groups, in/out parameters,
// returned tensors and main. The kernel cannot be extended afterwards.
func (k *Kernel) Finish(returns []Return) (*bir.Module, *Outputs, error) {
	if k.finished {
		return nil, nil, fmt.Errorf("lower: kernel %s finished twice", k.F.Name)
	}
	if err := k.flushErr(); err != nil {
		return nil, nil, err
	}
	if len(k.loops) > 0 {
		return nil, nil, fmt.Errorf("lower: kernel %s: loop over %s still open", k.F.Name, k.loops[len(k.loops)-1].Name)
	}
	k.finished = true
	if err := k.finishAccumulation(); err != nil {
		return nil, nil, err
	}
	f := k.F
	out := &Outputs{}
	seen := map[*Tensor]bool{}
	for _, r := range returns {
		t := r.T
		if t.Mem != HBM {
			return nil, nil, k.at(errorf(KindNKI, "the kernel returns %s, an on-chip tile: a kernel returns HBM tensors (nl.ndarray(..., buffer=nl.shared_hbm))", t.Describe()))
		}
		if seen[t] {
			return nil, nil, k.at(errorf(KindNotSupported, "the kernel returns %s twice", t.Describe()))
		}
		seen[t] = true
		if t.param {
			t.written = true // returned unchanged: its output is a copy
			continue
		}
		if t.nblocks > 1 {
			return nil, nil, k.at(errorf(KindNKI, "the kernel returns %s, made inside a loop (one tensor per iteration)", t.Describe()))
		}
		ts := f.Tensor(t.id)
		ts.Kind = bir.KindOutput
		f.Loc(t.loc).Type = bir.MemOutput
	}
	// In/out parameters: an output tensor filled from the input first.
	outOf := map[*Tensor]*Tensor{}
	for _, p := range k.params {
		if !p.written {
			continue
		}
		o, err := k.inOut(p)
		if err != nil {
			return nil, nil, err
		}
		outOf[p] = o
	}
	// main: the I/O and the call.
	mb := bir.NewBuilder(k.M, "main")
	var ins, outs []bir.Operand
	var inNames, outNames []bir.Value
	for _, p := range k.params {
		h := mb.Input(p.Name, p.Dtype, p.Shape...)
		ins = append(ins, h.All())
		inNames = append(inNames, bir.String(p.Name))
	}
	addOut := func(t *Tensor) string {
		name := f.Loc(t.loc).Name
		h := mb.Output(name, t.Dtype, t.Shape...)
		outs = append(outs, h.All())
		outNames = append(outNames, bir.String(name))
		return name
	}
	mainName := map[*Tensor]string{}
	for _, r := range returns {
		t := r.T
		if o := outOf[t]; o != nil {
			t = o
		}
		if _, ok := mainName[t]; !ok {
			mainName[t] = addOut(t)
		}
		out.Returns = append(out.Returns, IO{Key: r.Key, Tensor: mainName[t]})
	}
	for _, p := range k.params {
		o := outOf[p]
		if o == nil {
			continue
		}
		if _, ok := mainName[o]; !ok {
			mainName[o] = addOut(o)
		}
		out.Written = append(out.Written, IO{Key: p.Name, Tensor: mainName[o]})
	}
	if inNames == nil {
		inNames = []bir.Value{}
	}
	if outNames == nil {
		outNames = []bir.Value{}
	}
	call := mb.Inst(bir.OpNKIKernel, f.Name, bir.EngUnassigned, ins, outs, bir.AttrSet{
		{Key: "func", Val: bir.String(f.Name)},
		{Key: "input_names", Val: bir.List(inNames...)},
		{Key: "output_names", Val: bir.List(outNames...)},
	})
	if err := mb.Err(); err != nil {
		return nil, nil, err
	}
	if id := firstPos(f); id != bir.NoPos {
		mb.F.Inst(call).Pos = id
	}
	k.undo = nil
	return k.M, out, nil
}

// firstPos returns the position of f's first instruction that has one.
func firstPos(f *bir.Function) bir.PosID {
	pos := bir.NoPos
	f.Walk(func(i bir.InstID) bool {
		pos = f.Inst(i).Pos
		return pos == bir.NoPos
	})
	return pos
}

// inOut makes parameter p an in/out buffer: an output tensor, filled from
// the input by a DMA at the kernel's start, takes every access of p.
func (k *Kernel) inOut(p *Tensor) (*Tensor, error) {
	f := k.F
	id, loc, err := k.newTensorID(p.Name+"_out", bir.MemOutput, bir.KindOutput, p.Dtype, 1, p.Shape)
	if err != nil {
		return nil, err
	}
	o := &Tensor{k: k, Name: f.Loc(loc).Name, Mem: HBM, HBM: HBMParam, Dtype: p.Dtype, Shape: slices.Clone(p.Shape), ParDim: -1,
		id: id, loc: loc, tile: slices.Clone(p.Shape), strides: p.strides, nblocks: 1}
	f.Walk(func(i bir.InstID) bool {
		n := len(f.Operands(i))
		for j := 0; j < n; j++ {
			opd := f.Operands(i)[j]
			switch {
			case opd.Kind == bir.OpdPhysAP && bir.LocID(opd.Ref) == p.loc:
				opd.Ref = int32(loc)
			case opd.Kind == bir.OpdSymAP && bir.TensorID(opd.Ref) == p.id:
				opd.Ref = int32(id)
			default:
				continue
			}
			f.SetOperand(i, j, opd)
		}
		return true
	})
	pat := k.M.InternPattern(bir.Pattern{{Step: 1, Num: elemsOf(p.Shape)}})
	cp := f.NewInst(bir.OpDMACopy, k.instName("copy_in_"+p.Name), bir.EngUnassigned,
		[]bir.Operand{bir.PhysAP(p.loc, p.Dtype, 0, pat)}, []bir.Operand{bir.PhysAP(loc, p.Dtype, 0, pat)}, bir.Attrs("mode", "Copy"))
	f.InsertAt(k.top, 0, cp)
	if id := firstPos(f); id != bir.NoPos {
		f.Inst(cp).Pos = id
	}
	return o, nil
}

func elemsOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}
