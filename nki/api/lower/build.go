package lower

// Instructions built with bir.Builder, and access-pattern views.
//
// The current NKI API (nki.isa with the destination first) names every
// operand of an instruction, so most of its calls need none of the pending
// result machinery of emit.go: Build checks the accesses (scope, bounds),
// hands a bir.Builder positioned at the current block and source position
// to the caller, which emits the instruction with the Builder method the
// ISA's encoding defines (docs/isa.md: bir/builder_isa.go), and records
// what the new instructions read and write (rollback, PSUM accumulation
// state). The encodings stay the ISA's: the front end never spells an
// instruction's attributes itself where a Builder method exists.
//
// APView is t.ap(pattern, offset): an access whose [step, num] pairs and
// element offset are the kernel's own (the deep dive "NKI Access
// Patterns"): on an on-chip tensor the first pair walks the partitions and
// its step must be the tensor's elements per partition.

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Operand returns the BIR operand of an access.
func (k *Kernel) Operand(a Access) bir.Operand { return k.operand(a) }

// Build emits the instructions fn appends with b (a Builder at the end of
// the current block, carrying the current source position). reads and
// writes are the accesses the instructions read and write (checked against
// their tensors' bounds and loop scopes before fn runs). fn returns the
// Builder's error, or its own.
func (k *Kernel) Build(what string, reads, writes []Access, fn func(b *bir.Builder) error) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	for _, a := range append(slices.Clone(reads), writes...) {
		if err := k.checkScope(a.T); err != nil {
			return err
		}
	}
	for _, a := range reads {
		if err := k.checkAccess(what, "reads", a, affine.True()); err != nil {
			return err
		}
	}
	for _, a := range writes {
		if err := k.checkAccess(what, "writes", a, affine.True()); err != nil {
			return err
		}
	}
	f := k.F
	blk := k.cur
	n0 := len(f.Block(blk).Insts)
	b := bir.BuilderFor(f, blk)
	b.At(k.pos)
	err := fn(b)
	if err == nil {
		err = b.Err()
	}
	added := slices.Clone(f.Block(blk).Insts[n0:])
	for _, id := range added {
		f.Inst(id).Pos = k.posID
		k.onUndo(func() { f.Remove(id) })
	}
	if err != nil {
		return k.Errorf(KindNKI, "%s: %v", what, err)
	}
	for _, a := range reads {
		k.noteReadOf(a.T)
	}
	for _, a := range writes {
		k.noteWriteOf(a.T)
		if a.T.Mem == PSUM {
			k.noteWrite(a.T, what)
		}
	}
	return nil
}

// InstName returns a fresh instruction name with the given prefix.
func (k *Kernel) InstName(base string) string { return k.instName(base) }

// APView returns t.ap(pattern, offset=offset): the access walking pattern
// ([step, num] pairs, outermost first) from element offset of t's current
// block (of its current iteration, for a tile made in a kept loop), read
// as dtype dt (t's dtype, or another of the same size). On an on-chip
// tensor the first pair walks the partitions: its step must be the
// tensor's elements per partition ("the step of the leading dimension must
// be the element count of the entire free dimension of the tensor").
func (t *Tensor) APView(pattern [][2]int64, offset affine.Expr, dt bir.Dtype) (Access, error) {
	k := t.k
	if err := k.checkScope(t); err != nil {
		return Access{}, err
	}
	if len(pattern) == 0 {
		return Access{}, k.Errorf(KindNKI, ".ap() of %s: the pattern needs at least one [step, num] pair", t.Describe())
	}
	if dt.Size() != t.Dtype.Size() {
		return Access{}, k.Errorf(KindNotSupported, ".ap(dtype=%s) of %s (%s): narwhal reinterprets elements of the same size only", dt, t.Describe(), t.Dtype)
	}
	for i, p := range pattern {
		if p[1] <= 0 {
			return Access{}, k.Errorf(KindNKI, ".ap() of %s: pair %d [%d, %d] has no elements", t.Describe(), i, p[0], p[1])
		}
	}
	whole, err := t.tileOfIteration()
	if err != nil {
		return Access{}, err
	}
	a := Access{T: t, Block: whole.Block, Offset: offset, Dtype: dt}
	for _, p := range pattern {
		a.Dims = append(a.Dims, Dim{Step: p[0], Num: p[1]})
	}
	if t.IsOnChip() {
		if pattern[0][0] != t.rowLen && pattern[0][1] > 1 {
			return Access{}, k.Errorf(KindNKI, ".ap() of %s: the first pair walks the partitions and its step must be the %d elements of a partition, not %d", t.Describe(), t.rowLen, pattern[0][0])
		}
		a.Dims[0].Step = t.rowLen
		if pattern[0][1] > PMax {
			return Access{}, k.Errorf(KindNKI, ".ap() of %s: %d partitions exceed %d (nl.tile_size.pmax)", t.Describe(), pattern[0][1], PMax)
		}
	}
	if err := k.checkAccess(".ap()", "views", a, affine.True()); err != nil {
		return Access{}, err
	}
	return a, nil
}

// tileOfIteration is the access to all of t's first logical block in the
// current iteration (t has no block dimensions in the current API).
func (t *Tensor) tileOfIteration() (Access, error) {
	if t.IsOnChip() && t.ParDim > 0 {
		return Access{}, t.k.Errorf(KindNKI, "%s has block dimensions", t.Describe())
	}
	return t.tileAccess(affine.Const(0)), nil
}

// RowLen returns the elements per partition of one tile of an on-chip
// tensor (the product of its free dimensions).
func (t *Tensor) RowLen() int64 { return t.rowLen }

// patternAttrs checks an iota / affine_select pattern ([step, num] pairs
// of the free elements, up to four; the reference pads fewer with num 1)
// against the destination's elements per partition.
func (k *Kernel) patternAttrs(what string, dst Access, pattern [][2]int64, offset, cm int64) (bir.AttrSet, error) {
	if len(pattern) == 0 || len(pattern) > 4 {
		return nil, k.Errorf(KindNKI, "%s: the pattern has 1 to 4 [step, num] pairs, have %d", what, len(pattern))
	}
	n := int64(1)
	pl := make([]bir.Value, len(pattern))
	for i, p := range pattern {
		if p[1] <= 0 {
			return nil, k.Errorf(KindNKI, "%s: pattern pair %d [%d, %d] has no elements", what, i, p[0], p[1])
		}
		n *= p[1]
		pl[i] = bir.Object(bir.Field{Key: "step", Val: bir.Int(p[0])}, bir.Field{Key: "num", Val: bir.Int(p[1])})
	}
	if n != dst.FreeElems() {
		return nil, k.Errorf(KindNKI, "%s: the pattern walks %d elements per partition, %s has %d", what, n, dst.T.Describe(), dst.FreeElems())
	}
	if dst.T.Mem != SBUF {
		return nil, k.Errorf(KindNKI, "%s writes SBUF (GpSimd engine); %s is in %s", what, dst.T.Describe(), dst.T.Mem)
	}
	if err := k.checkOnChip(what, dst); err != nil {
		return nil, err
	}
	return bir.Attrs("base", bir.Int(offset), "pattern", bir.List(pl...), "channel_multiplier", bir.Int(cm)), nil
}

// IotaPattern is the current API's nisa.iota(dst, pattern, offset,
// channel_multiplier): dst[c, i...] = offset + c*cm + sum(i_k*step_k)
// (GpSimd; bir.Builder.Iota's encoding).
func (k *Kernel) IotaPattern(dst Access, pattern [][2]int64, offset, cm int64) error {
	const what = "nisa.iota"
	if err := k.flushErr(); err != nil {
		return err
	}
	if _, err := k.patternAttrs(what, dst, pattern, offset, cm); err != nil {
		return err
	}
	return k.Build(what, nil, []Access{dst}, func(b *bir.Builder) error {
		b.Iota(k.instName("iota"), k.operand(dst), offset, cm, pattern...)
		return nil
	})
}

// AffineSelectPattern is the current API's nisa.affine_select(dst,
// pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op,
// offset): dst = cmp(offset + c*cm + sum(i_k*step_k), 0) ? on_true :
// on_false (GpSimd, SBUF; TensorScalarAffineSelect as the legacy form).
func (k *Kernel) AffineSelectPattern(dst, onTrue Access, pattern [][2]int64, offset, cm int64, cmp string, onFalse float64) error {
	const what = "nisa.affine_select"
	if err := k.flushErr(); err != nil {
		return err
	}
	attrs, err := k.patternAttrs(what, dst, pattern, offset, cm)
	if err != nil {
		return err
	}
	if onTrue.T.Mem != SBUF {
		return k.Errorf(KindNKI, "%s runs on the GpSimd engine, which reads SBUF; %s is in %s", what, onTrue.T.Describe(), onTrue.T.Mem)
	}
	if !sameLayout(onTrue, dst) {
		return k.Errorf(KindNKI, "%s: on_true_tile %s and dst %s differ in partitions or elements per partition", what, shapeString(onTrue.Shape()), shapeString(dst.Shape()))
	}
	attrs = append(attrs, bir.Field{Key: "compare_op", Val: bir.String(cmp)}, bir.Field{Key: "fill_value", Val: bir.Float(onFalse)})
	return k.Build(what, []Access{onTrue}, []Access{dst}, func(b *bir.Builder) error {
		b.Inst(bir.OpTensorScalarAffineSelect, k.instName("affine_select"), bir.EngPool, []bir.Operand{k.operand(onTrue)}, []bir.Operand{k.operand(dst)}, attrs)
		return nil
	})
}

// NCVersion returns the NeuronCore generation of the kernel's target (2
// for trn1, 3 for trn2, 4 for trn3): nisa.get_nc_version() at trace time.
func (k *Kernel) NCVersion() int {
	m, err := arch.Lookup(k.M.Arch)
	if err != nil {
		return 3
	}
	v := 0
	for _, c := range m.Core {
		if c >= '0' && c <= '9' {
			v = v*10 + int(c-'0')
		}
	}
	if v == 0 {
		return 3
	}
	return v
}

// IndirectDMA is an indirect DMA by a vector of row indices (the current
// API's .ap(vector_offset=index, indirect_dim=0)): a gather
// (GenericIndirectLoad: partition p of dst = row index[p] of the HBM view
// src) or, scatter true, a scatter (GenericIndirectSave in the dataflow
// layout: ins [src, index], outs [the HBM view dst]: row index[p] of dst =
// partition p of src). view's pattern walks within a row; its first pair
// counts the rows (its step is ignored: the index picks the row, by the
// base tensor's row length, docs/semantics-choices.md "Indirect DMA").
// skip makes an index outside the tensor skip its row (oob_is_err
// false) instead of an out-of-bounds error.
func (k *Kernel) IndirectDMA(dst, src, index Access, scatter, skip bool) error {
	const what = "nisa.dma_copy"
	if err := k.flushErr(); err != nil {
		return err
	}
	view, chip := src, dst
	if scatter {
		view, chip = dst, src
	}
	if view.T.IsOnChip() || !chip.T.IsOnChip() {
		return k.Errorf(KindNotSupported, "%s: an indirect DMA between %s and %s: narwhal's indirect DMAs move rows between HBM and SBUF", what, src.T.Describe(), dst.T.Describe())
	}
	if view.Partitions() != chip.Partitions() || view.FreeElems() != chip.FreeElems() {
		return k.Errorf(KindNKI, "%s: the indirect view %s%s and %s%s differ in rows or elements per row", what, view.T.Describe(), shapeString(view.Shape()), chip.T.Describe(), shapeString(chip.Shape()))
	}
	if index.Partitions() != chip.Partitions() {
		return k.Errorf(KindNKI, "%s: vector_offset has %d partitions, the transfer %d rows", what, index.Partitions(), chip.Partitions())
	}
	attrs := bir.Attrs("indirect_dims", bir.Ints(0), "oob_is_err", bir.Bool(!skip))
	reads := []Access{src, index}
	writes := []Access{dst}
	return k.Build(what, reads, writes, func(b *bir.Builder) error {
		if scatter {
			b.Inst(bir.OpGenericIndirectSave, k.instName("scatter"), bir.EngUnassigned,
				[]bir.Operand{k.operand(src), k.operand(index)}, []bir.Operand{k.operand(dst)}, attrs)
		} else {
			b.Inst(bir.OpGenericIndirectLoad, k.instName("gather"), bir.EngUnassigned,
				[]bir.Operand{k.operand(src), k.operand(index)}, []bir.Operand{k.operand(dst)}, attrs)
		}
		return nil
	})
}

// FixedTensorOfLoc returns the fixed-placement tensor one of whose
// locations is named name (nil when none): the verifier's diagnostics name
// locations.
func (k *Kernel) FixedTensorOfLoc(name string) *Tensor {
	for _, t := range k.tensors {
		if !t.fixed {
			continue
		}
		ts := k.F.Tensor(t.id)
		if ts.Dead {
			continue
		}
		for _, l := range ts.Locs {
			if k.F.Loc(l).Name == name {
				return t
			}
		}
	}
	return nil
}
