// Decoding BIR-JSON: blocks, loops, instructions, operands, dependencies.
//
// This is the hot path (a post-unroll module is millions of instructions),
// so it allocates nothing per instruction in the common case:
//
//   - instruction names go straight into the module's symbol arena
//     (Module.NewSymBytes), operands into reused scratch slices that
//     Function.NewInstSym copies into the function's operand table;
//   - opcodes, engines and dtypes are matched with map[string(bytes)]
//     lookups, which do not allocate;
//   - the opcode-specific fields of an instruction (and an operand's unknown
//     fields) are interned through a cache keyed by their raw JSON bytes, so
//     the millionth {"op":"add","acc":"Idle"} costs one map lookup;
//   - access patterns are interned with Module.InternPattern (no allocation
//     when the pattern exists); memref/memsetref resolve through the
//     decoder's own name maps.
//
// Loops: {"opcode":"Loop","LoopAxis":{name,lb,ub,stride},"blocks":[...]}
// (also DynamicForLoop and DoWhile, which bir models as loops). The body is
// parsed after the loop instruction exists and its axis is in scope, so
// symbolic access patterns inside can name the axis; an expression's axis
// names resolve to the enclosing loops' LoopAxis names, innermost first.
// "ub" is exclusive (bir.AxisInfo); the stride must be positive.
//
// Symbolic operands (narwhal extensions, docs/bir-json.md):
//
//   - symbolic_ap "addrs": ["<block index>", "<element offset>"] as affine
//     text (integers are accepted as constants). KLR's stub QAE form
//     {"kind":"AffExprKind"} carries no information: such an operand keeps
//     its raw "addrs" verbatim in Operand.Extra and its decoded expressions
//     are 0. "access_shape" equal to the pattern's nums is derived; a
//     different one is kept in Extra.
//   - symbolic_imm_value "expr": affine text (a stub object is kept in Extra,
//     the expression is 0); "value_list" is kept verbatim, bare numbers or
//     {"value": x} wrappers (bir-json.md §8 item 2).
//
// Operand fields count elements of the operand's dtype (design.md's
// addressing model): "offset" and the steps of "ap" are element counts.
package birjson

import (
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// maxExprText bounds the length of affine text (the affine parser recurses
// on parentheses and unary minus).
const maxExprText = 16 << 10

// ---- blocks ----

func (d *decoder) parseBlocks(parent bir.InstID) error {
	more, err := d.beginArray("blocks")
	for k := 0; err == nil && more; k++ {
		if err = d.parseBlock(parent, k); err != nil {
			return err
		}
		more, err = d.nextElem()
	}
	return err
}

func (d *decoder) parseBlock(parent bir.InstID, idx int) error {
	d.ws()
	start := d.pos
	saved := d.ctx
	d.ctx = ctx{kind: "block", start: start, idx: idx}
	f := d.f
	b := f.NewBlock("", parent)
	more, err := d.beginObject("block")
	if err != nil {
		return err
	}
	var seenName, seenInsts bool
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		switch string(key) {
		case "name":
			if seenName {
				return d.dupKey(kpos, key)
			}
			seenName = true
			s, err := d.str()
			if err != nil {
				return err
			}
			f.Block(b).Name = string(s)
			d.ctx.name = s
		case "instructions":
			if seenInsts {
				return d.dupKey(kpos, key)
			}
			seenInsts = true
			blockCtx := d.ctx
			more2, err := d.beginArray("instructions")
			for i := 0; err == nil && more2; i++ {
				if err = d.parseInst(b, i); err != nil {
					return err
				}
				d.ctx = blockCtx
				more2, err = d.nextElem()
			}
			if err != nil {
				return err
			}
		default:
			if err := d.addExtra(&f.Block(b).Extra, kpos, key); err != nil {
				return err
			}
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	if !seenName {
		return d.errf(start, `missing "name"`)
	}
	d.ctx = saved
	return nil
}

// ---- instructions ----

// Instruction keys the decoder interprets (bits of instState.seen).
const (
	ikOpcode = 1 << iota
	ikName
	ikEngine
	ikIns
	ikOuts
	ikPredicate
	ikDeps
	ikLoopAxis
	ikBlocks
	ikPos
	ikSchedule
	ikSync
)

// instSeq is the order narwhal and bir-json.md §7 write the common keys
// in (the opcode-specific fields sit between engine and ins).
var instSeq = []keyLit{{`"opcode":`, ikOpcode}, {`"name":`, ikName}, {`"engine":`, ikEngine}, {`"ins":`, ikIns}, {`"outs":`, ikOuts}}

var instKeyNames = []string{"opcode", "name", "engine", "ins", "outs", "predicate", "deps", "LoopAxis", "blocks", "pos", "schedule", "sync"}

func instKeyBit(key []byte) uint {
	switch string(key) {
	case "opcode":
		return ikOpcode
	case "name":
		return ikName
	case "engine":
		return ikEngine
	case "ins":
		return ikIns
	case "outs":
		return ikOuts
	case "predicate":
		return ikPredicate
	case "deps":
		return ikDeps
	case "LoopAxis":
		return ikLoopAxis
	case "blocks":
		return ikBlocks
	case "pos":
		return ikPos
	case "schedule":
		return ikSchedule
	case "sync":
		return ikSync
	}
	return 0
}

func instKeyName(bit uint) string {
	for i, n := range instKeyNames {
		if bit == 1<<i {
			return n
		}
	}
	return "?"
}

func (d *decoder) parseInst(b bir.BlockID, idx int) error {
	d.ws()
	start := d.pos
	d.ctx = ctx{kind: "instruction", start: start, idx: idx}
	more, err := d.beginObject("instruction")
	if err != nil {
		return err
	}
	var (
		seen                     uint
		op                       bir.Opcode
		name                     []byte
		eng                      bir.Engine
		predPos, depsPos         = -1, -1
		axisSpan, blocksSpan     fieldSpan
		opcodePos                int
		insStart, outsStart, end int
		srcPos                   bir.PosID
		sched                    schedEntry
		syncX                    syncEntry
	)
	d.ins, d.outs, d.fields = d.ins[:0], d.outs[:0], d.fields[:0]
	next := 0 // index into instSeq: the next predicted key
	for more {
		var bit uint
		kpos := d.pos
		if next < len(instSeq) && d.predict(instSeq[next].lit) {
			bit = uint(instSeq[next].id)
			next++
		} else {
			key, kp, err := d.key()
			if err != nil {
				return err
			}
			kpos = kp
			bit = instKeyBit(key)
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.errf(kpos, "duplicate key %q", instKeyName(bit))
			}
			seen |= bit
		}
		vpos := d.pos
		switch bit {
		case ikOpcode:
			var s []byte
			if s, err = d.str(); err == nil {
				opcodePos = vpos
				op, err = d.opcode(vpos, s)
			}
		case ikName:
			if name, err = d.str(); err == nil {
				d.ctx.name = name
			}
		case ikEngine:
			var s []byte
			if s, err = d.str(); err == nil {
				if eng, err = d.engine(vpos, s); err != nil {
					return err
				}
			}
		case ikIns:
			insStart = vpos
			err = d.parseOperands(&d.ins, "ins")
		case ikOuts:
			outsStart = vpos
			err = d.parseOperands(&d.outs, "outs")
		case ikPredicate:
			predPos = vpos
			err = d.skip()
		case ikDeps:
			depsPos = vpos
			err = d.skip()
		case ikPos:
			srcPos, err = d.srcPos()
		case ikSchedule:
			sched, err = d.schedEntry()
		case ikSync:
			syncX, err = d.syncEntry()
		case ikLoopAxis:
			err = d.skip()
			axisSpan = fieldSpan{kpos, vpos, d.pos}
		case ikBlocks:
			err = d.skip()
			blocksSpan = fieldSpan{kpos, vpos, d.pos}
		default:
			err = d.skip()
			d.fields = append(d.fields, fieldSpan{kpos, vpos, d.pos})
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	end = d.pos
	if seen&ikOpcode == 0 {
		return d.errf(start, `missing "opcode"`)
	}
	isLoop := op.IsLoop()
	if !isLoop {
		// LoopAxis and blocks mean nothing to other opcodes: keep them as
		// opaque fields.
		if seen&ikLoopAxis != 0 {
			d.fields = append(d.fields, axisSpan)
		}
		if seen&ikBlocks != 0 {
			d.fields = append(d.fields, blocksSpan)
		}
		if seen&ikName == 0 {
			return d.errf(start, `missing "name"`)
		}
	} else {
		if seen&ikLoopAxis == 0 {
			return d.errf(opcodePos, `%s: missing "LoopAxis"`, d.m.OpName(op))
		}
		if seen&ikBlocks == 0 {
			return d.errf(opcodePos, `%s: missing "blocks"`, d.m.OpName(op))
		}
	}
	if len(d.ins) > math.MaxUint16 {
		return d.errf(insStart, "ins: %d operands, at most %d are supported", len(d.ins), math.MaxUint16)
	}
	if len(d.outs) > math.MaxUint16 {
		return d.errf(outsStart, "outs: %d operands, at most %d are supported", len(d.outs), math.MaxUint16)
	}
	attrs, err := d.internFields(d.fields)
	if err != nil {
		return err
	}
	var pred bir.PredID
	if predPos >= 0 {
		if err := d.at(predPos, func() error {
			var err error
			pred, err = d.predicate("predicate")
			return err
		}); err != nil {
			return err
		}
	}
	if err := d.checkSyms(start, len(name)); err != nil {
		return err
	}
	f, m := d.f, d.m
	var id bir.InstID
	var axis affine.Axis
	if isLoop {
		var ax bir.AxisInfo
		if err := d.at(axisSpan.v, func() error { return d.parseLoopAxis(&ax) }); err != nil {
			return err
		}
		id, axis = f.NewLoop(op, "", ax.Name, ax.Lb, ax.Ub, ax.Stride)
		m.Axis(axis).Extra = ax.Extra
		in := f.Inst(id)
		in.Engine, in.Attrs = eng, attrs
		if seen&ikName != 0 {
			in.Name = m.NewSymBytes(name)
		} else {
			in.Name = 0 // named in pass 2
			d.unnamedLoops = append(d.unnamedLoops, id)
		}
		if len(d.ins)+len(d.outs) > 0 {
			f.SetArgs(id, d.ins, d.outs)
		}
	} else {
		id = f.NewInstSym(op, m.NewSymBytes(name), eng, d.ins, d.outs, attrs)
	}
	if pred != 0 {
		f.Inst(id).Pred = pred
	}
	f.Inst(id).Pos = srcPos
	if seen&ikSchedule != 0 {
		d.setSched(id, sched)
	}
	if seen&ikSync != 0 {
		d.setSync(id, syncX)
	}
	f.Append(b, id)
	if d.fnInsts == 0 {
		d.fnInstPos = start
	}
	d.fnInsts++
	d.fnOpds += len(d.ins) + len(d.outs)
	d.fnNameBytes += len(name)
	if d.fnInsts == reserveSample && d.grownBlock == bir.NoBlock {
		d.reserve(b)
	}
	if depsPos >= 0 {
		if err := d.at(depsPos, func() error { return d.parseDeps(id, start, idx) }); err != nil {
			return err
		}
	}
	if isLoop {
		d.scopes = append(d.scopes, scope{axis: axis, name: m.Axis(axis).Name})
		if err := d.at(blocksSpan.v, func() error { return d.parseBlocks(id) }); err != nil {
			return err
		}
		d.scopes = d.scopes[:len(d.scopes)-1]
	}
	d.pos = end
	return nil
}

// engine resolves an engine spelling.
func (d *decoder) engine(pos int, s []byte) (bir.Engine, error) {
	if string(s) == engineNames[d.lastEngine] {
		return d.lastEngine, nil
	}
	if e, ok := engineByName[string(s)]; ok {
		d.lastEngine = e
		return e, nil
	}
	_, perr := bir.ParseEngine(string(s))
	return 0, d.errf(pos, "engine: %v", perr)
}

// loc resolves a memref through a small direct-mapped cache in front of
// the name map (a block of instructions names a few locations over and
// over).
func (d *decoder) loc(name []byte) (bir.LocID, string, bool) {
	h := 0
	if len(name) > 0 {
		h = (len(name)*31 + int(name[len(name)-1])*7 + int(name[0])) & (len(d.locCache) - 1)
	}
	c := &d.locCache[h]
	if c.ok && string(name) == c.name {
		return c.id, c.set, true
	}
	l, ok := d.f.LocByNameBytes(name)
	if !ok {
		return bir.NoLoc, "", false
	}
	lc := d.f.Loc(l)
	*c = locCacheEntry{name: lc.Name, set: d.f.Tensor(lc.Tensor).Name, id: l, ok: true}
	return l, c.set, true
}

// internPattern interns p through a small direct-mapped cache in front of
// Module.InternPattern (whose map key is a 88-byte struct).
func (d *decoder) internPattern(p bir.Pattern) bir.PatternID {
	if len(p) == 0 || len(p) > len(d.patCache[0].pairs) {
		return d.m.InternPattern(p)
	}
	h := uint64(len(p))
	for _, q := range p {
		h = (h ^ uint64(q.Step)) * 0x100000001b3
		h = (h ^ uint64(q.Num)) * 0x100000001b3
	}
	c := &d.patCache[(h^h>>32)&uint64(len(d.patCache)-1)]
	if c.ok && int(c.n) == len(p) {
		same := true
		for k, q := range p {
			if c.pairs[k] != q {
				same = false
				break
			}
		}
		if same {
			return c.id
		}
	}
	id := d.m.InternPattern(p)
	c.ok, c.n, c.id = true, int8(len(p)), id
	copy(c.pairs[:], p)
	return id
}

// opcode resolves an opcode name, registering unknown ones.
func (d *decoder) opcode(pos int, s []byte) (bir.Opcode, error) {
	if len(s) > 0 && string(s) == d.lastOpName {
		return d.lastOp, nil
	}
	if op, ok := opByName[string(s)]; ok {
		d.lastOp, d.lastOpName = op, op.String()
		return op, nil
	}
	if op, ok := d.unknownOps[string(s)]; ok {
		return op, nil
	}
	if len(s) == 0 {
		return 0, d.errf(pos, "opcode is empty")
	}
	if len(d.unknownOps) >= math.MaxUint16-int(bir.FirstUnknownOpcode) {
		return 0, d.errf(pos, "more than %d distinct unknown opcodes", len(d.unknownOps))
	}
	op := d.m.UnknownOpcode(string(s))
	d.unknownOps[string(s)] = op
	return op, nil
}

// parseLoopAxis reads {"name","lb","ub","stride", ...extra}.
func (d *decoder) parseLoopAxis(ax *bir.AxisInfo) error {
	d.ws()
	start := d.pos
	more, err := d.beginObject("LoopAxis")
	if err != nil {
		return err
	}
	const (
		kName = 1 << iota
		kLb
		kUb
		kStride
	)
	var seen uint
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		var bit uint
		switch string(key) {
		case "name":
			bit = kName
		case "lb":
			bit = kLb
		case "ub":
			bit = kUb
		case "stride":
			bit = kStride
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.dupKey(kpos, key)
			}
			seen |= bit
		}
		vpos := d.pos
		switch bit {
		case kName:
			var s []byte
			if s, err = d.str(); err == nil {
				ax.Name = string(s)
			}
		case kLb:
			ax.Lb, err = d.int()
		case kUb:
			ax.Ub, err = d.int()
		case kStride:
			if ax.Stride, err = d.int(); err == nil && ax.Stride <= 0 {
				return d.errf(vpos, "LoopAxis.stride: want > 0, have %d", ax.Stride)
			}
		default:
			err = d.addExtra(&ax.Extra, kpos, key)
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	for _, req := range []struct {
		bit  uint
		name string
	}{{kName, "name"}, {kLb, "lb"}, {kUb, "ub"}, {kStride, "stride"}} {
		if seen&req.bit == 0 {
			return d.errf(start, "LoopAxis: missing %q", req.name)
		}
	}
	return nil
}

// ---- dependencies ----

// parseDeps reads the "deps" extension of instruction id; the targets are
// resolved by name in pass 2.
func (d *decoder) parseDeps(id bir.InstID, instStart, instIdx int) error {
	more, err := d.beginArray("deps")
	for k := 0; err == nil && more; k++ {
		d.ctx.opd, d.ctx.opdIdx = "deps", k
		d.ws()
		start := d.pos
		var more2 bool
		if more2, err = d.beginObject("dependency"); err != nil {
			return err
		}
		p := pendingDep{inst: id, instStart: instStart, instIdx: instIdx, depIdx: k, pos: start}
		p.dep.CarryAxis = bir.NoAxis
		var seenOn, seenKind, seenAxis, seenDist, seenAll, seenPred bool
		for more2 {
			key, kpos, err := d.key()
			if err != nil {
				return err
			}
			vpos := d.pos
			dup := false
			switch string(key) {
			case "on":
				dup, seenOn = seenOn, true
				if !dup {
					if p.on, err = d.str(); err == nil {
						p.pos = vpos
					}
				}
			case "kind":
				dup, seenKind = seenKind, true
				if !dup {
					var s []byte
					if s, err = d.str(); err == nil {
						var perr error
						if p.dep.Kind, perr = bir.ParseDepKind(string(s)); perr != nil {
							return d.errf(vpos, "kind: %v", perr)
						}
					}
				}
			case "carry_axis":
				dup, seenAxis = seenAxis, true
				if !dup {
					var s []byte
					if s, err = d.str(); err == nil {
						ax, rerr := d.resolve(string(s))
						if rerr != nil {
							return d.errf(vpos, "carry_axis: %v", rerr)
						}
						p.dep.CarryAxis = ax
					}
				}
			case "carry_distance":
				dup, seenDist = seenDist, true
				if !dup {
					var v int64
					if v, err = d.int(); err == nil && (v < 0 || v > math.MaxInt32) {
						return d.errf(vpos, "carry_distance: want 0..%d, have %d", math.MaxInt32, v)
					}
					p.dep.CarryDist = int32(v)
				}
			case "carry_all":
				dup, seenAll = seenAll, true
				if !dup {
					p.dep.CarryAll, err = d.bool()
				}
			case "predicate":
				dup, seenPred = seenPred, true
				if !dup {
					p.dep.Pred, err = d.predicate("predicate")
				}
			default:
				return d.errf(kpos, "unknown key %q in a dependency (want on, kind, carry_axis, carry_distance, carry_all, predicate)", key)
			}
			if dup {
				return d.dupKey(kpos, key)
			}
			if err != nil {
				return err
			}
			if more2, err = d.nextField(); err != nil {
				return err
			}
		}
		switch {
		case !seenOn:
			return d.errf(start, `missing "on"`)
		case !seenKind:
			return d.errf(start, `missing "kind"`)
		case seenAxis != seenDist:
			return d.errf(start, "carry_axis and carry_distance go together: give both or neither")
		case p.dep.CarryAll && !seenAxis:
			return d.errf(start, "carry_all without carry_axis: only a carried dependency spans the inner loops")
		}
		d.pending = append(d.pending, p)
		more, err = d.nextElem()
	}
	d.ctx.opd = ""
	return err
}

// ---- affine text ----

// resolve maps an axis name to the innermost enclosing loop axis of that name.
func (d *decoder) resolve(name string) (affine.Axis, error) {
	for i := len(d.scopes) - 1; i >= 1; i-- {
		if d.scopes[i].name == name {
			return d.scopes[i].axis, nil
		}
	}
	return 0, fmt.Errorf("%q is not the LoopAxis name of an enclosing loop", name)
}

// exprText parses affine text in the current scope (cached per scope).
func (d *decoder) exprText(pos int, what string, text []byte) (bir.ExprID, error) {
	fr := &d.scopes[len(d.scopes)-1]
	if id, ok := fr.exprs[string(text)]; ok {
		return id, nil
	}
	if len(text) > maxExprText {
		return 0, d.errf(pos, "%s: affine text longer than %d bytes", what, maxExprText)
	}
	e, err := affine.Parse(string(text), d.resolver)
	if err != nil {
		return 0, d.errf(pos, "%s: %v", what, err)
	}
	id := d.m.InternExpr(e)
	if fr.exprs == nil {
		fr.exprs = map[string]bir.ExprID{}
	}
	fr.exprs[string(text)] = id
	return id, nil
}

// predicate reads a predicate string at the cursor.
func (d *decoder) predicate(what string) (bir.PredID, error) {
	d.ws()
	pos := d.pos
	if d.peek() != '"' {
		return 0, d.errf(pos, "%s: want affine predicate text (a string), found %s", what, d.found(pos))
	}
	text, err := d.str()
	if err != nil {
		return 0, err
	}
	fr := &d.scopes[len(d.scopes)-1]
	if id, ok := fr.preds[string(text)]; ok {
		return id, nil
	}
	if len(text) > maxExprText {
		return 0, d.errf(pos, "%s: affine text longer than %d bytes", what, maxExprText)
	}
	p, perr := affine.ParsePred(string(text), d.resolver)
	if perr != nil {
		return 0, d.errf(pos, "%s: %v", what, perr)
	}
	id := d.m.InternPred(p)
	if fr.preds == nil {
		fr.preds = map[string]bir.PredID{}
	}
	fr.preds[string(text)] = id
	return id, nil
}

// affineValue reads one expression: affine text or an integer constant. It
// reports stub=true (and consumes the value) for anything else, such as
// KLR's {"kind":"AffExprKind"}.
func (d *decoder) affineValue(what string) (id bir.ExprID, stub bool, err error) {
	d.ws()
	pos := d.pos
	switch c := d.peek(); {
	case c == '"':
		text, err := d.str()
		if err != nil {
			return 0, false, err
		}
		id, err = d.exprText(pos, what, text)
		return id, false, err
	case c == '-' || (c >= '0' && c <= '9'):
		v, err := d.int()
		if err != nil {
			return 0, false, err
		}
		return d.m.InternExpr(affine.Const(v)), false, nil
	}
	return 0, true, d.skip()
}

// ---- operands ----

// Operand keys the decoder interprets (bit numbers).
const (
	okKind = iota
	okDtype
	okMemref
	okMemsetref
	okOffset
	okAp
	okAddrs
	okAccessShape
	okRegref
	okValue
	okValueArray
	okValueList
	okExpr
	numOpdKeys
)

var opdKeyNames = [numOpdKeys]string{"kind", "dtype", "memref", "memsetref", "offset", "ap", "addrs", "access_shape", "regref", "value", "value_array", "value_list", "expr"}

// opdApplies lists, per operand kind, the keys that kind interprets; the
// others are kept verbatim in Operand.Extra.
var opdApplies = [bir.NumOperandKinds]uint16{
	bir.OpdPhysAP:   1<<okDtype | 1<<okMemref | 1<<okMemsetref | 1<<okOffset | 1<<okAp,
	bir.OpdSymAP:    1<<okDtype | 1<<okMemsetref | 1<<okAp | 1<<okAddrs | 1<<okAccessShape,
	bir.OpdRegAP:    1<<okDtype | 1<<okMemsetref | 1<<okAp | 1<<okRegref,
	bir.OpdRegister: 1<<okDtype | 1<<okRegref,
	bir.OpdImm:      1<<okDtype | 1<<okValue,
	bir.OpdImmArray: 1<<okDtype | 1<<okValueArray,
	bir.OpdSymImm:   1<<okDtype | 1<<okValueList | 1<<okExpr,
}

// opdRequired lists the keys each kind cannot do without.
var opdRequired = [bir.NumOperandKinds]uint16{
	bir.OpdPhysAP:   1<<okDtype | 1<<okMemref | 1<<okAp,
	bir.OpdSymAP:    1<<okDtype | 1<<okMemsetref | 1<<okAp,
	bir.OpdRegAP:    1<<okDtype | 1<<okMemsetref | 1<<okAp | 1<<okRegref,
	bir.OpdRegister: 1<<okDtype | 1<<okRegref,
	bir.OpdImm:      1<<okDtype | 1<<okValue,
	bir.OpdImmArray: 1<<okDtype | 1<<okValueArray,
	bir.OpdSymImm:   1<<okDtype | 1<<okValueList | 1<<okExpr,
}

// opdState collects one operand's fields.
type opdState struct {
	start   int
	kind    bir.OperandKind
	hasKind bool
	seen    uint16 // keys present
	used    uint16 // keys interpreted (applicable to the kind)
	keyPos  [numOpdKeys]int
	valPos  [numOpdKeys]int

	dtype               bir.Dtype
	memref, memsetref   []byte
	regref              []byte
	offset              int64
	pat                 bir.PatternID
	blockExpr, offExpr  bir.ExprID
	expr                bir.ExprID
	imm                 bir.Operand
	arrSpan, listSpan   fieldSpan
	shapeSpan           fieldSpan
	addrsStub, exprStub bool
}

func (d *decoder) parseOperands(dst *[]bir.Operand, which string) error {
	more, err := d.beginArray(which)
	for k := 0; err == nil && more; k++ {
		d.ctx.opd, d.ctx.opdIdx = which, k
		var o bir.Operand
		if o, err = d.parseOperand(); err != nil {
			return err
		}
		*dst = append(*dst, o)
		more, err = d.nextElem()
	}
	d.ctx.opd = ""
	return err
}

// keyLit is a predicted key: its literal text up to the colon, and its id.
type keyLit struct {
	lit string
	id  int
}

// opdSeq is the key order narwhal (and bir-json.md §7) writes, per operand
// kind; the decoder tries the next predicted key with one byte comparison
// before falling back to reading and matching the key.
var (
	opdSeqStart = []keyLit{{`"kind":`, okKind}}
	opdSeq      = [bir.NumOperandKinds][]keyLit{
		bir.OpdPhysAP:   {{`"memref":`, okMemref}, {`"memsetref":`, okMemsetref}, {`"dtype":`, okDtype}, {`"offset":`, okOffset}, {`"ap":`, okAp}},
		bir.OpdSymAP:    {{`"memsetref":`, okMemsetref}, {`"dtype":`, okDtype}, {`"addrs":`, okAddrs}, {`"access_shape":`, okAccessShape}, {`"ap":`, okAp}},
		bir.OpdRegAP:    {{`"memsetref":`, okMemsetref}, {`"regref":`, okRegref}, {`"dtype":`, okDtype}, {`"ap":`, okAp}},
		bir.OpdRegister: {{`"regref":`, okRegref}, {`"dtype":`, okDtype}},
		bir.OpdImm:      {{`"dtype":`, okDtype}, {`"value":`, okValue}},
		bir.OpdImmArray: {{`"dtype":`, okDtype}, {`"value_array":`, okValueArray}},
		bir.OpdSymImm:   {{`"dtype":`, okDtype}, {`"expr":`, okExpr}, {`"value_list":`, okValueList}},
	}
)

// predict consumes the key lit (and the whitespace after it) if it is next.
func (d *decoder) predict(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		d.ws()
		return true
	}
	return false
}

func opdKeyID(key []byte) int {
	switch string(key) {
	case "kind":
		return okKind
	case "dtype":
		return okDtype
	case "memref":
		return okMemref
	case "memsetref":
		return okMemsetref
	case "offset":
		return okOffset
	case "ap":
		return okAp
	case "addrs":
		return okAddrs
	case "access_shape":
		return okAccessShape
	case "regref":
		return okRegref
	case "value":
		return okValue
	case "value_array":
		return okValueArray
	case "value_list":
		return okValueList
	case "expr":
		return okExpr
	}
	return -1
}

func (d *decoder) parseOperand() (bir.Operand, error) {
	var st opdState
	st.start = d.pos
	d.ofields = d.ofields[:0]
	more, err := d.beginObject("operand")
	if err != nil {
		return bir.Operand{}, err
	}
	var deferred uint16 // keys seen before "kind"
	seq, next := opdSeqStart, 0
	for more {
		var key []byte // nil when the key was predicted
		var id int
		kpos := d.pos
		if next < len(seq) && d.predict(seq[next].lit) {
			id = seq[next].id
			next++
		} else {
			if key, kpos, err = d.key(); err != nil {
				return bir.Operand{}, err
			}
			id = opdKeyID(key)
		}
		vpos := d.pos
		switch {
		case id < 0:
			err = d.skip()
			d.ofields = append(d.ofields, fieldSpan{kpos, vpos, d.pos})
		case st.seen&(1<<id) != 0:
			return bir.Operand{}, d.errf(kpos, "duplicate key %q", opdKeyNames[id])
		case id == okKind:
			st.seen |= 1 << okKind
			var s []byte
			if s, err = d.str(); err != nil {
				break
			}
			k, ok := operandKind(s)
			if !ok {
				return bir.Operand{}, d.errf(vpos, "kind: unknown operand kind %q (want physical_ap, symbolic_ap, register_ap, register_access, imm_value, imm_array or symbolic_imm_value)", s)
			}
			st.kind, st.hasKind = k, true
			seq, next = opdSeq[k], 0
		case !st.hasKind:
			st.seen |= 1 << id
			st.keyPos[id], st.valPos[id] = kpos, vpos
			deferred |= 1 << id
			err = d.skip()
		default:
			st.seen |= 1 << id
			st.keyPos[id], st.valPos[id] = kpos, vpos // for errors found later (a dangling memref)
			err = d.operandField(&st, id, kpos)
		}
		if err != nil {
			return bir.Operand{}, err
		}
		if more, err = d.nextField(); err != nil {
			return bir.Operand{}, err
		}
	}
	end := d.pos
	if !st.hasKind {
		return bir.Operand{}, d.errf(st.start, `operand: missing "kind"`)
	}
	for id := 0; deferred != 0; id++ {
		if deferred&(1<<id) == 0 {
			continue
		}
		deferred &^= 1 << id
		if err := d.at(st.valPos[id], func() error { return d.operandField(&st, id, st.keyPos[id]) }); err != nil {
			return bir.Operand{}, err
		}
	}
	d.pos = end
	if miss := opdRequired[st.kind] &^ st.used; miss != 0 {
		for id := 0; id < numOpdKeys; id++ {
			if miss&(1<<id) != 0 {
				return bir.Operand{}, d.errf(st.start, "%s operand: missing %q", st.kind, opdKeyNames[id])
			}
		}
	}
	return d.buildOperand(&st)
}

func operandKind(s []byte) (bir.OperandKind, bool) {
	switch string(s) {
	case "physical_ap":
		return bir.OpdPhysAP, true
	case "symbolic_ap":
		return bir.OpdSymAP, true
	case "register_ap":
		return bir.OpdRegAP, true
	case "register_access":
		return bir.OpdRegister, true
	case "imm_value":
		return bir.OpdImm, true
	case "imm_array":
		return bir.OpdImmArray, true
	case "symbolic_imm_value":
		return bir.OpdSymImm, true
	}
	return 0, false
}

// operandField reads the value of key id (the operand's kind is known).
func (d *decoder) operandField(st *opdState, id, kpos int) error {
	vpos := d.pos
	if opdApplies[st.kind]&(1<<id) == 0 {
		err := d.skip()
		d.ofields = append(d.ofields, fieldSpan{kpos, vpos, d.pos})
		return err
	}
	st.used |= 1 << id
	var err error
	switch id {
	case okDtype:
		st.dtype, err = d.dtype()
	case okMemref:
		st.memref, err = d.str()
	case okMemsetref:
		st.memsetref, err = d.str()
	case okRegref:
		if st.regref, err = d.str(); err == nil && len(st.regref) == 0 {
			return d.errf(vpos, "regref is empty")
		}
	case okOffset:
		st.offset, err = d.nonNegInt("offset")
	case okAp:
		st.pat, err = d.pattern()
	case okAddrs:
		err = d.addrs(st, kpos, vpos)
	case okAccessShape:
		err = d.skip()
		st.shapeSpan = fieldSpan{kpos, vpos, d.pos}
	case okValue:
		st.imm, err = d.immValue()
	case okValueArray:
		err = d.numberList("value_array", false)
		st.arrSpan = fieldSpan{kpos, vpos, d.pos}
	case okValueList:
		err = d.numberList("value_list", true)
		st.listSpan = fieldSpan{kpos, vpos, d.pos}
	case okExpr:
		var stub bool
		st.expr, stub, err = d.affineValue("expr")
		if err == nil && stub {
			st.exprStub = true
			d.ofields = append(d.ofields, fieldSpan{kpos, vpos, d.pos})
		}
	}
	return err
}

// dtype reads a dtype: a name (bir-json.md §3.3 or narwhal's list) or a
// number 0..0x13.
func (d *decoder) dtype() (bir.Dtype, error) {
	d.ws()
	pos := d.pos
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return 0, err
		}
		if string(s) == dtypeNames[d.lastDtype] {
			return d.lastDtype, nil
		}
		if dt, ok := dtypeByName[string(s)]; ok {
			d.lastDtype = dt
			return dt, nil
		}
		_, perr := bir.ParseDtype(string(s))
		return 0, d.errf(pos, "dtype: %v", perr)
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := d.int()
		if err != nil {
			return 0, err
		}
		dt, perr := bir.DtypeFromNumber(n)
		if perr != nil {
			return 0, d.errf(pos, "dtype: %v", perr)
		}
		return dt, nil
	}
	return 0, d.errf(pos, "dtype: want a dtype name, found %s", d.found(pos))
}

// pattern reads an "ap": [[step, num], ...] (or [{"step":s,"num":n}, ...],
// the form of KLR's side branch) and interns it.
func (d *decoder) pattern() (bir.PatternID, error) {
	if id, ok := d.patternFast(); ok {
		return id, nil
	}
	d.pairs = d.pairs[:0]
	more, err := d.beginArray("ap")
	for err == nil && more {
		var q bir.APPair
		d.ws()
		pos := d.pos
		switch d.peek() {
		case '[':
			var m bool
			if m, err = d.beginArray("ap pair"); err != nil || !m {
				if err == nil {
					err = d.errf(pos, "ap: want a [step, num] pair, found []")
				}
				break
			}
			if q.Step, err = d.int(); err != nil {
				break
			}
			if m, err = d.nextElem(); err != nil || !m {
				if err == nil {
					err = d.errf(pos, "ap: want a [step, num] pair, found a single number")
				}
				break
			}
			if q.Num, err = d.int(); err != nil {
				break
			}
			if m, err = d.nextElem(); err == nil && m {
				err = d.errf(pos, "ap: want a [step, num] pair, found more than two numbers")
			}
		case '{':
			var m bool
			var seenStep, seenNum bool
			m, err = d.beginObject("ap pair")
			for err == nil && m {
				var k []byte
				var kpos int
				if k, kpos, err = d.key(); err != nil {
					break
				}
				switch string(k) {
				case "step":
					if seenStep {
						return 0, d.dupKey(kpos, k)
					}
					seenStep = true
					q.Step, err = d.int()
				case "num":
					if seenNum {
						return 0, d.dupKey(kpos, k)
					}
					seenNum = true
					q.Num, err = d.int()
				default:
					return 0, d.errf(kpos, "ap: unknown key %q in a {step, num} pair", k)
				}
				if err == nil {
					m, err = d.nextField()
				}
			}
			if err == nil && !(seenStep && seenNum) {
				err = d.errf(pos, "ap: a {step, num} pair needs both keys")
			}
		default:
			err = d.errf(pos, "ap: want a [step, num] pair, found %s", d.found(pos))
		}
		if err != nil {
			return 0, err
		}
		if q.Num < 0 {
			return 0, d.errf(pos, "ap: num must be >= 0, have %d", q.Num)
		}
		d.pairs = append(d.pairs, q)
		more, err = d.nextElem()
	}
	if err != nil {
		return 0, err
	}
	return d.internPattern(d.pairs), nil
}

// patternFast reads the compact form narwhal writes, [[s,n],[s,n],...]
// with small non-negative-num integers and no whitespace, in one tight loop.
// On anything else it leaves the cursor where it was and reports false;
// pattern then reads (and reports errors on) the general form.
func (d *decoder) patternFast() (bir.PatternID, bool) {
	data := d.data
	i := d.pos
	if i+1 >= len(data) || data[i] != '[' || data[i+1] != '[' {
		return 0, false
	}
	d.pairs = d.pairs[:0]
	i++
	for {
		// data[i] == '['
		i++
		step, j, ok := smallInt(data, i)
		if !ok || j >= len(data) || data[j] != ',' {
			return 0, false
		}
		num, k, ok := smallInt(data, j+1)
		if !ok || num < 0 || k+1 >= len(data) || data[k] != ']' {
			return 0, false
		}
		d.pairs = append(d.pairs, bir.APPair{Step: step, Num: num})
		switch data[k+1] {
		case ',':
			if k+2 >= len(data) || data[k+2] != '[' {
				return 0, false
			}
			i = k + 2
			continue
		case ']':
			d.pos = k + 2
			return d.internPattern(d.pairs), true
		}
		return 0, false
	}
}

// smallInt parses an integer of at most 18 digits at data[i:], returning
// the value and the index after it; ok is false when there is none or it
// is longer (the general path handles those and reports errors).
func smallInt(data []byte, i int) (v int64, end int, ok bool) {
	neg := i < len(data) && data[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(data) && data[i] >= '0' && data[i] <= '9' && i-start < 18 {
		v = v*10 + int64(data[i]-'0')
		i++
	}
	if i == start || (data[start] == '0' && i > start+1) || (i < len(data) && data[i] >= '0' && data[i] <= '9') {
		return 0, i, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// addrs reads a symbolic AP's ["<block>", "<offset>"]; any other form is
// kept verbatim in Extra with both expressions 0.
func (d *decoder) addrs(st *opdState, kpos, vpos int) error {
	if d.peek() != '[' {
		err := d.skip()
		st.addrsStub = true
		d.ofields = append(d.ofields, fieldSpan{kpos, vpos, d.pos})
		return err
	}
	var ids [2]bir.ExprID
	n, stub := 0, false
	more, err := d.beginArray("addrs")
	for err == nil && more {
		var id bir.ExprID
		var s bool
		if id, s, err = d.affineValue(fmt.Sprintf("addrs[%d]", n)); err != nil {
			return err
		}
		if n < 2 {
			ids[n] = id
		}
		stub = stub || s
		n++
		more, err = d.nextElem()
	}
	if err != nil {
		return err
	}
	if stub {
		st.addrsStub = true
		d.ofields = append(d.ofields, fieldSpan{kpos, vpos, d.pos})
		return nil
	}
	if n != 2 {
		return d.errf(vpos, "addrs: want 2 affine expressions [block index, element offset], have %d", n)
	}
	st.blockExpr, st.offExpr = ids[0], ids[1]
	return nil
}

// immValue reads an imm_value "value": integers stay integers, floats and
// the strings "nan", "inf", "-inf" are floats.
func (d *decoder) immValue() (bir.Operand, error) {
	d.ws()
	pos := d.pos
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return bir.Operand{}, err
		}
		if f, ok := bir.String(string(s)).AsFloat(); ok {
			return bir.ImmF(f, 0), nil
		}
		return bir.Operand{}, d.errf(pos, "value: want a number or \"nan\", \"inf\", \"-inf\", have %q", s)
	case c == '-' || (c >= '0' && c <= '9'):
		i, f, isInt, err := d.numValue()
		if err != nil {
			return bir.Operand{}, err
		}
		if isInt {
			return bir.ImmI(i, 0), nil
		}
		return bir.ImmF(f, 0), nil
	}
	return bir.Operand{}, d.errf(pos, "value: want a number, found %s", d.found(pos))
}

// numberList checks a value_array / value_list: numbers, the special float
// strings, and (wrappers allowed) {"value": x} objects.
func (d *decoder) numberList(key string, wrappers bool) error {
	more, err := d.beginArray(key)
	for err == nil && more {
		d.ws()
		pos := d.pos
		switch c := d.peek(); {
		case c == '"':
			var s []byte
			if s, err = d.str(); err == nil {
				if _, ok := bir.String(string(s)).AsFloat(); !ok {
					return d.errf(pos, "%s: want numbers, have %q", key, s)
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			_, _, _, err = d.numValue()
		case c == '{' && wrappers:
			var v bir.Value
			if v, err = d.value(); err == nil {
				if _, ok := v.Get("value"); !ok {
					return d.errf(pos, "%s: a wrapped element needs a \"value\" key", key)
				}
			}
		default:
			return d.errf(pos, "%s: want numbers, found %s", key, d.found(pos))
		}
		if err != nil {
			return err
		}
		more, err = d.nextElem()
	}
	return err
}

// buildOperand turns the collected fields into a bir.Operand.
func (d *decoder) buildOperand(st *opdState) (bir.Operand, error) {
	var o bir.Operand
	switch st.kind {
	case bir.OpdPhysAP:
		l, set, ok := d.loc(st.memref)
		if !ok {
			return o, d.errf(st.valPos[okMemref], "memref %q names no memory location of the function", st.memref)
		}
		if st.used&(1<<okMemsetref) != 0 && string(st.memsetref) != set {
			return o, d.errf(st.start, "memsetref %q does not match memref %q, which belongs to %q", st.memsetref, st.memref, set)
		}
		o = bir.PhysAP(l, st.dtype, st.offset, st.pat)
	case bir.OpdSymAP, bir.OpdRegAP:
		t, ok := d.tensors[string(st.memsetref)]
		if !ok {
			return o, d.errf(st.start, "memsetref %q names no allocation of the function", st.memsetref)
		}
		if st.kind == bir.OpdSymAP {
			o = bir.SymAP(t, st.dtype, st.blockExpr, st.offExpr, st.pat)
			if st.used&(1<<okAccessShape) != 0 {
				same := false
				err := d.at(st.shapeSpan.v, func() error {
					shape, err := d.intList("access_shape", false)
					if err == nil {
						same = shapeIs(shape, d.m.Pattern(st.pat))
					}
					return err
				})
				if err != nil {
					return o, err
				}
				if !same {
					// Keep a shape that disagrees with the pattern verbatim.
					d.ofields = append(d.ofields, st.shapeSpan)
				}
			}
		} else {
			o = bir.Operand{Kind: bir.OpdRegAP, Ref: int32(t), Expr: bir.ExprID(d.reg(st.regref)), Dtype: st.dtype, Pattern: st.pat}
		}
	case bir.OpdRegister:
		o = bir.RegOpd(d.reg(st.regref), st.dtype)
	case bir.OpdImm:
		o = st.imm
		o.Dtype = st.dtype
	case bir.OpdImmArray:
		id, err := d.internFields([]fieldSpan{st.arrSpan})
		if err != nil {
			return o, err
		}
		o = bir.Operand{Kind: bir.OpdImmArray, Ref: int32(id), Dtype: st.dtype}
	case bir.OpdSymImm:
		id, err := d.internFields([]fieldSpan{st.listSpan})
		if err != nil {
			return o, err
		}
		o = bir.Operand{Kind: bir.OpdSymImm, Ref: int32(id), Expr: st.expr, Dtype: st.dtype}
	}
	extra, err := d.internFields(d.ofields)
	if err != nil {
		return o, err
	}
	o.Extra = extra
	return o, nil
}

func shapeIs(shape []int64, p bir.Pattern) bool {
	if len(shape) != len(p) {
		return false
	}
	for i, q := range p {
		if shape[i] != q.Num {
			return false
		}
	}
	return true
}

// reg returns the register named b, creating it on first reference.
func (d *decoder) reg(b []byte) bir.RegID {
	if r, ok := d.regs[string(b)]; ok {
		return r
	}
	r := d.f.RegByName(string(b))
	d.regs[string(b)] = r
	return r
}
