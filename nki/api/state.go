package api

// The state of one kernel trace, kept on the tracer's Thread (SetLocal),
// and the conversions between tracer values and the lowering layer's.

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

type stateKeyT struct{}

var stateKey stateKeyT

// state is one kernel trace in progress.
type state struct {
	k    *lower.Kernel
	grid []int64
	pids []tracer.Value // the current program ids (Int, or *Index for a kept grid loop)

	clock  uint64
	readAt map[*lower.Tensor]uint64

	// shared_hbm tensors of an SPMD grid traced program by program: the
	// same call in every program makes one tensor.
	shared      map[sharedKey]*lower.Tensor
	sharedCount map[tracer.Pos]int

	// whiles are the `while reg:` loops being traced (register.go).
	whiles []openWhile
	// open: direct allocations are ignored (KernelCall.OpenPlacements).
	open bool
}

type sharedKey struct {
	pos tracer.Pos
	n   int
}

// current returns the trace in progress on th, or nil outside a kernel.
func current(th *tracer.Thread) *state {
	if th == nil {
		return nil
	}
	st, _ := th.Local(stateKey).(*state)
	return st
}

// tick advances the trace's clock (reads and uses of values are stamped
// with it, for the loop rule of TraceLoop).
func (st *state) tick() uint64 {
	st.clock++
	return st.clock
}

// kernel returns the trace in progress, or an error naming the API called
// outside a kernel.
func kernelState(th *tracer.Thread, what string) (*state, error) {
	st := current(th)
	if st == nil {
		return nil, &tracer.Error{Kind: lower.KindNKI, Code: diag.KernelAPI,
			Msg: fmt.Sprintf("%s can only be called while a kernel is traced (inside an @nki.jit function)", what)}
	}
	st.at(th)
	return st, nil
}

func birPos(p tracer.Pos) bir.Pos {
	return bir.Pos{File: p.File, Line: int32(p.Line), Col: int32(p.Col), EndLine: int32(p.EndLine), EndCol: int32(p.EndCol)}
}

func tracerPos(p bir.Pos) tracer.Pos {
	return tracer.Pos{File: p.File, Line: int(p.Line), Col: int(p.Col), EndLine: int(p.EndLine), EndCol: int(p.EndCol)}
}

// convert turns a lowering error into the tracer's: *lower.Error into an
// *tracer.Error of the same kind, message, code and position;
// *lower.NeedConcrete into a *tracer.NeedConcrete whose Vars are the
// loops' *lower.Loop (the Loopers compare them).
func convert(err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *lower.Error:
		te := &tracer.Error{Kind: e.Kind, Msg: e.Msg, Code: e.Code}
		if e.Pos.IsKnown() {
			te.Pos = tracerPos(e.Pos)
		}
		return te
	case *lower.NeedConcrete:
		nc := &tracer.NeedConcrete{What: e.What, Value: e.Value}
		for _, l := range e.Loops {
			nc.Vars = append(nc.Vars, l)
		}
		return nc
	}
	return err
}

func nkiErrorf(format string, args ...any) error {
	return &tracer.Error{Kind: lower.KindNKI, Code: diag.KernelAPI, Msg: fmt.Sprintf(format, args...)}
}

func notSupportedf(format string, args ...any) error {
	return &tracer.Error{Kind: lower.KindNotSupported, Code: diag.KernelUnsupported, Msg: fmt.Sprintf(format, args...)}
}

func typeErrorf(format string, args ...any) error {
	return tracer.Errorf("TypeError", format, args...)
}

// at sets the position of the instructions emitted next to the call being
// evaluated. Where the tracer knows no call (an operator at the top of the
// kernel body), the previous position stays: the operator's operands were
// made on its line.
func (st *state) at(th *tracer.Thread) {
	if p := th.CallPos(); p.IsKnown() {
		st.k.SetPos(birPos(p))
	}
}
