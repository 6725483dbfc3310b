package bir

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Source positions.
//
// Every instruction may carry the position in the user's source (an NKI
// kernel's file:line:col, from KLR) that produced it. Positions are
// interned per module like patterns and attribute sets: Instruction.Pos is
// a PosID (4 bytes; 0 is "no position"), and the module's position table
// holds each distinct Pos once, so a 25M-instruction module unrolled from a
// kernel of a hundred statements holds a hundred positions.
//
// The rule for passes: every instruction a pass creates takes the position
// of the instruction it came from (a clone, a split piece, a spill, a
// synchronization carrier). Function.Clone copies it; for anything built
// with NewInst, NewInstSym or NewLoop call
//
//	f.InheritPos(newInst, origin)
//
// Diagnostics about an instruction name its position (Function.Errorf,
// Function.WrapErr and the verifier's Diag.Pos); diagnostics about a
// tensor or location name the first instruction that touches it
// (Function.TensorPos, Function.LocPos).

// PosID names an interned source position. 0 is "no position".
type PosID int32

// NoPos is the PosID of an instruction without a source position.
const NoPos PosID = 0

// Pos is a source position: a file and a 1-based line and column, and
// optionally where the range ends (EndLine, EndCol; 0 when unknown), as
// KLR's Pos {line, column, lineEnd?, columnEnd?, filename?} gives them. A
// Pos with Line 0 is "no position".
type Pos struct {
	File            string
	Line, Col       int32
	EndLine, EndCol int32
}

// IsKnown reports whether p names a line.
func (p Pos) IsKnown() bool { return p.Line > 0 }

// String renders p as file:line:col, the form editors and terminals
// recognise ("<kernel>" stands for an absent file name, as KLR's own
// printer does; "" for no position).
func (p Pos) String() string {
	if !p.IsKnown() {
		return ""
	}
	f := p.File
	if f == "" {
		f = "<kernel>"
	}
	b := make([]byte, 0, len(f)+16)
	b = append(b, f...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(p.Col), 10)
	return string(b)
}

// ClampPosInt converts a position number from a source that allows wider
// integers (KLR's Nat) to the int32 a Pos holds, saturating.
func ClampPosInt(v uint64) int32 {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(v)
}

// InternPos returns the id of p, adding it if new. A position without a
// line is NoPos.
func (m *Module) InternPos(p Pos) PosID {
	if !p.IsKnown() {
		return NoPos
	}
	if m.posIndex == nil {
		m.poss = []Pos{{}}
		m.posIndex = map[Pos]PosID{}
	}
	if id, ok := m.posIndex[p]; ok {
		return id
	}
	if len(m.poss) >= math.MaxInt32 {
		panic("bir: position table exceeds 2^31 entries")
	}
	id := PosID(len(m.poss))
	m.poss = append(m.poss, p)
	m.posIndex[p] = id
	return id
}

// Pos returns the position of id (the zero Pos for NoPos or an id outside
// the table).
func (m *Module) Pos(id PosID) Pos {
	if id <= 0 || int(id) >= len(m.poss) {
		return Pos{}
	}
	return m.poss[id]
}

// NumPositions returns the number of interned positions (NoPos included).
func (m *Module) NumPositions() int { return max(len(m.poss), 1) }

// ValidPos reports whether id is NoPos or names an entry of the table.
func (m *Module) ValidPos(id PosID) bool {
	return id == NoPos || (id > 0 && int(id) < len(m.poss))
}

// InstPos returns the source position of instruction i.
func (f *Function) InstPos(i InstID) Pos { return f.m.Pos(f.insts[i].Pos) }

// InheritPos gives instruction i the source position of instruction from
// (of the same module: positions are module-wide). Every instruction a
// pass creates takes the position of the instruction it came from.
func (f *Function) InheritPos(i, from InstID) {
	f.insts[i].Pos = f.insts[from].Pos
}

// SetPos gives instruction i the position p (interned).
func (f *Function) SetPos(i InstID, p Pos) {
	f.insts[i].Pos = f.m.InternPos(p)
}

// TensorPos returns the position of the first instruction, in program
// order, with a position that reaches tensor t (a symbolic or register
// access pattern on it, or a physical one on one of its locations): the
// source line a diagnostic about the tensor points at. The zero Pos when
// none has one. It walks the function: use it for diagnostics, not in
// loops over tensors.
func (f *Function) TensorPos(t TensorID) Pos {
	return f.firstPos(func(o *Operand) bool {
		switch o.Kind {
		case OpdSymAP, OpdRegAP:
			return TensorID(o.Ref) == t
		case OpdPhysAP:
			l := LocID(o.Ref)
			return l >= 0 && int(l) < len(f.locs) && f.locs[l].Tensor == t
		}
		return false
	})
}

// LocPos is TensorPos for a memory location: the first instruction with a
// position that names location l physically, else the first that reaches
// its tensor.
func (f *Function) LocPos(l LocID) Pos {
	if l < 0 || int(l) >= len(f.locs) {
		return Pos{}
	}
	if p := f.firstPos(func(o *Operand) bool { return o.Kind == OpdPhysAP && LocID(o.Ref) == l }); p.IsKnown() {
		return p
	}
	if t := f.locs[l].Tensor; t >= 0 && int(t) < len(f.tensors) {
		return f.TensorPos(t)
	}
	return Pos{}
}

func (f *Function) firstPos(match func(*Operand) bool) Pos {
	var found Pos
	f.Walk(func(i InstID) bool {
		in := &f.insts[i]
		if in.Pos == NoPos {
			return true
		}
		n := int(in.NIns) + int(in.NOuts)
		if in.Args < 0 || int(in.Args)+n > len(f.operands) {
			return true
		}
		for k := range f.operands[in.Args : int(in.Args)+n] {
			if match(&f.operands[int(in.Args)+k]) {
				found = f.m.Pos(in.Pos)
				return false
			}
		}
		return true
	})
	return found
}

// PosError is an error at a source position. Its text leads with the
// position, as compilers' diagnostics do:
//
//	kernels.py:28:4: function main, instruction add_3 (TensorTensor): ...
//
// Subject, when set, is what the error is about as data (Function.Errorf,
// TensorErrorf, LocErrorf, WrapErr set it): the position is the subject's
// (known when the error was made, or resolved later from the module by
// Subject.PosIn), never parsed back from the text.
type PosError struct {
	Pos     Pos
	Err     error
	Subject *Subject
}

// Subject is the IR entity an error is about: a function and, in it, an
// instruction, a tensor or a location (NoInst, NoTensor, NoLoc for none).
type Subject struct {
	Func   string
	Inst   InstID
	Tensor TensorID
	Loc    LocID
}

// PosIn returns the source position of the subject in module m: the
// instruction's, or that of the first instruction reaching the tensor or
// location (the zero Pos when m has no such function or entity).
func (s *Subject) PosIn(m *Module) Pos {
	if s == nil || m == nil {
		return Pos{}
	}
	f := m.Func(s.Func)
	if f == nil {
		return Pos{}
	}
	switch {
	case s.Inst >= 0 && int(s.Inst) < len(f.insts):
		return f.InstPos(s.Inst)
	case s.Tensor >= 0 && int(s.Tensor) < len(f.tensors):
		return f.TensorPos(s.Tensor)
	case s.Loc >= 0 && int(s.Loc) < len(f.locs):
		return f.LocPos(s.Loc)
	}
	return Pos{}
}

// SubjectOf returns the subject of the first error in err's chain that
// has one (nil when none does).
func SubjectOf(err error) *Subject {
	for err != nil {
		if pe, ok := err.(*PosError); ok && pe.Subject != nil {
			return pe.Subject
		}
		if se, ok := err.(ErrorSubjecter); ok {
			if s := se.ErrorSubject(); s != nil {
				return s
			}
		}
		err = errors.Unwrap(err)
	}
	return nil
}

func (e *PosError) Error() string {
	if !e.Pos.IsKnown() {
		return e.Err.Error()
	}
	return e.Pos.String() + ": " + e.Err.Error()
}

func (e *PosError) Unwrap() error { return e.Err }

// ErrorSubjecter is implemented by errors of their own type that know the
// IR entity they are about (the allocator's FitError: its function and
// the largest location live at the worst instant).
type ErrorSubjecter interface {
	ErrorSubject() *Subject
}

// SourcePositioner is implemented by errors that know the source position
// they are about (besides *PosError: the verifier's error, which names its
// first diagnostic's).
type SourcePositioner interface {
	SourcePos() Pos
}

// SourcePos returns the error's position.
func (e *PosError) SourcePos() Pos { return e.Pos }

// ErrorPos returns the known position of the first error in err's chain
// that has one (a *PosError or another SourcePositioner; the zero Pos when
// there is none).
func ErrorPos(err error) Pos {
	for err != nil {
		if sp, ok := err.(SourcePositioner); ok {
			if p := sp.SourcePos(); p.IsKnown() {
				return p
			}
		}
		err = errors.Unwrap(err)
	}
	return Pos{}
}

// WrapErr attaches instruction i as err's subject, with its source
// position (err itself when err is nil or already has a subject; a
// position err already carries is kept).
func (f *Function) WrapErr(i InstID, err error) error {
	if err == nil || i < 0 || int(i) >= len(f.insts) {
		return err
	}
	return f.withSubject(&Subject{Func: f.Name, Inst: i, Tensor: NoTensor, Loc: NoLoc}, f.InstPos(i), err)
}

// Errorf formats an error about instruction i, prefixed with "function F,
// instruction NAME (OPCODE): " and carrying i's source position. As with
// fmt.Errorf, a %w verb wraps its error (its code, diag.CodeOf, survives).
func (f *Function) Errorf(i InstID, format string, args ...any) error {
	if i < 0 || int(i) >= len(f.insts) {
		return fmt.Errorf("function %s, instruction #%d: "+format, append([]any{f.Name, i}, args...)...)
	}
	return f.WrapErr(i, fmt.Errorf("function %s, instruction %s (%s): "+format, append([]any{f.Name, f.InstName(i), f.OpName(i)}, args...)...))
}

// TensorErrorf formats an error about tensor t, prefixed with "function F,
// tensor NAME: " and carrying the position of the first instruction that
// reaches it (TensorPos); %w wraps as in Errorf.
func (f *Function) TensorErrorf(t TensorID, format string, args ...any) error {
	if t < 0 || int(t) >= len(f.tensors) {
		return fmt.Errorf("function %s, tensor #%d: "+format, append([]any{f.Name, t}, args...)...)
	}
	return f.withSubject(&Subject{Func: f.Name, Inst: NoInst, Tensor: t, Loc: NoLoc}, f.TensorPos(t), fmt.Errorf("function %s, tensor %s: "+format, append([]any{f.Name, f.tensors[t].Name}, args...)...))
}

// LocErrorf formats an error about location l, prefixed with "function F,
// location NAME: " and carrying the position of the first instruction
// that reaches it (LocPos); %w wraps as in Errorf.
func (f *Function) LocErrorf(l LocID, format string, args ...any) error {
	if l < 0 || int(l) >= len(f.locs) {
		return fmt.Errorf("function %s, location #%d: "+format, append([]any{f.Name, l}, args...)...)
	}
	return f.withSubject(&Subject{Func: f.Name, Inst: NoInst, Tensor: NoTensor, Loc: l}, f.LocPos(l), fmt.Errorf("function %s, location %s: "+format, append([]any{f.Name, f.locs[l].Name}, args...)...))
}

// withSubject wraps err with subject s at position p, unless err already
// has a subject (the innermost one is the most precise). A position err
// already carries wins over p.
func (f *Function) withSubject(s *Subject, p Pos, err error) error {
	if SubjectOf(err) != nil {
		return err
	}
	if q := ErrorPos(err); q.IsKnown() {
		if pe, ok := err.(*PosError); ok {
			// One position prefix: take over the inner error's.
			return &PosError{Pos: q, Err: pe.Err, Subject: s}
		}
		// The inner error prints its position; the subject adds none
		// (ErrorPos still finds the inner one).
		p = Pos{}
	}
	return &PosError{Pos: p, Err: err, Subject: s}
}
