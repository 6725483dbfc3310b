// lower_generic_indirect (seed 001, order 10, unconditional): expand a
// generic indirect access - GenericIndirectLoad (42) or GenericIndirectSave
// (44) - into the concrete chain the indirect-gather encoders consume:
// ReadVarAddr (41) -> per-dimension TensorScalarPtr address accumulation ->
// TensorScalarPtr add -> Memset tile offset -> TensorScalarPtr offset add
// -> IndirectLoad (43) / IndirectSave (45). IndirectLoad/Save themselves
// are not dispatched: they are what the pass produces.
//
// Input invariants. The pass checks the seed's assertions first and fails
// with their strings (errors naming the function and instruction):
//
//	"Indirect dimensions must be one less than instruction argument number"
//	    len(indirect_dims) = #sources - 1 (an absent indirect_dims counts 0,
//	    as in the verifier's checkIndirectShape)
//	"Compiler middle end must have already flattened IndexAP to be only one AP"
//	    exactly one IndexAP (sources = [data, IndexAP])
//	"GenericIndirectLoad/Save must have 1 element per partition for IndexAP"
//	"indirect DMA's AddrAP should be 2D"
//	    the IndexAP (the AP the per-partition addresses are computed from)
//	    has at most two pairs, [P] or [P, 1]; the address and offset APs the
//	    pass creates are [P, 1] and are re-checked
//	"Addr Tensor partition dim must match its tensor shape"
//	    the IndexAP's tensor (and the address tensors the pass creates):
//	    shape[partition dim] = the location's partitions
//	"target DRAM tensor is flattened, IndirectDims must be expanded"
//	    every indirect dim is a dimension of the indexed tensor's shape
//
// plus what a correct lowering needs (the seed's hardware shape): the
// indexed operand is a DRAM access pattern, the on-chip operand an SBUF
// one of the same dtype (IndirectLoad/Save move raw rows, they do not
// convert), the IndexAP an integer on-chip AP with one index per
// partition of the indexed pattern, read partition-contiguously (the
// TensorScalarPtr that reads it is an engine instruction).
//
// The chain. For a generic access of P rows whose indexed operand D has
// element offset o and dtype size s, index idx and row multiplier
// R = product of the indexed tensor's shape after the indirect dim
// (semantics.md §4.3; narwhal's interpreter is the reference, interp/
// indirect.go):
//
//	<base>_ReadVarAddr          A[p] = VA of D's location (block)          A: <base>_DstTensor [P,1] int64
//	<base>_TSPAddGenericAddr    G[p] = idx[p] * R                          G: <base>_ScratchSpaceTensor [P,1] int64
//	                            (one per indirect dim, outer to inner; a
//	                            later dim adds G: the flat element index)
//	<base>_TSPAddAddr           A[p] = A[p] + o*s                          (the AP's byte offset: an immediate,
//	                                                                        a symbolic immediate when o is)
//	per run r of a row (one run when the row is contiguous in DRAM):
//	<base>_MemsetTileOffset     T[p] = c_r                                 T: <base>_OffsetTensor [P,1] int64
//	<base>_TSPAddOffset         T[p] = G[p] + T[p]
//	<base>_IndirectLoad         ins [A, T], entry_step_elements 1:          row p, run r <- the L elements at
//	                            outs [the on-chip operand's run r]          byte A[p] + T[p]*s
//	  (IndirectSave: ins [the on-chip run r, A, T], outs [D])
//
// so row p moves the elements at byte VA + (o + idx[p]*R + c_r + 0..L-1)*s,
// exactly the elements the generic instruction moves; the interpreter
// runs both forms to the same bytes (the tests check every built-in kernel
// and the pass's own cases). Runs: a generic access may walk its row with
// any free pattern, an IndirectLoad moves one contiguous run per
// partition. The pass cuts the row into R runs of L elements: L is the
// largest divisor of the row's contiguous innermost run in DRAM at which
// the on-chip operand's free pattern splits into an outer part (which
// run) and an inner part of L elements; c_r is run r's element offset in
// the row; the Memset, TSPAddOffset and IndirectLoad/Save of runs beyond
// the first get a decimal suffix ("<base>_IndirectLoad1"). At most MaxRuns
// runs are emitted (an error beyond).
//
// Decisions where the seed is silent:
//
//   - The seed gives the final IndirectLoad the arguments {addr, original
//     index, offset}. The concrete IndirectLoad adds index*R + offset to
//     the address (interp/indirect.go); narwhal folds the index into the
//     offset operand (T = G + c_r, which also serves multi-dimensional
//     indices) and passes [A, T] with entry_step_elements 1, so no element
//     offset is counted twice. The seed names two scratch locations
//     (<base>_DstTensor, <base>_ScratchSpaceTensor); the third, the tile
//     offset, is <base>_OffsetTensor. All three are [P, 1] int64 SBUF
//     tensors - one address or offset per partition, the hardware shape
//     the verifier's tensor-indirection rule checks.
//   - Operand roles follow the interpreter (interp/indirect.go):
//     GenericIndirectLoad ins [data, IndexAP] outs [dst];
//     GenericIndirectSave ins [data, IndexAP] outs [src] (the seed's
//     layout) or ins [src, IndexAP] outs [data] (the dataflow layout).
//   - The generic instruction keeps its id and becomes the last
//     IndirectLoad/Save (it writes what the original wrote); its attributes
//     other than indirect_dims and op carry over (oob_is_err, queue, ...),
//     plus entry_step_elements = 1. ReadVarAddr and IndirectLoad/Save keep
//     the original's engine; the TensorScalarPtrs and Memsets are
//     Unassigned (engine assignment picks them). Address arithmetic is
//     int64 (the interpreter's 64-bit integer path).
//   - Out of bounds. With oob_is_err (the default) both forms stop on a
//     row outside the indexed location. With oob_is_err=false the generic
//     form skips a whole row; per-run checks would store the in-bounds
//     runs of a partly outside row, so a multi-run lowering of such an
//     instruction is refused (error). The generic form also treats a
//     negative index as out of bounds while the concrete form checks only
//     addresses: with oob_is_err=false a negative index whose row lands
//     inside the location is skipped by one and moved by the other (the
//     hardware reads the index as unsigned, so the concrete form is the
//     approximation; no in-range input is affected).
//   - GenericIndirectSave with op "add" (accumulate) is not lowered: an
//     error, not a silent store. The seed gives no lowering for it, and the
//     candidate, IndirectSaveAccumulate, requires unique indices
//     (semantics.md §4.2; the interpreter rejects a repeated row) while the
//     generic form sums repeats, so the rewrite would change the result of
//     every input with a repeated index.
package dma

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// IndirectName is the pass's registry name.
const IndirectName = "lower_generic_indirect"

// MaxRuns bounds the IndirectLoad/Save instructions one generic access is
// lowered to (a row walked in more contiguous runs is an error).
const MaxRuns = 4096

// The seed's assertion strings, verbatim.
const (
	MsgIndirectDims      = "Indirect dimensions must be one less than instruction argument number"
	MsgIndexFlattened    = "Compiler middle end must have already flattened IndexAP to be only one AP"
	MsgIndexPerPartition = "GenericIndirectLoad/Save must have 1 element per partition for IndexAP"
	MsgAddrAP2D          = "indirect DMA's AddrAP should be 2D"
	MsgAddrPartitionDim  = "Addr Tensor partition dim must match its tensor shape"
	MsgTargetFlattened   = "target DRAM tensor is flattened, IndirectDims must be expanded"
	msgUnknownDtype      = "Unknown dtype"
)

// LowerGenericIndirectPass is the pass-table entry of lower_generic_indirect.
var LowerGenericIndirectPass = pass.Pass{
	Name:     IndirectName,
	Order:    10,
	Default:  true,
	Produces: verify.StageIndirectLowered,
	Doc:      "lower GenericIndirectLoad/Save to ReadVarAddr, TensorScalarPtr, Memset and IndirectLoad/Save (seed 001)",
	Run: func(ctx *pass.Context) error {
		l := newIndirectLowerer(ctx.Module, ctx.Arch, ctx.Logf)
		err := ctx.ForEachFunction(l.function)
		l.finish()
		ctx.Count("generic_loads", int64(l.stats.Loads))
		ctx.Count("generic_saves", int64(l.stats.Saves))
		ctx.Count("indirect_dmas", int64(l.stats.Runs))
		ctx.Count("instructions_added", int64(l.stats.Added))
		return passError(IndirectName, err)
	},
}

// IndirectStats counts what lower_generic_indirect did.
type IndirectStats struct {
	Loads int // GenericIndirectLoads lowered
	Saves int // GenericIndirectSaves lowered
	Runs  int // IndirectLoad/IndirectSave instructions in the result
	Added int // instructions added
}

// LowerGenericIndirect runs lower_generic_indirect on m.
func LowerGenericIndirect(m *bir.Module, opt Options) (IndirectStats, error) {
	model, err := modelFor(m, opt.Arch)
	if err != nil {
		return IndirectStats{}, err
	}
	l := newIndirectLowerer(m, model, opt.Logf)
	for _, f := range m.FuncsMainFirst() {
		if err := l.function(f); err != nil {
			l.finish()
			return l.stats, err
		}
	}
	l.finish()
	return l.stats, nil
}

type indirectLowerer struct {
	m     *bir.Module
	model *arch.Model
	log   logger
	stats IndirectStats
	v     visitor
	names nameGuard
	f     *bir.Function
	buf   []byte
	base  []byte

	attrMult, attrAcc, attrAdd bir.AttrID
	valueList                  int32
	reserved                   bool                      // the function's tables are grown for its lowerings
	memsetAttrs                map[int64]bir.AttrID      // tile offset -> Memset attributes
	finalAttrs                 map[bir.AttrID]bir.AttrID // generic attributes -> IndirectLoad/Save attributes
	pairP1                     map[int64]bir.PatternID   // P -> [[1, P], [1, 1]]
}

func newIndirectLowerer(m *bir.Module, model *arch.Model, logf func(string, ...any)) *indirectLowerer {
	l := &indirectLowerer{m: m, model: model, log: logger{logf: logf},
		names: newNameGuard("_TSPAddGenericAddr", "_ReadVarAddr", "_TSPAddAddr", "_MemsetTileOffset", "_TSPAddOffset", "_IndirectLoad", "_IndirectSave")}
	l.v = visitor{owns: isGenericIndirect, rewrite: l.codegenIndirectLoadSave}
	l.memsetAttrs = map[int64]bir.AttrID{}
	l.finalAttrs = map[bir.AttrID]bir.AttrID{}
	l.pairP1 = map[int64]bir.PatternID{}
	return l
}

func isGenericIndirect(op bir.Opcode) bool {
	return op == bir.OpGenericIndirectLoad || op == bir.OpGenericIndirectSave
}

func (l *indirectLowerer) function(f *bir.Function) error {
	l.f = f
	l.names.reset(f)
	l.reserved = false
	return l.v.function(f)
}

// reserve grows the function's tables for its lowerings (each adds about
// five instructions of sixteen operands and three [P,1] tensors), once,
// before the first one.
func (l *indirectLowerer) reserve() {
	l.reserved = true
	f, n := l.f, 0
	f.Walk(func(i bir.InstID) bool {
		if isGenericIndirect(f.Inst(i).Op) {
			n++
		}
		return true
	})
	reserveFor(f, 5*n, 16*n, 3*n)
}

func (l *indirectLowerer) finish() {
	l.log.printf("%d GenericIndirectLoads and %d GenericIndirectSaves lowered to %d IndirectLoad/Save (%d instructions added)",
		l.stats.Loads, l.stats.Saves, l.stats.Runs, l.stats.Added)
}

// indirectPlan is what codegenIndirectLoadSave checked and computed before
// changing anything.
type indirectPlan struct {
	load         bool
	data, onchip bir.Operand // the indexed DRAM operand, the on-chip one
	dataIsIn     bool        // data is ins[0] (else outs[0])
	index        []bir.Operand
	rowMul       []int64 // R_j per index
	P            int64
	elemBytes    int64
	runLen       int64
	runs         int64
	dataRunOff   []int64 // c_r
	onchipRunOff []int64 // the on-chip operand's offset of run r
	onchipRunPat bir.PatternID
	attrs        bir.AttrID  // the IndirectLoad/Save attributes
	addrOff      bir.Operand // o*s: immediate or symbolic immediate
	dataBase     bir.Operand // ReadVarAddr's source
}

func (l *indirectLowerer) fail(i bir.InstID, format string, args ...any) (bool, error) {
	return false, instErrorf(IndirectName, l.f, i, format, args...)
}

// codegenIndirectLoadSave is LowerGenericIndirectImpl::codegenIndirectLoadSave.
func (l *indirectLowerer) codegenIndirectLoadSave(i bir.InstID) (bool, error) {
	f, m := l.f, l.m
	var p indirectPlan
	p.load = f.Inst(i).Op == bir.OpGenericIndirectLoad
	attrs := f.Attrs(i)
	ins, outs := f.Ins(i), f.Outs(i)

	// indirect_dims vs the sources.
	var dims []int64
	if v, has := attrs.Get("indirect_dims"); has && v.Kind != bir.ValNull {
		if v.Kind != bir.ValList {
			return l.fail(i, "attribute indirect_dims = %s: want a list of dimension numbers", v.JSON())
		}
		for k, e := range v.L {
			d, ok := e.AsInt()
			if !ok {
				return l.fail(i, "attribute indirect_dims[%d] = %s: want an integer", k, e.JSON())
			}
			dims = append(dims, d)
		}
	}
	if len(dims) != len(ins)-1 {
		return l.fail(i, "%s: want %d indirect dimensions for %d sources, have %d (indirect_dims %v)", MsgIndirectDims, len(ins)-1, len(ins), len(dims), dims)
	}
	if len(ins)-1 != 1 {
		return l.fail(i, "%s: want 1 IndexAP, have %d", MsgIndexFlattened, len(ins)-1)
	}
	if len(outs) != 1 {
		return l.fail(i, "want 1 destination, have %d", len(outs))
	}
	if !p.load {
		if op := attrs.Str("op", "bypass"); op != "bypass" {
			return l.fail(i, "GenericIndirectSave op %q: want bypass (IndirectSave stores; an accumulating save has no concrete form narwhal models)", op)
		}
	}

	// The indexed (DRAM) operand and the on-chip one.
	p.data, p.onchip, p.dataIsIn = ins[0], outs[0], true
	if !p.load {
		if mt, ok := memOf(f, &ins[0]); ok && !mt.IsDRAM() {
			p.data, p.onchip, p.dataIsIn = outs[0], ins[0], false
		}
	}
	dataLabel, onchipLabel := "source 0", "destination 0"
	if !p.dataIsIn {
		dataLabel, onchipLabel = onchipLabel, dataLabel
	}
	if p.data.Kind.IsAP() && !p.data.Dtype.Valid() {
		return l.fail(i, "%s: %s has dtype %d: want at most %d (0x13)", msgUnknownDtype, dataLabel, p.data.Dtype, bir.MaxDtype)
	}
	if !validAP(f, &p.data) {
		return l.fail(i, "%s (the indexed tensor) is a %s: want a physical or symbolic access pattern", dataLabel, p.data.Kind)
	}
	if mt, ok := memOf(f, &p.data); !ok || !mt.IsDRAM() {
		return l.fail(i, "%s (the indexed tensor) is in %s: want DRAM (an indirect DMA indexes DRAM)", dataLabel, mt)
	}
	if !validAP(f, &p.onchip) {
		return l.fail(i, "%s (the on-chip operand) is a %s: want an access pattern", onchipLabel, p.onchip.Kind)
	}
	if mt, _ := memOf(f, &p.onchip); mt != bir.MemSB {
		return l.fail(i, "%s (the on-chip operand) is in %s: want SB (an indirect DMA moves rows between DRAM and SBUF)", onchipLabel, mt)
	}
	if p.onchip.Dtype != p.data.Dtype {
		return l.fail(i, "the indexed tensor is %s, the on-chip operand %s: want equal dtypes (IndirectLoad/Save move raw rows)", p.data.Dtype, p.onchip.Dtype)
	}
	dp := m.Pattern(p.data.Pattern)
	op := m.Pattern(p.onchip.Pattern)
	if len(dp) == 0 || len(op) == 0 {
		return l.fail(i, "an access pattern without pairs: want pair 0 to walk the rows")
	}
	p.P = dp[0].Num
	F := freeElems(dp)
	if op[0].Num != p.P || freeElems(op) != F {
		return l.fail(i, "the on-chip operand is %s, the indexed pattern moves %d rows of %d elements: want the same rows and elements per row", shapeText(op), p.P, F)
	}
	p.elemBytes = bir.DtypeSize[p.data.Dtype]

	// The IndexAP.
	x := ins[1]
	if err := l.checkIndex(i, &x, p.P); err != nil {
		return false, err
	}
	p.index = []bir.Operand{x}

	// Row multipliers from the indexed tensor's shape.
	var locs [1]bir.LocID
	dl, _ := apLocs(f, &p.data, locs[:0])
	ts := f.Tensor(f.Loc(dl[0]).Tensor)
	for _, d := range dims {
		if d < 0 || d >= int64(len(ts.Shape)) {
			return l.fail(i, "%s: indirect dim %d is not a dimension of tensor %s of shape %v", MsgTargetFlattened, d, ts.Name, ts.Shape)
		}
		r := int64(1)
		for _, s := range ts.Shape[d+1:] {
			r *= s
		}
		p.rowMul = append(p.rowMul, r)
	}

	// Runs of the row.
	if err := l.planRuns(i, &p, dp, op, attrs); err != nil {
		return false, err
	}

	// The AP's byte offset, as an immediate.
	oe := offsetExpr(m, &p.data)
	if oe.IsConst() {
		p.addrOff = bir.ImmI(oe.Const*p.elemBytes, bir.Int64)
	} else {
		if l.valueList == 0 {
			l.valueList = int32(m.InternAttrs(bir.Attrs("value_list", bir.List())))
		}
		p.addrOff = bir.Operand{Kind: bir.OpdSymImm, Ref: l.valueList, Expr: m.InternExpr(affine.Scale(oe, p.elemBytes)), Dtype: bir.Int64}
	}
	p.dataBase = p.data
	p.dataBase.Pattern = m.InternPattern(bir.Pattern{{Step: 1, Num: 1}})
	p.dataBase.Offset = 0 // element 0 (for a symbolic AP, ExprID 0: the constant 0)

	// The IndirectLoad/Save attributes.
	orig := f.Inst(i).Attrs
	id, ok := l.finalAttrs[orig]
	if !ok {
		fa := make(bir.AttrSet, 0, len(attrs)+1)
		for _, fd := range attrs {
			if fd.Key != "indirect_dims" && fd.Key != "op" && fd.Key != "entry_step_elements" {
				fa = append(fa, fd)
			}
		}
		fa = append(fa, bir.Field{Key: "entry_step_elements", Val: bir.Int(1)})
		id = m.InternAttrs(fa)
		l.finalAttrs[orig] = id
	}
	p.attrs = id
	return true, l.emit(i, &p)
}

// checkIndex checks the IndexAP of instruction i against the seed's
// invariants and what the TensorScalarPtr reading it needs.
func (l *indirectLowerer) checkIndex(i bir.InstID, x *bir.Operand, P int64) error {
	f, m := l.f, l.m
	if !validAP(f, x) {
		return instErrorf(IndirectName, f, i, "the IndexAP (source 1) is a %s: want an access pattern in SBUF", x.Kind)
	}
	mt, _ := memOf(f, x)
	if !mt.IsOnChip() {
		return instErrorf(IndirectName, f, i, "the IndexAP (source 1) is in %s: want SB (the per-partition index is read by an engine)", mt)
	}
	if x.Dtype.IsFloat() {
		return instErrorf(IndirectName, f, i, "the IndexAP (source 1) is %s: want an integer dtype", x.Dtype)
	}
	xp := m.Pattern(x.Pattern)
	if len(xp) == 0 {
		return instErrorf(IndirectName, f, i, "the IndexAP (source 1) has no pairs")
	}
	if n := freeElems(xp); n != 1 {
		return instErrorf(IndirectName, f, i, "%s: want 1, have %d in source 1 (pattern %v)", MsgIndexPerPartition, n, xp.Shape())
	}
	if xp[0].Num != P {
		return instErrorf(IndirectName, f, i, "the IndexAP has %d partitions, the indexed pattern moves %d rows: want one index per row", xp[0].Num, P)
	}
	if len(xp) > 2 {
		return instErrorf(IndirectName, f, i, "%s: the IndexAP (source 1) has %d pairs, want [partitions, 1]", MsgAddrAP2D, len(xp))
	}
	var buf [4]bir.LocID
	locs, _ := apLocs(f, x, buf[:0])
	for _, lid := range locs {
		if why := addrTensorMismatch(f, lid); why != "" {
			return instErrorf(IndirectName, f, i, "%s: the IndexAP's %s", MsgAddrPartitionDim, why)
		}
		lc := f.Loc(lid)
		if s := x.Dtype.Size(); xp[0].Num > 1 && (lc.Bytes%s != 0 || xp[0].Step != lc.Bytes/s) {
			return instErrorf(IndirectName, f, i, "the IndexAP's partition step is %d: want %d, the elements per partition of %s (the TensorScalarPtr reading it is partition-contiguous)", xp[0].Step, lc.Bytes/max(s, 1), lc.Name)
		}
	}
	return nil
}

// addrTensorMismatch returns why location l's tensor breaks "Addr Tensor
// partition dim must match its tensor shape", or "".
func addrTensorMismatch(f *bir.Function, l bir.LocID) string {
	lc := f.Loc(l)
	ts := f.Tensor(lc.Tensor)
	if pd := ts.PartitionDim; pd >= 0 && pd < int64(len(ts.Shape)) && ts.Shape[pd] != lc.Partitions {
		return "tensor " + ts.Name + " has shape " + shapeString(ts.Shape) + " with partition dim " + strconv.FormatInt(pd, 10) +
			", its location " + lc.Name + " has " + strconv.FormatInt(lc.Partitions, 10) + " partitions"
	}
	return ""
}

func shapeString(s []int64) string {
	b := []byte{'['}
	for k, d := range s {
		if k > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	return string(append(b, ']'))
}

// planRuns cuts the row into contiguous runs (see the file comment).
func (l *indirectLowerer) planRuns(i bir.InstID, p *indirectPlan, dp, op bir.Pattern, attrs bir.AttrSet) error {
	m := l.m
	F := freeElems(dp)
	ld, _ := contiguousRun(dp)
	ofp := op[1:]
	var inner, outer bir.Pattern
	L := int64(0)
	for _, c := range divisorsDesc(ld) {
		if in, out, ok := splitSuffix(ofp, c); ok {
			L, inner, outer = c, in, out
			break
		}
	}
	if L == 0 { // unreachable: L = 1 always splits
		return instErrorf(IndirectName, l.f, i, "cannot cut the row into contiguous runs")
	}
	if F == 0 {
		L = 1
	}
	p.runLen = L
	p.runs = max(F/L, 1)
	if p.runs > MaxRuns {
		return instErrorf(IndirectName, l.f, i, "the row of %d elements is contiguous in DRAM in runs of %d: %d IndirectLoad/Save instructions, want at most %d (MaxRuns)", F, L, p.runs, MaxRuns)
	}
	if p.runs > 1 && !attrs.Bool("oob_is_err", true) {
		return instErrorf(IndirectName, l.f, i, "oob_is_err=false with a row in %d runs: per-run bounds checks would store the in-bounds runs of a row the generic form skips whole; want a row contiguous in DRAM or oob_is_err=true", p.runs)
	}
	sub := append(bir.Pattern{op[0]}, inner...)
	p.onchipRunPat = m.InternPattern(sub)
	p.dataRunOff = make([]int64, p.runs)
	p.onchipRunOff = make([]int64, p.runs)
	fp := dp[1:]
	for r := int64(0); r < p.runs; r++ {
		p.dataRunOff[r] = offsetOf(fp, r*L)
		p.onchipRunOff[r] = offsetOf(outer, r)
	}
	return nil
}

// offsetOf returns the element offset of the j-th element (row-major) of
// pattern p.
func offsetOf(p bir.Pattern, j int64) int64 {
	off := int64(0)
	for k := len(p) - 1; k >= 0; k-- {
		n := p[k].Num
		if n <= 0 {
			continue
		}
		off += (j % n) * p[k].Step
		j /= n
	}
	return off
}

// divisorsDesc returns the divisors of n (>= 1), largest first.
func divisorsDesc(n int64) []int64 {
	if n < 1 {
		return []int64{1}
	}
	var lo, hi []int64
	for d := int64(1); d*d <= n; d++ {
		if n%d == 0 {
			lo = append(lo, d)
			if d != n/d {
				hi = append(hi, n/d)
			}
		}
	}
	out := hi
	for k := len(lo) - 1; k >= 0; k-- {
		out = append(out, lo[k])
	}
	return out
}

// splitSuffix splits the pairs p (row-major) into an outer part and an
// inner suffix that walks exactly L elements, cutting one pair in two if
// needed: (s, a*b) becomes outer (s*b, a) and inner (s, b).
func splitSuffix(p bir.Pattern, L int64) (inner, outer bir.Pattern, ok bool) {
	acc := int64(1)
	for k := len(p) - 1; k >= 0; k-- {
		if acc == L {
			return append(bir.Pattern(nil), p[k+1:]...), append(bir.Pattern(nil), p[:k+1]...), true
		}
		n := p[k].Num
		if n >= 1 && L%(acc*n) == 0 {
			acc *= n
			continue
		}
		if L%acc != 0 {
			return nil, nil, false
		}
		b := L / acc
		if n%b != 0 {
			return nil, nil, false
		}
		inner = append(bir.Pattern{{Step: p[k].Step, Num: b}}, p[k+1:]...)
		outer = append(append(bir.Pattern(nil), p[:k]...), bir.APPair{Step: p[k].Step * b, Num: n / b})
		return inner, outer, true
	}
	if acc == L {
		return append(bir.Pattern(nil), p...), nil, true
	}
	return nil, nil, false
}

// emit builds the chain for generic instruction i from its plan.
func (l *indirectLowerer) emit(i bir.InstID, p *indirectPlan) error {
	f, m := l.f, l.m
	if !l.reserved {
		l.reserve()
	}
	f.DropInstNameIndex()
	if l.attrMult == 0 {
		l.attrMult = m.InternAttrs(bir.Attrs("op0", "mult", "reverse0", false, "op1", "bypass", "reverse1", false))
		l.attrAcc = m.InternAttrs(bir.Attrs("op0", "mult", "reverse0", false, "op1", "add", "reverse1", false))
		l.attrAdd = m.InternAttrs(bir.Attrs("op0", "add", "reverse0", false, "op1", "bypass", "reverse1", false))
	}
	l.base = l.names.appendBase(l.base[:0], i)
	base := string(l.base)
	scratch := func(suffix string) (bir.Operand, error) {
		name := f.UniqueTensorLocName(base + suffix)
		loc, err := newScratch(f, name, bir.MemSB, bir.KindInternal, bir.Int64, []int64{p.P, 1})
		if err != nil {
			return bir.Operand{}, instErrorf(IndirectName, f, i, "creating %s: %v", name, err)
		}
		pat, ok := l.pairP1[p.P]
		if !ok {
			pat = m.InternPattern(bir.Pattern{{Step: 1, Num: p.P}, {Step: 1, Num: 1}})
			l.pairP1[p.P] = pat
		}
		o := bir.PhysAP(loc, bir.Int64, 0, pat)
		if why := addrTensorMismatch(f, loc); why != "" {
			return o, instErrorf(IndirectName, f, i, "%s: %s", MsgAddrPartitionDim, why)
		}
		return o, nil
	}
	A, err := scratch("_DstTensor")
	if err != nil {
		return err
	}
	G, err := scratch("_ScratchSpaceTensor")
	if err != nil {
		return err
	}
	T, err := scratch("_OffsetTensor")
	if err != nil {
		return err
	}
	if n := len(m.Pattern(A.Pattern)); n != 2 {
		return instErrorf(IndirectName, f, i, "%s: the address AP has %d pairs", MsgAddrAP2D, n)
	}

	in := f.Inst(i)
	deps := origDeps(f, i)
	eng, load := in.Engine, p.load
	if load {
		l.stats.Loads++
	} else {
		l.stats.Saves++
	}
	prev := bir.NoInst
	add := func(op bir.Opcode, suffix string, k int64, eng bir.Engine, ins, outs []bir.Operand, attrs bir.AttrID) {
		l.buf = append(append(l.buf[:0], base...), suffix...)
		if k > 0 {
			l.buf = strconv.AppendInt(l.buf, k, 10)
		}
		id := newInst(f, op, l.names.sym(l.buf), eng, ins, outs, attrs, i, deps, prev)
		l.v.out = append(l.v.out, id)
		l.stats.Added++
		prev = id
	}

	add(bir.OpReadVarAddr, "_ReadVarAddr", 0, eng, []bir.Operand{p.dataBase}, []bir.Operand{A}, 0)
	for j, x := range p.index {
		R := bir.ImmI(p.rowMul[j], bir.Int64)
		if j == 0 {
			add(bir.OpTensorScalarPtr, "_TSPAddGenericAddr", 0, bir.EngUnassigned, []bir.Operand{x, R}, []bir.Operand{G}, l.attrMult)
		} else {
			add(bir.OpTensorScalarPtr, "_TSPAddGenericAddr", int64(j), bir.EngUnassigned, []bir.Operand{x, R, G}, []bir.Operand{G}, l.attrAcc)
		}
	}
	add(bir.OpTensorScalarPtr, "_TSPAddAddr", 0, bir.EngUnassigned, []bir.Operand{A, p.addrOff}, []bir.Operand{A}, l.attrAdd)

	final := bir.OpIndirectLoad
	finalSuffix := "_IndirectLoad"
	if !load {
		final, finalSuffix = bir.OpIndirectSave, "_IndirectSave"
	}
	finalAttrs := p.attrs
	for r := int64(0); r < p.runs; r++ {
		memset, ok := l.memsetAttrs[p.dataRunOff[r]]
		if !ok {
			memset = m.InternAttrs(bir.Attrs("mode", "Const", "constant", bir.Int(p.dataRunOff[r])))
			l.memsetAttrs[p.dataRunOff[r]] = memset
		}
		add(bir.OpMemset, "_MemsetTileOffset", r, bir.EngUnassigned, nil, []bir.Operand{T}, memset)
		add(bir.OpTensorScalarPtr, "_TSPAddOffset", r, bir.EngUnassigned, []bir.Operand{G, T}, []bir.Operand{T}, l.attrAdd)
		run := shifted(m, p.onchip, p.onchipRunOff[r], p.onchipRunPat)
		var ins, outs []bir.Operand
		if load {
			ins, outs = []bir.Operand{A, T}, []bir.Operand{run}
		} else {
			ins, outs = []bir.Operand{run, A, T}, []bir.Operand{p.data}
		}
		l.stats.Runs++
		if r < p.runs-1 {
			add(final, finalSuffix, r, eng, ins, outs, finalAttrs)
			continue
		}
		// The last run is the original instruction.
		l.buf = append(append(l.buf[:0], base...), finalSuffix...)
		if r > 0 {
			l.buf = strconv.AppendInt(l.buf, r, 10)
		}
		name := l.names.sym(l.buf)
		in := f.Inst(i)
		in.Op, in.Name, in.Attrs = final, name, finalAttrs
		f.SetArgs(i, ins, outs)
		linkLast(f, i, deps, prev)
		l.v.out = append(l.v.out, i)
	}
	return nil
}
