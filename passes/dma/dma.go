// Package dma holds narwhal's DMA legalization passes, seed 001 ("DMA
// Legalization — Strided / CCE / Generic-Indirect"): the three backend
// passes that turn an over-general DMA opcode into IR the DMA encoders can
// serialize.
//
//	pass                     order  gate            owns                           file
//	lower_generic_indirect   10     -               GenericIndirectLoad/Save 42/44 lower_generic_indirect.go
//	legalize_strided_dma     18     gen-stride-dma  Load 19                        legalize_strided_dma.go
//	legalize_cce_dma         19     -               DMACopy 32 (mode CCE)          legalize_cce_dma.go
//
// This file is the skeleton the three share (the seed's "shared pass
// skeleton"): BackendPass::run visits "main" first, then every other
// function; IRVisitor::visit walks each block in program order, recursing
// into the bodies of Loop (105), DynamicForLoop (106) and DoWhile (108),
// and dispatches the one opcode family the pass owns. Opcode ownership is
// disjoint, so no instruction is touched by two of the passes, and none of
// them assigns a DMA queue or a DGE engine (later passes do).
//
// Registering the passes. The pass table is package pipeline's; the three
// entries are the exported Pass values, in the seeds' order:
//
//	Passes: []pass.Pass{ ..., dma.LowerGenericIndirectPass, dma.LegalizeStridedDMAPass, dma.LegalizeCCEDMAPass, ... }
//
// Each pass is also a plain function on a module (LowerGenericIndirect,
// LegalizeStridedDMA, LegalizeCCEDMA) for tests and tools.
//
// Decisions shared by the three passes, where the seed is silent:
//
//   - Rewriting in place. A rewritten instruction keeps its id and becomes
//     the last instruction of its replacement (the TensorCopy that writes
//     the strided load's destination, the remainder of a CCE split, the
//     final IndirectLoad/IndirectSave), because that instruction writes
//     what the original wrote: every dependency another instruction has on
//     the original stays correct without being searched for.
//   - Dependencies. When the rewritten instruction has dependency records
//     (a BIR-JSON input that carries them), every new instruction inherits
//     them (conservative: each new instruction reads a subset of what the
//     original read) and each step of the replacement gets a FLOW
//     dependency on the step before, so the chain stays ordered for a
//     scheduler. An instruction without dependencies (a module whose
//     dependencies are computed later, or erased by FullUnroll level 2)
//     gets none.
//   - Predicates. New instructions carry the rewritten instruction's
//     predicate: the replacement runs exactly where the original did.
//   - Names. New names are built from the original's as the seed gives
//     them. A generated instruction name that an existing instruction
//     already holds gets a "_<k>" suffix (the passes scan, once per
//     function that has a rewrite, the names containing their markers);
//     tensor and location names are checked against the function's name
//     tables. An unnamed instruction is named "inst<id>" in derived names.
//   - Cost. The walk is linear: each block is rebuilt at most once (one
//     ReplaceBlockInsts), instructions the pass leaves alone cost a type
//     switch and allocate nothing; only rewrites allocate (new names,
//     tensors and locations).
//   - Errors name the function, the instruction and its opcode, and what
//     was wanted ("function main, instruction gather
//     (GenericIndirectLoad): ..."); a violated seed assertion is an error,
//     never a panic. Thresholds that make the seed leave an instruction
//     alone (R2/R4 of the strided pass) are log lines and counters, not
//     errors of the pass; the verifier reports the loads left alone at
//     the stage the strided pass produces (strided-load).
//   - Verifier rules. The rules the passes promise are package verify's:
//     cce-sources (checkCCEDMALegality: num_arguments() <=
//     MaxCceDmaSource under StageCCELegal or the completion attribute),
//     indirect-shape (checkIndirectShape on GenericIndirectLoad/Save),
//     tensor-indirection (checkTensorIndirection on IndirectLoad/Save's
//     address AP), indirect-lowered (StageIndirectLowered) and
//     strided-load (StageStridedLegal: Loads from DRAM are
//     partition-contiguous, arch.PartitionContiguous). The tests verify
//     every result at the stage the pass produces.
//
// Performance (BenchmarkPasses1M, a straight-line block of DMA
// instructions of which one in eight is rewritten, on the 2-core shared
// build machine; CPU ns per input instruction, 250k / 1M instructions):
//
//	lower_generic_indirect   840 / 970   (nothing to do: 8)
//	legalize_strided_dma     480 / 580   (nothing to do: 26)
//	legalize_cce_dma         710 / 900   (nothing to do: 24)
//
// The walk alone costs 8-26 ns per instruction and allocates nothing per
// instruction. A rewrite costs a few microseconds: it adds instructions,
// operands, tensors, locations and names, and the one-time growth of the
// function's tables (a copy of the operand table, hundreds of megabytes
// at a million instructions) dominates; the figures per instruction are
// flat from 250k to 1M (linear time, within the machine's noise).
package dma

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
)

// Options configure a run of one of the passes outside the pass manager.
type Options struct {
	// Arch is the machine model; nil means arch.ForModule of the module.
	Arch *arch.Model
	// Logf receives the pass's log lines; nil discards them.
	Logf func(format string, args ...any)
}

// Error is a pass failure on one instruction. errors.As finds it through
// the pass manager's *pass.Error.
type Error struct {
	Pass string  // the pass's registry name
	Func string  // function name
	Inst string  // instruction name
	Op   string  // opcode name
	Msg  string  // what is wrong: the seed's message, then want/have
	Pos  bir.Pos // the instruction's NKI source position, when it has one
}

// ErrorCode is diag.DMALegalize.
func (e *Error) ErrorCode() string { return diag.DMALegalize }

// SourcePos is the instruction's source position (bir.SourcePositioner).
func (e *Error) SourcePos() bir.Pos { return e.Pos }

func (e *Error) Error() string {
	return "function " + e.Func + ", " + e.where()
}

func (e *Error) where() string {
	return "instruction " + e.Inst + " (" + e.Op + "): " + e.Msg
}

// instError is an *Error printed without its function, for the pass
// manager's *pass.Error, which names the function itself.
type instError struct{ e *Error }

func (x instError) Error() string { return x.e.where() }
func (x instError) Unwrap() error { return x.e }

// passError adapts an error of a pass function to the pass manager.
func passError(name string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &pass.Error{Pass: name, Function: e.Func, Err: instError{e}}
	}
	return err
}

func modelFor(m *bir.Module, a *arch.Model) (*arch.Model, error) {
	if a != nil {
		return a, nil
	}
	return arch.ForModule(m)
}

// ---- the visitor ----

// visitor is the seed's IRVisitor: it walks the blocks of a function in
// program order, recursing into loop bodies, and hands each instruction
// whose opcode the pass owns to rewrite. rewrite either leaves the
// instruction alone (false) or appends its replacement - the new
// instructions and the instruction itself, in program order - to out and
// returns true. A block is rebuilt once, after its walk, and only if
// something in it was rewritten.
type visitor struct {
	f       *bir.Function
	owns    func(bir.Opcode) bool
	rewrite func(i bir.InstID) (bool, error)
	out     []bir.InstID
}

func (v *visitor) function(f *bir.Function) error {
	v.f = f
	for _, b := range f.Top {
		if err := v.block(b); err != nil {
			return err
		}
	}
	return nil
}

func (v *visitor) block(b bir.BlockID) error {
	f := v.f
	old := f.Block(b).Insts
	var list []bir.InstID
	for k, i := range old {
		op := f.Inst(i).Op
		switch {
		case op.IsLoop():
			if f.Inst(i).Aux >= 0 {
				for _, body := range f.Loop(i).Body {
					if err := v.block(body); err != nil {
						if list != nil {
							f.ReplaceBlockInsts(b, append(list, old[k:]...))
						}
						return err
					}
				}
			}
		case v.owns(op):
			v.out = v.out[:0]
			changed, err := v.rewrite(i)
			if err != nil {
				// rewrite validates before it mutates: i is unchanged.
				if list != nil {
					f.ReplaceBlockInsts(b, append(list, old[k:]...))
				}
				return err
			}
			if changed {
				if list == nil {
					list = make([]bir.InstID, k, len(old)+len(v.out)+len(old)/16)
					copy(list, old[:k])
				}
				list = append(list, v.out...)
				continue
			}
		}
		if list != nil {
			list = append(list, i)
		}
	}
	if list != nil {
		f.ReplaceBlockInsts(b, list)
	}
	return nil
}

// ---- dependencies and predicates ----

// newInst creates an instruction that stands in for part of rewritten
// instruction orig: it carries orig's predicate and source position and,
// when orig has dependencies (hasDeps, read before orig was changed), a
// copy of them plus a FLOW dependency on prev (the previous step of the
// chain, or bir.NoInst).
func newInst(f *bir.Function, op bir.Opcode, name bir.Sym, eng bir.Engine, ins, outs []bir.Operand, attrs bir.AttrID, orig bir.InstID, deps []bir.Dep, prev bir.InstID) bir.InstID {
	id := f.NewInstSym(op, name, eng, ins, outs, attrs)
	f.Inst(id).Pred = f.Inst(orig).Pred
	f.InheritPos(id, orig)
	for _, d := range deps {
		f.AddDep(id, d)
	}
	if deps != nil && prev != bir.NoInst {
		f.AddDep(id, bir.Dep{On: prev, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	}
	return id
}

// origDeps returns a copy of i's dependencies, or nil when it has none.
func origDeps(f *bir.Function, i bir.InstID) []bir.Dep {
	if !f.HasDeps(i) {
		return nil
	}
	return f.Deps(i)
}

// linkLast makes the rewritten instruction depend on the last new step.
func linkLast(f *bir.Function, i bir.InstID, deps []bir.Dep, prev bir.InstID) {
	if deps != nil && prev != bir.NoInst {
		f.AddDep(i, bir.Dep{On: prev, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	}
}

// ---- table growth ----

// reserveFor grows f's instruction, operand, tensor and location tables
// for what the rewrites of a function will add (counted by the pass before
// its first rewrite in the function), so that a function of millions of
// instructions is not copied table by table as it grows.
func reserveFor(f *bir.Function, insts, operands, tensors int) {
	f.Reserve(insts, operands)
	f.ReserveTensors(tensors, tensors)
	// Names of new instructions: the original's plus a suffix of about 16
	// bytes.
	f.Module().ReserveSyms(insts, 40*insts)
}

// ---- names ----

// nameGuard hands out instruction names that no live instruction of the
// function holds. Every generated name contains one of the pass's
// markers ("_ReadVarAddr", "-copy", "_imm_output_", ...); the guard
// collects, once per function and only when the function has a rewrite,
// the existing names that contain a marker, and gives a generated name
// that collides with one of them a "_<k>" suffix.
type nameGuard struct {
	markers  [][]byte
	f        *bir.Function
	reserved map[string]struct{}
}

func newNameGuard(markers ...string) nameGuard {
	g := nameGuard{}
	for _, s := range markers {
		g.markers = append(g.markers, []byte(s))
	}
	return g
}

func (g *nameGuard) reset(f *bir.Function) {
	g.f = f
	g.reserved = nil
}

func (g *nameGuard) scan() {
	g.reserved = map[string]struct{}{}
	m := g.f.Module()
	g.f.Walk(func(i bir.InstID) bool {
		name := m.StrBytes(g.f.Inst(i).Name)
		for _, mk := range g.markers {
			if bytes.Contains(name, mk) {
				g.reserved[string(name)] = struct{}{}
				break
			}
		}
		return true
	})
}

// appendBase appends the name of i for derived names ("inst<id>" when
// the instruction is unnamed).
func (g *nameGuard) appendBase(dst []byte, i bir.InstID) []byte {
	name := g.f.Module().StrBytes(g.f.Inst(i).Name)
	if len(name) == 0 {
		return strconv.AppendInt(append(dst, "inst"...), int64(i), 10)
	}
	return append(dst, name...)
}

// sym stores name (built in a caller's buffer) as a fresh symbol, suffixed
// when it collides with a reserved name.
func (g *nameGuard) sym(name []byte) bir.Sym {
	if g.reserved == nil {
		g.scan()
	}
	if _, taken := g.reserved[string(name)]; !taken {
		return g.f.Module().NewSymBytes(name)
	}
	n := len(name)
	for k := 1; ; k++ {
		name = strconv.AppendInt(append(name[:n], '_'), int64(k), 10)
		if _, taken := g.reserved[string(name)]; !taken {
			g.reserved[string(name)] = struct{}{}
			return g.f.Module().NewSymBytes(name)
		}
	}
}

// newScratch adds a tensor of one location (named name, its tensor
// name+"_set") with the given memory, dtype and shape [partitions,
// free...], and returns the location.
func newScratch(f *bir.Function, name string, mt bir.MemoryType, kind bir.TensorKind, dt bir.Dtype, shape []int64) (bir.LocID, error) {
	class := bir.ClassTensor
	switch mt {
	case bir.MemSB:
		class = bir.ClassNeuronSBTensor
	case bir.MemPSUM:
		class = bir.ClassNeuronPSUMTensor
	}
	t, err := f.AddTensor(bir.Tensor{Name: name + "_set", Kind: kind, Class: class, Dtype: dt, Shape: shape})
	if err != nil {
		return bir.NoLoc, err
	}
	free := int64(1)
	for _, d := range shape[1:] {
		free *= d
	}
	return f.AddLoc(t, bir.MemLoc{Name: name, Type: mt, Partitions: shape[0], Bytes: free * dt.Size()})
}

// ---- operands ----

// apLocs returns the locations an AP operand may address: a physical AP's
// location; a symbolic AP's block location when its block index is a
// constant, else every location of its tensor. ok is false for an operand
// that is not an access pattern or names nothing valid.
func apLocs(f *bir.Function, o *bir.Operand, buf []bir.LocID) ([]bir.LocID, bool) {
	buf = buf[:0]
	switch o.Kind {
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() || f.Loc(l).Dead {
			return nil, false
		}
		return append(buf, l), true
	case bir.OpdSymAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() || f.Tensor(t).Dead || len(f.Tensor(t).Locs) == 0 {
			return nil, false
		}
		m := f.Module()
		if id := o.BlockExpr(); int(id) >= 0 && int(id) < m.NumExprs() {
			if e := m.Expr(id); e.IsConst() {
				if l, ok := f.LocForBlock(t, e.Const); ok {
					return append(buf, l), true
				}
			}
		}
		return append(buf, f.Tensor(t).Locs...), true
	}
	return nil, false
}

// memOf returns the memory type of an AP operand's location(s) (the first
// location of a symbolic AP's tensor: a tensor lives in one memory).
func memOf(f *bir.Function, o *bir.Operand) (bir.MemoryType, bool) {
	var buf [1]bir.LocID
	locs, ok := apLocs(f, o, buf[:0])
	if !ok || len(locs) == 0 {
		return 0, false
	}
	return f.Loc(locs[0]).Type, true
}

// constOffset returns an AP operand's element offset when it is a
// constant (always for a physical AP).
func constOffset(m *bir.Module, o *bir.Operand) (int64, bool) {
	switch o.Kind {
	case bir.OpdPhysAP:
		return o.Offset, true
	case bir.OpdSymAP:
		id := o.OffsetExpr()
		if int(id) < 0 || int(id) >= m.NumExprs() {
			return 0, false
		}
		if e := m.Expr(id); e.IsConst() {
			return e.Const, true
		}
	}
	return 0, false
}

// offsetExpr returns an AP operand's element offset as an expression.
func offsetExpr(m *bir.Module, o *bir.Operand) affine.Expr {
	if o.Kind == bir.OpdSymAP {
		return m.Expr(o.OffsetExpr())
	}
	return affine.Const(o.Offset)
}

// shifted returns o with its element offset moved by delta and its pattern
// replaced by pat.
func shifted(m *bir.Module, o bir.Operand, delta int64, pat bir.PatternID) bir.Operand {
	o.Pattern = pat
	if delta == 0 {
		return o
	}
	if o.Kind == bir.OpdSymAP {
		o.Offset = int64(m.InternExpr(affine.AddConst(m.Expr(o.OffsetExpr()), delta)))
	} else {
		o.Offset += delta
	}
	return o
}

// validAP reports whether o is a physical or symbolic AP whose references
// are in range (the verifier reports the others; the passes leave them
// alone).
func validAP(f *bir.Function, o *bir.Operand) bool {
	m := f.Module()
	if int(o.Pattern) < 0 || int(o.Pattern) >= m.NumPatterns() || !o.Dtype.Valid() {
		return false
	}
	switch o.Kind {
	case bir.OpdPhysAP:
		return int(o.Ref) >= 0 && int(o.Ref) < f.NumLocs()
	case bir.OpdSymAP:
		return int(o.Ref) >= 0 && int(o.Ref) < f.NumTensors() &&
			int(o.Expr) >= 0 && int(o.Expr) < m.NumExprs() &&
			int(o.OffsetExpr()) >= 0 && int(o.OffsetExpr()) < m.NumExprs()
	}
	return false
}

// ---- patterns ----

// freeExtent returns the lowest and highest element, relative to the
// first, that the free pairs (1..) of p reach.
func freeExtent(p bir.Pattern) (lo, hi int64) {
	for _, q := range p[min(1, len(p)):] {
		if q.Num <= 1 {
			continue
		}
		if s := q.Step * (q.Num - 1); s > 0 {
			hi += s
		} else {
			lo += s
		}
	}
	return lo, hi
}

// freeElems returns the product of the nums of pairs 1.. of p.
func freeElems(p bir.Pattern) int64 {
	n := int64(1)
	for _, q := range p[min(1, len(p)):] {
		n *= q.Num
	}
	return n
}

// contiguousRun returns the number of elements of the innermost run of
// p's free pairs (1..) that walks consecutive elements, and the index of
// the first pair of that run: pairs [k, len(p)) walk
// first, first+1, ..., first+run-1 in order. Pairs of num 1 never break a
// run. run is 1 when the innermost pair with num > 1 has a step other
// than 1 (k is then len(p)), and freeElems(p) when every free pair belongs
// to the run.
func contiguousRun(p bir.Pattern) (run int64, k int) {
	run, k = 1, len(p)
	for d := len(p) - 1; d >= 1; d-- {
		q := p[d]
		if q.Num == 1 {
			k = d
			continue
		}
		if q.Step != run {
			break
		}
		run *= q.Num
		k = d
	}
	return run, k
}

// ---- logging ----

// logLimit bounds the per-instruction log lines of one reason per run;
// counters keep the full numbers.
const logLimit = 20

type logger struct {
	logf  func(string, ...any)
	count map[string]int
}

func (l *logger) printf(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
	}
}

// note logs a per-instruction line under reason, up to logLimit of them.
func (l *logger) note(reason, format string, args ...any) {
	if l.logf == nil {
		return
	}
	if l.count == nil {
		l.count = map[string]int{}
	}
	l.count[reason]++
	if l.count[reason] <= logLimit {
		l.logf(format, args...)
	}
}

// flush logs how many lines of each reason were left out.
func (l *logger) flush() {
	for _, r := range slices.Sorted(maps.Keys(l.count)) {
		if n := l.count[r] - logLimit; n > 0 {
			l.logf("... and %d more instructions left alone (%s)", n, r)
		}
	}
}

func instErrorf(passName string, f *bir.Function, i bir.InstID, format string, args ...any) *Error {
	return &Error{Pass: passName, Func: f.Name, Inst: f.InstName(i), Op: f.OpName(i), Msg: fmt.Sprintf(format, args...), Pos: f.InstPos(i)}
}
