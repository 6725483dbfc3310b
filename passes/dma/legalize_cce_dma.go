// legalize_cce_dma (seed 001, order 19, unconditional): split a
// collective-compute DMACopy (opcode 32, mode CCE) whose source count
// exceeds the arch's MaxCceDmaSource into a chain of CCE DMACopys that
// each satisfy the verifier's checkCCEDMALegality, splitting the
// per-source scale vector ("constants") in lockstep. Afterwards every
// function carries the attribute "stage_legalize_cce_dma_completed" (the
// seed's FunctionAttribute #21), which turns the verifier's cce-sources
// rule on for it.
//
// isCCEDMA. bir::isCCEDMA's body is not in the seed; narwhal's IsCCEDMA is
// "a DMACopy whose mode attribute is CCE" - the instruction form of NKI's
// dma_compute that the interpreter executes as
// dst[k] = cast(sum_i scale_i * fp32(src_i[k])) (semantics.md §4.2).
//
// The entry threshold, as the seed's: nSrc = #arguments + #constants; an
// instruction with nSrc <= MaxCceDmaSource (arch.Model, the same field
// the verifier reads) is already legal and left alone ("if (archMax >=
// nSrc) return;"). Past it, every source is checked against the
// destination with the seed's diagnostics: "Input AP dtype does not match
// output AP dtype" and "Input AP shape does not match output AP shape"
// (errors: the split would otherwise build partial outputs of the wrong
// type).
//
// The split loop, as the seed's: "while (count(I.sources) > archMax)" - a
// count of source arguments only - a clone named "<name>_imm_output_<N>"
// takes "the first archMax source ARGUMENTS" (spliceArguments(clone, &I,
// archMax)) and, when the copy has constants, "the first archMax floats"
// of the scale vector, and writes a new partial-output location
// "<name>_imm_output_<N>" tagged OutputKind 7; the partial is appended to
// the remaining sources with scale 1.0 ("the partial 1.0f scale is
// appended per chunk on the trailing remainder"); N counts 0, 1, 2, ...
// per instruction. "The remainder (<= archMax sources) stays as the
// original InstDMACopy" (same id, name and destination). Each round
// removes MaxCceDmaSource sources and adds one, so with MaxCceDmaSource 16
// cce_reduce's 20 sources give one clone of 16 and a remainder of 4 + 1:
// two instructions, with or without constants. Every piece then satisfies
// the verifier's checkCCEDMALegality, "I.num_arguments() <=
// MaxCceDmaSource" (arguments, not arguments + constants: a piece of 16
// sources carries 16 scales and is legal).
//
// So a copy whose arguments fit but whose arguments + constants do not
// (10 sources with 10 scales under 16) passes the entry test, is checked,
// and is not split: the loop's own count is already legal. narwhal
// reports it in the "cce_dma" counter, not in "split".
//
// Decisions where the seed is silent:
//
//   - Progress. Each round removes MaxCceDmaSource sources and adds one
//     partial, so MaxCceDmaSource < 2 never ends the seed's loop; narwhal
//     refuses such an arch model with an error naming the value.
//   - Where partial outputs live: DRAM (memory type DRAM, an internal
//     tensor "<name>_imm_output_<N>_set" of the destination's dtype and
//     shape, a compact row-major location). A CCE DMA reads and writes
//     HBM natively, a partial is written once and read once, and in DRAM
//     it never competes for SBUF space (the pass runs before the memory
//     planner and after SB legalization has sized SBUF). The seed clones
//     the destination AP at offset 0; narwhal gives the partial a compact
//     pattern of the destination's shape instead, so a strided destination
//     does not make the partial location larger than the data.
//   - Dtype and exactness. The verifier requires every source of a CCE
//     copy to have the destination's dtype, so partials have it too. The
//     interpreter folds the fp32 sum in source order; the split regroups
//     it (partials first summed, then added last), so the result is
//     bit-identical whenever each partial sum is exact in fp32 and in the
//     destination dtype (cce_reduce's inputs are multiples of 1/64: every
//     float32 chain is exact), and otherwise differs only by rounding:
//     the re-association any parallel reduction makes. Appending the
//     partials (the seed's order) keeps the clones independent of each
//     other, so a scheduler may issue them on different queues at once.
//   - The reduction op is kept on every piece (cce_op add, or any
//     associative reduce the module uses): partials carry scale 1.0, so
//     each source's scale is applied exactly once.
//   - Dependencies: each clone inherits the original's; the remainder
//     additionally depends (FLOW) on every clone whose partial it reads,
//     and a clone on the clones whose partials it reads (when the original
//     sources run out before the count fits).
package dma

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// CCEName is the pass's registry name.
const CCEName = "legalize_cce_dma"

// CCECompletedAttr is the function attribute set after the pass (seed 001
// FunctionAttribute #21).
const CCECompletedAttr = "stage_legalize_cce_dma_completed"

// PartialOutputKind tags a CCE partial-output location (MemLoc.OutputKind,
// the seed's "+224 = 7").
const PartialOutputKind = 7

// LegalizeCCEDMAPass is the pass-table entry of legalize_cce_dma.
var LegalizeCCEDMAPass = pass.Pass{
	Name:     CCEName,
	Order:    19,
	Default:  true,
	Produces: verify.StageCCELegal,
	Doc:      "split CCE DMACopys with more than MaxCceDmaSource sources into a chain of partial sums (seed 001)",
	Run: func(ctx *pass.Context) error {
		c := newCCELegalizer(ctx.Module, ctx.Arch, ctx.Logf)
		err := ctx.ForEachFunction(c.function)
		if err == nil {
			c.complete()
		}
		c.finish()
		ctx.Count("cce_dma", int64(c.stats.CCE))
		ctx.Count("split", int64(c.stats.Split))
		ctx.Count("partials", int64(c.stats.Partials))
		return passError(CCEName, err)
	},
}

// CCEStats counts what legalize_cce_dma did.
type CCEStats struct {
	CCE      int // CCE DMACopys visited
	Split    int // of which split
	Partials int // partial-output clones created
}

// LegalizeCCEDMA runs legalize_cce_dma on m.
func LegalizeCCEDMA(m *bir.Module, opt Options) (CCEStats, error) {
	model, err := modelFor(m, opt.Arch)
	if err != nil {
		return CCEStats{}, err
	}
	c := newCCELegalizer(m, model, opt.Logf)
	for _, f := range m.FuncsMainFirst() {
		if err := c.function(f); err != nil {
			c.finish()
			return c.stats, err
		}
	}
	c.complete()
	c.finish()
	return c.stats, nil
}

// IsCCEDMA reports whether instruction i is a collective-compute DMA: a
// DMACopy in mode CCE (bir::isCCEDMA).
func IsCCEDMA(f *bir.Function, i bir.InstID) bool {
	return f.Inst(i).Op == bir.OpDMACopy && f.Attrs(i).Str("mode", "Copy") == "CCE"
}

type cceLegalizer struct {
	m     *bir.Module
	model *arch.Model
	log   logger
	stats CCEStats
	v     visitor
	names nameGuard
	f     *bir.Function
	buf   []byte
	base  []byte

	reserved bool // the function's tables are grown for its splits
	srcs     []bir.Operand
	prod     []bir.InstID
	sc       []bir.Value

	// attrCache maps (attribute set of a split instruction, piece) to the
	// piece's interned attributes: the pieces' scale vectors depend only
	// on the original's (its constants fix the source count) and
	// MaxCceDmaSource. Piece -1 is the remainder.
	attrCache map[[2]int64]bir.AttrID
	// partPat maps a destination pattern to its compact row-major form.
	partPat map[bir.PatternID]bir.PatternID
}

func newCCELegalizer(m *bir.Module, model *arch.Model, logf func(string, ...any)) *cceLegalizer {
	c := &cceLegalizer{m: m, model: model, log: logger{logf: logf}, names: newNameGuard("_imm_output_"),
		attrCache: map[[2]int64]bir.AttrID{}, partPat: map[bir.PatternID]bir.PatternID{}}
	c.v = visitor{owns: func(op bir.Opcode) bool { return op == bir.OpDMACopy }, rewrite: c.visitDMACopy}
	return c
}

func (c *cceLegalizer) function(f *bir.Function) error {
	c.f = f
	c.names.reset(f)
	c.reserved = false
	return c.v.function(f)
}

// pieces returns how many partial-output clones the seed's split loop
// makes of a CCE copy of nArgs sources: each round takes max sources and
// adds one partial.
func pieces(nArgs int, max int64) int {
	k := 0
	for n := int64(nArgs); n > max && max >= 2; n -= max - 1 {
		k++
	}
	return k
}

// reserve grows the function's tables for its splits, once, before the
// first one.
func (c *cceLegalizer) reserve() {
	c.reserved = true
	f := c.f
	insts, ops := 0, 0
	f.Walk(func(i bir.InstID) bool {
		if !IsCCEDMA(f, i) {
			return true
		}
		k := pieces(int(f.Inst(i).NIns), c.model.MaxCceDmaSource)
		insts += k
		ops += k * (int(c.model.MaxCceDmaSource) + 1)
		return true
	})
	reserveFor(f, insts, ops, insts)
}

// complete is the seed's post-pass marker on every function.
func (c *cceLegalizer) complete() {
	for _, f := range c.m.Funcs {
		f.AddAttribute(CCECompletedAttr)
	}
}

func (c *cceLegalizer) finish() {
	c.log.printf("%d CCE DMACopys: %d split into %d partial sums (MaxCceDmaSource %d on %s)",
		c.stats.CCE, c.stats.Split, c.stats.Partials, c.model.MaxCceDmaSource, c.model.Name)
}

// visitDMACopy is LegalizeCCEDMAImpl::visitInstDMACopy.
func (c *cceLegalizer) visitDMACopy(i bir.InstID) (bool, error) {
	f, m := c.f, c.m
	if !IsCCEDMA(f, i) {
		return false, nil
	}
	c.stats.CCE++
	attrs := f.Attrs(i)
	nArgs := int(f.Inst(i).NIns)
	var scales []bir.Value
	if v, has := attrs.Get("constants"); has && v.Kind != bir.ValNull {
		if v.Kind != bir.ValList {
			return false, instErrorf(CCEName, f, i, "constants: want a list of per-source scales, have %s", v.JSON())
		}
		scales = v.L
	}
	archMax := c.model.MaxCceDmaSource
	nSrc := int64(nArgs + len(scales))
	if nSrc <= archMax {
		return false, nil
	}

	// Shape/dtype legality of the sources against the destination.
	if f.Inst(i).NOuts != 1 {
		return false, instErrorf(CCEName, f, i, "a CCE DMACopy has %d destinations: want 1", f.Inst(i).NOuts)
	}
	out := f.Outs(i)[0]
	if !validAP(f, &out) {
		return false, instErrorf(CCEName, f, i, "destination 0 is a %s: want an access pattern", out.Kind)
	}
	outShape := m.Pattern(out.Pattern)
	if len(outShape) == 0 {
		return false, instErrorf(CCEName, f, i, "destination 0 has an empty access pattern: want [step, num] pairs")
	}
	for k, s := range f.Ins(i) {
		if !validAP(f, &s) {
			return false, instErrorf(CCEName, f, i, "source %d is a %s: want an access pattern", k, s.Kind)
		}
		if s.Dtype != out.Dtype {
			return false, instErrorf(CCEName, f, i, "Input AP dtype does not match output AP dtype: source %d is %s, the destination is %s", k, s.Dtype, out.Dtype)
		}
		if sp := m.Pattern(s.Pattern); !sameNums(sp, outShape) {
			return false, instErrorf(CCEName, f, i, "Input AP shape does not match output AP shape: source %d is %v, the destination is %v", k, sp.Shape(), outShape.Shape())
		}
	}
	hasConst := len(scales) != 0
	if hasConst {
		if len(scales) != nArgs {
			return false, instErrorf(CCEName, f, i, "constants has %d entries for %d sources: want one scale per source", len(scales), nArgs)
		}
		for k, v := range scales {
			if _, ok := v.AsFloat(); !ok {
				return false, instErrorf(CCEName, f, i, "constants[%d] = %s: want a number", k, v.JSON())
			}
		}
	}
	if int64(nArgs) <= archMax {
		return false, nil // the loop's count, arguments only, is already legal
	}
	if archMax < 2 {
		return false, instErrorf(CCEName, f, i, "%d arguments exceed MaxCceDmaSource = %d on %s, which cannot hold two sources: the split needs MaxCceDmaSource >= 2",
			nArgs, archMax, c.model.Name)
	}
	return true, c.split(i, out, outShape, scales, int(archMax))
}

// sameNums reports whether two patterns have the same nums (the shape the
// verifier's cce-shape rule compares).
func sameNums(a, b bir.Pattern) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Num != b[k].Num {
			return false
		}
	}
	return true
}

// split runs the seed's split loop on CCE DMACopy i: while it has more
// than chunk (MaxCceDmaSource) sources, a clone takes the first chunk.
func (c *cceLegalizer) split(i bir.InstID, out bir.Operand, outShape bir.Pattern, scales []bir.Value, chunk int) error {
	f, m := c.f, c.m
	if !c.reserved {
		c.reserve()
	}
	f.DropInstNameIndex()
	c.stats.Split++
	hasConst := len(scales) != 0
	srcs := append(c.srcs[:0], f.Ins(i)...)
	prod := c.prod[:0] // the clone that wrote each source (NoInst: an original source)
	for range srcs {
		prod = append(prod, bir.NoInst)
	}
	sc := append(c.sc[:0], scales...)
	deps := origDeps(f, i)
	attrID := f.Inst(i).Attrs
	attrs := f.Attrs(i)
	eng := f.Inst(i).Engine
	shape := outShape.Shape()
	partPat, ok := c.partPat[out.Pattern]
	if !ok {
		partPat = m.InternPattern(rowMajor(shape))
		c.partPat[out.Pattern] = partPat
	}
	pieceAttrs := func(piece int, scales []bir.Value) bir.AttrID {
		if !hasConst {
			return attrID
		}
		key := [2]int64{int64(attrID), int64(piece)}
		if id, ok := c.attrCache[key]; ok {
			return id
		}
		id := m.InternAttrs(attrs.With("constants", bir.List(append([]bir.Value(nil), scales...)...)))
		c.attrCache[key] = id
		return id
	}
	c.base = c.names.appendBase(c.base[:0], i)
	for n := 0; len(srcs) > chunk; n++ {
		c.buf = strconv.AppendInt(append(append(c.buf[:0], c.base...), "_imm_output_"...), int64(n), 10)
		locName := f.UniqueTensorLocName(string(c.buf))
		loc, err := newScratch(f, locName, bir.MemDRAM, bir.KindInternal, out.Dtype, shape)
		if err != nil {
			return instErrorf(CCEName, f, i, "creating partial output %s: %v", locName, err)
		}
		f.Loc(loc).OutputKind = PartialOutputKind
		partAP := bir.PhysAP(loc, out.Dtype, 0, partPat)

		var pa bir.AttrID
		if hasConst {
			pa = pieceAttrs(n, sc[:chunk])
		} else {
			pa = attrID
		}
		id := newInst(f, bir.OpDMACopy, c.names.sym(c.buf), eng, srcs[:chunk], []bir.Operand{partAP}, pa, i, deps, bir.NoInst)
		if deps != nil {
			for _, p := range prod[:chunk] {
				if p != bir.NoInst {
					f.AddDep(id, bir.Dep{On: p, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
				}
			}
		}
		c.v.out = append(c.v.out, id)
		c.stats.Partials++

		srcs = append(srcs[:copy(srcs, srcs[chunk:])], partAP)
		prod = append(prod[:copy(prod, prod[chunk:])], id)
		if hasConst {
			sc = append(sc[:copy(sc, sc[chunk:])], bir.Float(1))
		}
	}
	c.srcs, c.prod, c.sc = srcs, prod, sc
	// The remainder stays the original instruction.
	f.SetArgs(i, srcs, []bir.Operand{out})
	if hasConst {
		f.Inst(i).Attrs = pieceAttrs(-1, sc)
	}
	if deps != nil {
		for _, p := range prod {
			if p != bir.NoInst {
				f.AddDep(i, bir.Dep{On: p, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
			}
		}
	}
	c.v.out = append(c.v.out, i)
	return nil
}

// rowMajor returns the compact row-major pattern of a shape.
func rowMajor(shape []int64) bir.Pattern {
	p := make(bir.Pattern, len(shape))
	step := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		p[k] = bir.APPair{Step: step, Num: shape[k]}
		step *= shape[k]
	}
	return p
}
