package tiling

// Analysis: which instructions are macro operations, what each operand
// is (a whole on-chip tensor, a per-row column, a broadcast row, a DRAM
// region, a matmul operand), and which instructions the tiler must
// rewrite together (the closure over the on-chip tensors they share).

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// opClass is what a macro instruction does, for the tiler.
type opClass uint8

const (
	clsLoad   opClass = iota // DMA from DRAM into an on-chip tensor
	clsSave                  // DMA from an on-chip tensor to DRAM
	clsElem                  // elementwise: [R, C] (or [R, 1]) in, the same out
	clsReduce                // TensorReduce along the free axis: [R, C] -> [R, 1]
	clsMatmul                // Matmult: stationary [K, M], moving [K, N] -> PSUM [M, N]
)

var classNames = [...]string{"load", "save", "elementwise", "reduce", "matmul"}

func (c opClass) String() string { return classNames[c] }

// role is what an operand is to the tiler.
type role uint8

const (
	roleFull  role = iota // a whole on-chip tensor [R, C], tiled on (p, f)
	roleCol               // a whole on-chip column tensor [R, 1], tiled on p
	roleBcast             // one on-chip row [1, C] read by every row (partition step 0)
	roleDRAM              // a 2-D DRAM region: off + r*stride + c, r < rows, c < cols
	roleStat              // matmul stationary [K, M]
	roleMov               // matmul moving [K, N]
	roleOther             // an immediate or register: copied as is
)

// opnd is one operand of a macro instruction.
type opnd struct {
	k    int // index among the instruction's operands (sources then destinations)
	role role
	out  bool
	t    int // index into analysis.tens (on-chip roles), -1 otherwise
	// DRAM region (roleDRAM; roleBcast: off is the row's element offset).
	dram       bir.TensorID
	off        int64
	stride     int64
	rows, cols int64
}

// mop is one macro instruction (an instruction the tiler rewrites).
type mop struct {
	id         bir.InstID
	pos        int // index in its top-level block
	cls        opClass
	rows, cols int64 // the iteration space [R, C] (matmul: [M, N])
	kdim       int64 // matmul: K
	ops        []opnd
	unit       int // atomic unit (union-find root after units())
	group      int // the group it is emitted in
	fusedInto  int // a Load fused into a matmul's K loop: that matmul's mop index, else -1
	colOp      bool
}

// tensor is an on-chip tensor the tiler lays out anew.
type tensor struct {
	id         bir.TensorID
	name       string // the location's name (the tensor is name+"_set" when it follows the convention)
	tname      string
	rows, cols int64
	dt         bir.Dtype
	mem        bir.MemoryType
	writers    []int // mop indices, program order
	readers    []int
	// fused: a matmul operand loaded by a Load fused into the matmul's K
	// loop (one tile per K step); boundary: accessed by more than one
	// group, laid out in row blocks [pt, cols]; otherwise internal to one
	// group, one tile per iteration.
	fused    bool
	boundary bool
	bcastSrc bool // read only through partition broadcasts: left as it is
	group    int
}

// analysis is the tiler's view of one function.
type analysis struct {
	f     *bir.Function
	m     *bir.Module
	model *arch.Model
	opt   *Options

	block bir.BlockID // the top-level block holding every macro instruction
	mops  []mop
	byID  map[bir.InstID]int
	tens  []tensor
	tenOf map[bir.TensorID]int // on-chip tensor -> index in tens

	splits int // groups split for PSUM pressure or a whole-row conflict
}

// where names an instruction in messages.
func (a *analysis) where(i bir.InstID) string {
	return fmt.Sprintf("instruction %s (%s)", a.f.InstName(i), a.f.OpName(i))
}

// errAt is a refusal about instruction i (diag.TilingRefused: what the
// input asks that the tiler cannot do), led by its source position when it
// has one.
func (a *analysis) errAt(i bir.InstID, format string, args ...any) error {
	return diag.Wrap(diag.TilingRefused, a.f.WrapErr(i, fmt.Errorf("%s: %s", a.where(i), fmt.Sprintf(format, args...))))
}

// internalAt is an error about instruction i that only a fault of the
// tiler's own can make (diag.Internal).
func (a *analysis) internalAt(i bir.InstID, format string, args ...any) error {
	return diag.Wrap(diag.Internal, a.f.WrapErr(i, fmt.Errorf("%s: %s", a.where(i), fmt.Sprintf(format, args...))))
}

// onChipTensor returns the tensor of an on-chip AP operand (a physical AP
// on an SB/PSUM location, or a symbolic AP on an SB/PSUM tensor).
func onChipTensor(f *bir.Function, o *bir.Operand) (bir.TensorID, bool) {
	switch o.Kind {
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() {
			return bir.NoTensor, false
		}
		lc := f.Loc(l)
		return lc.Tensor, lc.Type.IsOnChip()
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() {
			return bir.NoTensor, false
		}
		ts := f.Tensor(t)
		if len(ts.Locs) == 0 {
			return t, false
		}
		return t, f.Loc(ts.Locs[0]).Type.IsOnChip()
	}
	return bir.NoTensor, false
}

// macroInst reports whether instruction i exceeds one hardware
// instruction: the conditions of the verifier's StageTiled size rules
// (verify's tile-partitions, free-size, engine-ap encoding, the partition
// broadcast of partition-stride, matmul-limits' K/M/N, psum-tile), on the
// same arch numbers. TestSundaSizeTiling_DetectsWhatTheVerifierRejects
// checks that the two agree.
func macroInst(f *bir.Function, i bir.InstID, model *arch.Model) bool {
	in := f.Inst(i)
	info := in.Op.Info()
	if info.Has(bir.FlagDMA) || info.Flags&(bir.FlagComputes|bir.FlagMovesData) == 0 {
		return false
	}
	m := f.Module()
	nIns := int(in.NIns)
	pe := in.Op.IsMatmul()
	for k, o := range f.Operands(i) {
		if !o.Kind.IsAP() {
			continue
		}
		t, onChip := onChipTensor(f, &o)
		if !onChip || t == bir.NoTensor {
			continue
		}
		p := m.Pattern(o.Pattern)
		if len(p) == 0 {
			continue
		}
		parts, free := p[0].Num, int64(1)
		for _, q := range p[1:] {
			free *= q.Num
			if q.Num > model.MaxAPNum || q.Step < model.MinAPStep || q.Step > model.MaxAPStep {
				return true
			}
		}
		if parts > model.Tile.PMax || (parts > 1 && p[0].Step == 0) {
			return true
		}
		mem := f.Loc(f.Tensor(t).Locs[0]).Type
		switch mem {
		default: // SB, and OnChip (placement open), as the verifier's free-size
			if lim := model.Tile.SBUFMaxFreeElems; lim > 0 && free > lim {
				return true
			}
		case bir.MemPSUM:
			if lim := model.Tile.PSUMMaxFreeElems; lim > 0 && free > lim {
				return true
			}
			out := k >= nIns
			if !(pe && out && model.MatmulSpansBanks()) && model.PSUMBankBytes > 0 && free*o.Dtype.Size() > model.PSUMBankBytes {
				return true
			}
		}
	}
	if pe {
		ins, outs := f.Ins(i), f.Outs(i)
		if len(ins) < 2 || len(outs) < 1 {
			return false
		}
		st, mv, d := m.Pattern(ins[0].Pattern), m.Pattern(ins[1].Pattern), m.Pattern(outs[0].Pattern)
		if len(st) == 0 || len(mv) == 0 || len(d) == 0 {
			return false
		}
		K, M, N := st[0].Num, st.NumElements()/st[0].Num, mv.NumElements()/mv[0].Num
		maxN := model.MatmulMaxN(outs[0].Dtype)
		if K > model.Partitions || M > model.Tile.GemmStationaryFMax || (maxN > 0 && N > maxN) {
			return true
		}
	}
	return false
}

// collect finds the macro instructions of f and the closure of
// instructions that share an on-chip tensor with them. It returns nil,
// nil when f has none.
func collect(f *bir.Function, model *arch.Model, opt *Options) (*analysis, error) {
	a := &analysis{f: f, m: f.Module(), model: model, opt: opt, block: bir.NoBlock,
		byID: map[bir.InstID]int{}, tenOf: map[bir.TensorID]int{}}
	// Seeds: the macro instructions. (An oversized tensor that only
	// hand-tiled accesses reach is the footprint passes' to split.)
	macroTen := map[bir.TensorID]bool{}
	var seeds []bir.InstID
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.IsLoop() && macroInst(f, i, model) {
			seeds = append(seeds, i)
		}
		return true
	})
	if len(seeds) == 0 {
		return nil, nil
	}
	// The closure: every instruction touching a macro tensor, every
	// on-chip tensor such an instruction touches (except the rows it
	// reads through a partition broadcast), until nothing changes.
	in := map[bir.InstID]bool{}
	var work []bir.InstID
	add := func(i bir.InstID) {
		if !in[i] {
			in[i] = true
			work = append(work, i)
		}
	}
	for _, i := range seeds {
		add(i)
	}
	addTensor := func(t bir.TensorID) {
		for _, u := range f.TensorUses(t) {
			add(u.Inst)
		}
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, o := range f.Operands(i) {
			t, on := onChipTensor(f, &o)
			if !on || macroTen[t] {
				continue
			}
			if p := a.m.Pattern(o.Pattern); len(p) > 0 && p[0].Step == 0 && p[0].Num > 1 {
				continue // a broadcast row: read as it is
			}
			macroTen[t] = true
			addTensor(t)
		}
	}
	// Every rewritten instruction sits in one top-level block, outside
	// loops, in program order.
	ids := make([]bir.InstID, 0, len(in))
	for i := range in {
		ids = append(ids, i)
	}
	slices.Sort(ids)
	for _, i := range ids {
		blk := f.Inst(i).Block
		if blk == bir.NoBlock {
			continue
		}
		if p := f.Block(blk).Parent; p != bir.NoInst {
			return nil, a.errAt(i, "a macro operation (or an instruction sharing an on-chip tensor with one) inside loop %s: sunda_size_tiling tiles whole-tensor operations at the top level of a function; hoist it out of the loop or tile it by hand", f.InstName(p))
		}
		if a.block == bir.NoBlock {
			a.block = blk
		} else if a.block != blk {
			return nil, a.errAt(i, "macro operations in two top-level blocks (%s and %s): want them in one block", f.Block(a.block).Name, f.Block(blk).Name)
		}
	}
	pos := map[bir.InstID]int{}
	for k, i := range f.Block(a.block).Insts {
		pos[i] = k
	}
	slices.SortFunc(ids, func(x, y bir.InstID) int { return pos[x] - pos[y] })
	for _, i := range ids {
		a.byID[i] = len(a.mops)
		a.mops = append(a.mops, mop{id: i, pos: pos[i], fusedInto: -1, unit: len(a.mops), group: -1})
	}
	// No dependency may name a rewritten instruction, and none may have
	// dependencies: the tiler replaces them, and program order is their
	// meaning (anti_dependency_analyzer derives the edges afterwards).
	var depErr error
	f.Walk(func(i bir.InstID) bool {
		_, mine := a.byID[i]
		for _, d := range f.Deps(i) {
			_, on := a.byID[d.On]
			if mine || on {
				depErr = a.errAt(i, "an explicit dependency (on %s) where sunda_size_tiling rewrites an instruction: remove the deps of macro operations (program order is their meaning)", f.InstName(d.On))
				return false
			}
		}
		return true
	})
	if depErr != nil {
		return nil, depErr
	}
	return a, nil
}

// tensorIndex returns the index of on-chip tensor t in a.tens, adding it.
func (a *analysis) tensorIndex(t bir.TensorID, i bir.InstID) (int, error) {
	if k, ok := a.tenOf[t]; ok {
		return k, nil
	}
	f := a.f
	ts := f.Tensor(t)
	if ts.IsBlock || ts.NBlocks > 1 || len(ts.Locs) != 1 {
		return 0, a.errAt(i, "tensor %s: a macro operation's on-chip tensor must be one location, not a block tensor (have %d locations, %d blocks)", ts.Name, len(ts.Locs), ts.NBlocks)
	}
	lc := f.Loc(ts.Locs[0])
	if ts.Kind != bir.KindInternal {
		return 0, a.errAt(i, "tensor %s: kind %s: want Internal (an on-chip macro tensor is the compiler's to lay out)", ts.Name, ts.Kind)
	}
	if lc.Allocated || lc.Base != 0 {
		return 0, a.errAt(i, "tensor %s: location %s is placed (allocated %v, base partition %d): want an unplaced location (the tiler lays it out anew)", ts.Name, lc.Name, lc.Allocated, lc.Base)
	}
	if lc.RawDims != nil || ts.Dtype.Size() <= 0 || lc.Bytes%ts.Dtype.Size() != 0 {
		return 0, a.errAt(i, "tensor %s: location %s is not [partitions, bytes] of %s elements", ts.Name, lc.Name, ts.Dtype)
	}
	k := len(a.tens)
	a.tens = append(a.tens, tensor{id: t, name: lc.Name, tname: ts.Name, rows: lc.Partitions, cols: lc.Bytes / ts.Dtype.Size(), dt: ts.Dtype, mem: lc.Type, group: -1})
	a.tenOf[t] = k
	return k, nil
}

// operand parses operand k of macro instruction x.
func (a *analysis) operand(x *mop, k int, o *bir.Operand, out bool) (opnd, error) {
	f, i := a.f, x.id
	r := opnd{k: k, out: out, t: -1, role: roleOther}
	if !o.Kind.IsAP() {
		return r, nil
	}
	what := "source"
	kk := k
	if out {
		what = "destination"
		kk = k - int(f.Inst(i).NIns)
	}
	if o.Kind != bir.OpdPhysAP {
		return r, a.errAt(i, "%s %d: a %s: a macro operation's operands are physical access patterns over whole tensors", what, kk, o.Kind)
	}
	p := a.m.Pattern(o.Pattern)
	lc := f.Loc(o.Loc())
	if lc.Type.IsDRAM() {
		// A 2-D region [[stride, rows], [1, cols]] (or one row [[1, cols]]).
		r.role, r.dram, r.off = roleDRAM, lc.Tensor, o.Offset
		ts := f.Tensor(lc.Tensor)
		if len(ts.Locs) != 1 {
			return r, a.errAt(i, "%s %d: DRAM tensor %s has %d locations: want one", what, kk, ts.Name, len(ts.Locs))
		}
		switch {
		case len(p) == 2 && p[1].Step == 1 && p[0].Step >= p[1].Num:
			r.stride, r.rows, r.cols = p[0].Step, p[0].Num, p[1].Num
		case len(p) == 1 && p[0].Step == 1:
			r.stride, r.rows, r.cols = p[0].Num, 1, p[0].Num
		default:
			return r, a.errAt(i, "%s %d: DRAM access pattern %v: want rows of contiguous elements [[stride, rows], [1, cols]] with stride >= cols", what, kk, p)
		}
		if o.Dtype != ts.Dtype {
			return r, a.errAt(i, "%s %d: dtype %s reinterprets DRAM tensor %s of %s: want the tensor's dtype", what, kk, o.Dtype, ts.Name, ts.Dtype)
		}
		return r, nil
	}
	if !lc.Type.IsOnChip() {
		return r, a.errAt(i, "%s %d: location %s in %s: want SB, PSUM or DRAM", what, kk, lc.Name, lc.Type)
	}
	t := lc.Tensor
	tk, err := a.tensorIndex(t, i)
	if err != nil {
		return r, err
	}
	tt := &a.tens[tk]
	r.t = tk
	if o.Dtype != tt.dt {
		return r, a.errAt(i, "%s %d: dtype %s reinterprets tensor %s of %s: want the tensor's dtype", what, kk, o.Dtype, tt.tname, tt.dt)
	}
	if len(p) == 2 && p[0].Step == 0 && p[0].Num > 1 && p[1].Step == 1 && !out && tt.rows == 1 {
		// A partition broadcast of one row: elements off .. off+cols-1.
		if o.Offset < 0 || o.Offset+p[1].Num > tt.cols {
			return r, a.errAt(i, "%s %d: broadcast of elements [%d, %d) of %s: want within its %d", what, kk, o.Offset, o.Offset+p[1].Num, tt.tname, tt.cols)
		}
		r.role, r.off, r.rows, r.cols = roleBcast, o.Offset, p[0].Num, p[1].Num
		return r, nil
	}
	whole := o.Offset == 0 && ((len(p) == 2 && p[0].Step == tt.cols && p[0].Num == tt.rows && p[1].Step == 1 && p[1].Num == tt.cols) ||
		(len(p) == 1 && tt.rows == 1 && p[0].Step == 1 && p[0].Num == tt.cols))
	if !whole {
		return r, a.errAt(i, "%s %d: access pattern %v at offset %d on %s [%d partitions x %d]: a macro operation accesses its on-chip tensors whole ([[%d, %d], [1, %d]] at offset 0) or broadcasts one row ([[0, rows], [1, cols]])",
			what, kk, p, o.Offset, tt.tname, tt.rows, tt.cols, tt.cols, tt.rows, tt.cols)
	}
	r.rows, r.cols = tt.rows, tt.cols
	r.role = roleFull
	if tt.cols == 1 {
		r.role = roleCol
	}
	return r, nil
}

// classify parses every macro instruction's operands and checks that it
// has a macro form.
func (a *analysis) classify() error {
	f := a.f
	for xi := range a.mops {
		x := &a.mops[xi]
		i := x.id
		in := f.Inst(i)
		if !a.m.Pred(in.Pred).IsTrue() {
			return a.errAt(i, "a predicate on a macro operation: want none (it runs once, over the whole tensor)")
		}
		nIns := int(in.NIns)
		for k, o := range f.Operands(i) {
			r, err := a.operand(x, k, &o, k >= nIns)
			if err != nil {
				return err
			}
			x.ops = append(x.ops, r)
		}
		attrs := f.Attrs(i)
		switch in.Op {
		case bir.OpLoad, bir.OpSave, bir.OpDMACopy:
			if in.Op == bir.OpDMACopy && attrs.Str("mode", "Copy") != "Copy" {
				return a.errAt(i, "DMACopy mode %q: the macro form of a DMA is a plain copy", attrs.Str("mode", "Copy"))
			}
			if len(x.ops) != 2 {
				return a.errAt(i, "want one source and one destination, have %d operands", len(x.ops))
			}
			s, d := &x.ops[0], &x.ops[1]
			switch {
			case s.role == roleDRAM && (d.role == roleFull || d.role == roleCol):
				x.cls = clsLoad
				if err := a.dmaShape(x, s, d); err != nil {
					return err
				}
			case (s.role == roleFull || s.role == roleCol) && d.role == roleDRAM:
				x.cls = clsSave
				if err := a.dmaShape(x, d, s); err != nil {
					return err
				}
			default:
				return a.errAt(i, "a macro DMA moves a whole on-chip tensor from or to a DRAM region (have a %v source and a %v destination)", roleName(s.role), roleName(d.role))
			}
		case bir.OpTensorTensor, bir.OpTensorScalar, bir.OpTensorCopy, bir.OpActivation,
			bir.OpTensorScalarPtr, bir.OpMemset, bir.OpReciprocal:
			if acc := attrs.Str("acc", "Idle"); acc != "Idle" && acc != "idle" && acc != "" {
				return a.errAt(i, "acc %q: a macro operation does not accumulate (want Idle)", acc)
			}
			if v := bir.Variant(in.Op, attrs); v != "" {
				return a.errAt(i, "%s has no macro form: sunda_size_tiling tiles elementwise operations, and its operands are not one whole tensor and per-row scalars (write it per tile)", v)
			}
			if err := a.elementwise(x); err != nil {
				return err
			}
		case bir.OpTensorReduce:
			if attrs.Str("axis", "") != "X" {
				return a.errAt(i, "axis %q: the macro reduction folds the free axis of [rows, cols] (axis X)", attrs.Str("axis", ""))
			}
			if len(x.ops) != 2 || (x.ops[0].role != roleFull && x.ops[0].role != roleCol) || x.ops[1].role != roleCol || x.ops[0].rows != x.ops[1].rows {
				return a.errAt(i, "a macro reduction reads a whole [rows, cols] tensor and writes a [rows, 1] column of the same rows")
			}
			x.cls, x.rows, x.cols = clsReduce, x.ops[0].rows, x.ops[0].cols
		case bir.OpMatmult:
			if err := a.matmul(x, attrs); err != nil {
				return err
			}
		default:
			return a.errAt(i, "no macro form: sunda_size_tiling tiles Load, Save, DMACopy, TensorTensor, TensorScalar, TensorScalarPtr, TensorCopy, Activation, Reciprocal, Memset, TensorReduce (axis X) and Matmult over whole tensors")
		}
	}
	return nil
}

// dmaShape checks a macro DMA between DRAM region dram and on-chip tensor
// chip: the same elements, in the same rows or from one contiguous run
// (then viewed as the tensor's rows).
func (a *analysis) dmaShape(x *mop, dram, chip *opnd) error {
	x.rows, x.cols = chip.rows, chip.cols
	if dram.rows*dram.cols != chip.rows*chip.cols {
		return a.errAt(x.id, "DRAM region [%d x %d] and on-chip tensor [%d x %d] differ in elements", dram.rows, dram.cols, chip.rows, chip.cols)
	}
	if dram.rows != chip.rows {
		if dram.rows != 1 || dram.stride != dram.cols {
			return a.errAt(x.id, "DRAM region [%d x %d] and on-chip tensor [%d x %d]: want the same rows, or one contiguous run", dram.rows, dram.cols, chip.rows, chip.cols)
		}
		dram.rows, dram.cols, dram.stride = chip.rows, chip.cols, chip.cols
	}
	return nil
}

// isPSUM reports whether tensor tk is PSUM for the tiler: in PSUM, or
// OnChip (placement open) and written by a matmul (infer_psum_tensor will
// put it in PSUM: the Tensor engine writes only PSUM).
func (a *analysis) isPSUM(tk int) bool {
	t := &a.tens[tk]
	if t.mem == bir.MemPSUM {
		return true
	}
	if t.mem != bir.MemOnChip {
		return false
	}
	for _, w := range t.writers {
		if a.mops[w].cls == clsMatmul {
			return true
		}
	}
	return false
}

func roleName(r role) string {
	return [...]string{"whole tensor", "column", "broadcast row", "DRAM region", "stationary", "moving", "non-memory"}[r]
}

// elementwise checks an elementwise macro operation: the destination and
// the data sources are the same [R, C]; per-row scalars (Activation's
// bias and scale, TensorScalarPtr's scalars) are [R, 1] columns; a
// broadcast row has C elements.
func (a *analysis) elementwise(x *mop) error {
	i := x.id
	in := a.f.Inst(i)
	nIns := int(in.NIns)
	if in.NOuts != 1 {
		return a.errAt(i, "want one destination, have %d", in.NOuts)
	}
	d := &x.ops[nIns]
	if d.role != roleFull && d.role != roleCol {
		return a.errAt(i, "destination: a %s: want a whole on-chip tensor", roleName(d.role))
	}
	x.cls, x.rows, x.cols = clsElem, d.rows, d.cols
	x.colOp = d.role == roleCol
	// Data sources: TensorTensor's two; one for the others (Activation
	// and TensorScalarPtr: the rest are per-row scalars).
	data := 1
	switch in.Op {
	case bir.OpTensorTensor:
		data = 2
	case bir.OpMemset:
		data = 0
	}
	for k := 0; k < nIns; k++ {
		s := &x.ops[k]
		switch {
		case s.role == roleOther:
		case k < data && (s.role == roleFull || s.role == roleCol):
			if s.rows != x.rows || s.cols != x.cols {
				return a.errAt(i, "source %d is [%d x %d], the destination [%d x %d]: want equal shapes", k, s.rows, s.cols, x.rows, x.cols)
			}
		case k < data && s.role == roleBcast:
			if s.rows != x.rows || s.cols != x.cols {
				return a.errAt(i, "source %d broadcasts [%d x %d] onto [%d x %d]: want the destination's shape", k, s.rows, s.cols, x.rows, x.cols)
			}
		case k >= data && s.role == roleCol:
			if s.rows != x.rows {
				return a.errAt(i, "scalar source %d has %d rows, the destination %d: want equal", k, s.rows, x.rows)
			}
		default:
			return a.errAt(i, "source %d: a %s where a %s is expected", k, roleName(s.role), map[bool]string{true: "whole tensor", false: "per-row [rows, 1] scalar"}[k < data])
		}
	}
	return nil
}

// matmul checks a macro matmul: one complete accumulation group (start
// and stop), no transpose, packing or tile position, stationary [K, M]
// and moving [K, N] whole SBUF tensors, destination a whole PSUM tensor
// [M, N].
func (a *analysis) matmul(x *mop, attrs bir.AttrSet) error {
	i := x.id
	if !attrs.Bool("start_tensor_calc", false) || !attrs.Bool("stop_tensor_calc", false) {
		return a.errAt(i, "a macro matmul is one whole accumulation group: want start_tensor_calc and stop_tensor_calc both true")
	}
	if attrs.Bool("is_transpose", false) || attrs.Str("perf_mode", "None") != "None" {
		return a.errAt(i, "is_transpose or perf_mode: the macro matmul is a plain one")
	}
	for _, k := range []string{"tile_position", "tile_size"} {
		if v, ok := attrs.Get(k); ok && v.Kind != bir.ValNull {
			if x, y, _, ok := intPairAttr(v); !ok || x != -1 || y != -1 {
				return a.errAt(i, "%s is set: the tiler places the tiles (want it absent or [-1, -1])", k)
			}
		}
	}
	if len(x.ops) != 3 {
		return a.errAt(i, "want stationary, moving and destination operands, have %d", len(x.ops))
	}
	st, mv, d := &x.ops[0], &x.ops[1], &x.ops[2]
	if st.role != roleFull && st.role != roleCol || mv.role != roleFull && mv.role != roleCol || d.role != roleFull && d.role != roleCol {
		return a.errAt(i, "want whole on-chip tensors as stationary, moving and destination")
	}
	in := func(t int, m bir.MemoryType) bool { return a.tens[t].mem == m || a.tens[t].mem == bir.MemOnChip }
	if !in(d.t, bir.MemPSUM) || !in(st.t, bir.MemSB) || !in(mv.t, bir.MemSB) {
		return a.errAt(i, "want SBUF stationary and moving and a PSUM destination (or OnChip, placement open)")
	}
	if st.rows != mv.rows || d.rows != st.cols || d.cols != mv.cols {
		return a.errAt(i, "stationary [%d x %d], moving [%d x %d], destination [%d x %d]: want [K x M], [K x N], [M x N]", st.rows, st.cols, mv.rows, mv.cols, d.rows, d.cols)
	}
	st.role, mv.role, d.role = roleStat, roleMov, roleFull
	x.cls, x.rows, x.cols, x.kdim = clsMatmul, d.rows, d.cols, st.rows
	return nil
}

func intPairAttr(v bir.Value) (a, b int64, present, ok bool) {
	if v.Kind != bir.ValList || len(v.L) != 2 {
		return 0, 0, true, false
	}
	x, ok1 := v.L[0].AsInt()
	y, ok2 := v.L[1].AsInt()
	return x, y, true, ok1 && ok2
}

// accessors fills each tensor's writers and readers (program order) and
// marks broadcast sources.
func (a *analysis) accessors() error {
	bcastOnly := make([]bool, len(a.tens))
	for k := range bcastOnly {
		bcastOnly[k] = true
	}
	for xi := range a.mops {
		x := &a.mops[xi]
		for _, o := range x.ops {
			if o.t < 0 {
				continue
			}
			t := &a.tens[o.t]
			if o.out {
				if len(t.writers) == 0 || t.writers[len(t.writers)-1] != xi {
					t.writers = append(t.writers, xi)
				}
			} else if len(t.readers) == 0 || t.readers[len(t.readers)-1] != xi {
				t.readers = append(t.readers, xi)
			}
			if o.role != roleBcast || o.out {
				bcastOnly[o.t] = false
			}
		}
	}
	for k := range a.tens {
		a.tens[k].bcastSrc = bcastOnly[k]
	}
	return nil
}
