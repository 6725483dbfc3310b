// Path A: the KLR-to-BIR code generator (the seed's KlirToBirCodegen::
// codegenLncKernel): one KLR kernel body (the body of this core) becomes
// one BIR function of NKI kind.
//
// Tensors. The kernel's inputs and outputs become DRAM tensors typed Input
// and Output ("<name>_set" with one location "<name>"), in the kernel's
// order. Every other tensor an access names becomes a tensor of its memory:
// sbuf -> SB (class NeuronSBTensor), psum -> PSUM (NeuronPSUMTensor),
// hbm/shared_hbm/private_hbm -> internal DRAM, or Const (class Const, File =
// the file) when LncKernel.sharedConstants names it. A tensor is
// [parDim, freeDims...] of its dtype; its location is parDim partitions x
// freeElements*dtypeSize bytes, so element e sits at partition Base +
// e/freeElements, which is what the birPattern row step (freeElements)
// assumes. Every mention of a tensor must agree (dtype, shape, address).
//
// Allocation. The seed asserts codegen.getIsAllocated(): translate consumes
// kernels the NKI front end already allocated. Every SBUF and PSUM tensor
// must carry Address.parOffset and freeOffset (bytes); SBUF -> Base =
// parOffset, Addr = freeOffset; PSUM -> Base = parOffset, Bank = freeOffset
// / bankBytes, Addr = freeOffset % bankBytes; Allocated is set. A tensor
// without an address fails the translation naming it.
//
// Accesses. Access.birPattern (what compiled kernels use) maps to a physical
// AP directly: element offset = BirAccessPattern.offset (= parStart*rowLen +
// freeStart, klr-format.md), pairs = the pattern's [step, num] (the pairs'
// own offset fields are the per-dimension starts already folded into the
// offset), dtype = dtypeOverride or the tensor's. Access.simple is the whole
// tensor row-major; Access.basic indexing becomes offset + pairs over the
// row-major strides (a coordinate on a free dimension drops the dimension,
// the partition pair always stays). Access.pattern is lowered as KLR's
// BirAccessPattern.fromAccessPattern does (codegen.pattern). On-chip
// simple, basic and pattern accesses must start on a partition quadrant,
// as KLR's Access.lowerAccessPattern requires ("Invalid partition start
// offset"). Dynamic offsets (scalarOffset/vectorOffset) and non-abstract
// TensorRefs are rejected with their source position. Every AP is checked
// to stay inside its tensor.
//
// Operators (nki.isa semantics, semantics.md):
//
//	ncDmaCopy, dmaCopy  Load (DRAM -> SB/PSUM), Save (on-chip -> DRAM),
//	                    else DMACopy mode Copy; compute_op add is a DMA
//	                    read-modify-write dst += src: DMACopy mode CCE with
//	                    ins [src, dst], constants [1, 1]. oob mode skip/error
//	                    -> oob_is_err on DMACopy.
//	tensorTensor        TensorTensor op, acc Idle
//	tensorScalar        TensorScalar (immediates; reverse none|first|second|
//	                    both -> reverse0/reverse1; no op1 -> bypass) or
//	                    TensorScalarPtr (tile operands, [P,1] APs)
//	ncActivate          Activation func (KLR name -> BIR ActivationFunctionType),
//	activate            scale, bias AP, acc = accumulatorCmd, alpha = imm
//	ncMatMul            Matmult ins [stationary, moving], start and stop set
//	                    (KLR 7ccd18c has no accumulate flag: each ncMatMul
//	                    writes its PSUM tile), is_transpose, tile fields,
//	                    perf_mode
//	loadStationary +    Matmult with the latched stationary of the last
//	matMul              loadStationary of the body
//	ncCopy, copy        TensorCopy (copy with opDim set is rejected: the
//	                    field has no documented meaning nor BIR field)
//	memSet              Memset mode Const, constant = the immediate
//	iota                Iota base = pattern.offset, pattern, channel_multiplier
//	tensorReduce        TensorReduce op, axis = opDim (X..XYZW), negate
//	transpose           Transpose (engine unassigned -> DVE, KLR's Transpose
//	                    is the Vector engine's 32x32 transpose)
//
// Engines map by name (act -> Activation, pe -> PE, dve -> DVE, pool ->
// Pool, sp -> SP, dma -> DMA, unassigned -> Unassigned) and must be allowed
// for the opcode. Operator dtype fields are not used: every AP carries the
// dtype the engine converts to or from. Every instruction carries its
// statement's source position (Instruction.Pos: file, line, column and the
// range end when KLR gives it), so every later diagnostic, dump and report
// can point at the NKI source. Instruction names are the statement's name when it has
// one, else "<operator>_<k>" (k counts the body's statements), made unique.
//
// Anything else - an operator narwhal does not lower, a field value with no
// BIR counterpart - is an error "unsupported operator <name> at
// <file>:<line>:<col>" (or naming the field), never a silent drop.
//
// Blocks: one BIR block per KLR block (label kept; noReorder kept as the
// block attribute "no_reorder"); empty blocks are dropped unless all are.
package translate

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/klr"
)

// lowerFromKLR is path A: read the KLR file, pick this core's body, run the
// code generator.
func (tr *translator) lowerFromKLR(f *bir.Function, i bir.InstID, path string) (*kernelFunc, error) {
	if err := checkVersionMatch(f, i); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fail to locate KLIR artifact %s: %w", path, err)
	}
	file, err := klr.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k := file.Contents.AsLnc()
	core, ok, err := tr.selectCore(len(k.Bodies))
	if err != nil || !ok {
		return nil, err
	}
	fn, err := CodegenLncKernel(tr.m, k, core, uniqueFuncName(tr.m, k.Name), tr.bankBytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n := len(k.Bodies); n > 1 {
		// The synchronization passes (insert_core_barrier,
		// insert_ptcom_flat) act on kernels that run on several cores.
		if tr.m.Config.Options == nil {
			tr.m.Config.Options = map[string]string{}
		}
		tr.m.Config.Options[bir.OptionLNC] = strconv.Itoa(n)
	}
	return &kernelFunc{fn: fn, inputs: ioParams(fn, false), outputs: ioParams(fn, true)}, nil
}

// checkVersionMatch is seed 003's gate of path A: the placeholder's
// "klir_version" (when present) must be "M.m.p" = KLIRVersion.
func checkVersionMatch(f *bir.Function, i bir.InstID) error {
	v, ok := f.Attrs(i).Get(AttrKLIRVersion)
	if !ok || v.Kind == bir.ValNull {
		return nil
	}
	if v.Kind != bir.ValString {
		return fmt.Errorf("%s: want a version string \"M.m.p\", have %s", AttrKLIRVersion, v.JSON())
	}
	parts := strings.Split(v.S, ".")
	if len(parts) != 3 {
		return fmt.Errorf("%s %q: want \"M.m.p\" (three numbers)", AttrKLIRVersion, v.S)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return fmt.Errorf("%s %q: want \"M.m.p\" (three numbers)", AttrKLIRVersion, v.S)
		}
	}
	if v.S != KLIRVersion {
		return fmt.Errorf("KLIR version mismatch: the kernel is KLIR %s, narwhal lowers KLIR %s (checkVersionMatch)", v.S, KLIRVersion)
	}
	return nil
}

// CodegenLncKernel generates the BIR function name in m for body core of
// kernel k. bankBytes is the PSUM bank size of the target. On error m is
// unchanged.
func CodegenLncKernel(m *bir.Module, k *klr.LncKernel, core int, name string, bankBytes int64) (*bir.Function, error) {
	if core < 0 || core >= len(k.Bodies) {
		return nil, fmt.Errorf("kernel %s has %d per-core bodies, no body for core %d", k.Name, len(k.Bodies), core)
	}
	if bankBytes <= 0 {
		bankBytes = 2048
	}
	f, err := m.NewFunction(name)
	if err != nil {
		return nil, err
	}
	f.Kind = bir.FuncNKI
	cg := &codegen{m: m, f: f, k: k, core: core, bankBytes: bankBytes,
		tensors: map[string]*cgTensor{}, consts: map[string]string{}, names: map[string]bool{}}
	for _, c := range k.SharedConstants {
		cg.consts[c.Name] = c.FileName
	}
	if err := cg.run(k.Bodies[core]); err != nil {
		m.RemoveFunction(f)
		return nil, diag.Errorf(diag.KernelCodegen, "kernel %s, core %d: %w", k.Name, core, err)
	}
	return f, nil
}

type codegen struct {
	m         *bir.Module
	f         *bir.Function
	k         *klr.LncKernel
	core      int
	bankBytes int64
	tensors   map[string]*cgTensor
	consts    map[string]string
	names     map[string]bool
	blk       bir.BlockID
	stmt      *klr.Stmt
	nstmt     int

	stationary    bir.Operand // latched by loadStationary
	hasStationary bool
	statTranspose bool
}

// cgTensor is a tensor of the generated function.
type cgTensor struct {
	id    bir.TensorID
	loc   bir.LocID
	tn    klr.TensorName
	dtype bir.Dtype
	mem   bir.MemoryType
	shape []int64
	elems int64 // total elements
	row   int64 // elements per partition row
	where string
}

// errf is an error at the current statement: a *bir.PosError carrying
// its NKI source position, which leads the message
// ("kernels.py:28:4: unsupported operator tensorTensorScan").
func (cg *codegen) errf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if cg.stmt == nil {
		return err
	}
	return &bir.PosError{Pos: sourcePos(cg.stmt.Pos), Err: err}
}

func (cg *codegen) run(body []klr.Block) error {
	for _, t := range cg.k.Inputs {
		if _, err := cg.declare(t, bir.MemInput, "kernel input"); err != nil {
			return err
		}
	}
	for _, t := range cg.k.Outputs {
		if _, err := cg.declare(t, bir.MemOutput, "kernel output"); err != nil {
			return err
		}
	}
	var blocks []bir.BlockID
	for bi := range body {
		b := &body[bi]
		cg.blk = cg.f.NewBlock(b.Label, bir.NoInst)
		if b.NoReorder {
			cg.f.Block(cg.blk).Extra = bir.Attrs("no_reorder", true)
		}
		blocks = append(blocks, cg.blk)
		for si := range b.Body {
			cg.stmt = &b.Body[si]
			if err := cg.emit(cg.stmt.Op); err != nil {
				return err
			}
			cg.nstmt++
		}
		cg.stmt = nil
	}
	// Finalize: drop empty blocks (keep one so the function has a body).
	var kept []bir.BlockID
	for _, b := range blocks {
		if len(cg.f.Block(b).Insts) > 0 {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 && len(blocks) == 0 {
		kept = []bir.BlockID{cg.f.NewBlock("Block1", bir.NoInst)}
	} else if len(kept) == 0 {
		kept = blocks[:1]
	}
	cg.f.Top = kept
	return nil
}

// bir dtype of a KLR dtype (by name: the two enums number differently).
func birDtype(d klr.Dtype) (bir.Dtype, error) {
	return bir.ParseDtype(d.String())
}

func tensorDesc(t *klr.TensorName) string {
	a := &t.Address
	opt := func(o klr.Opt[uint64]) string {
		if !o.Valid {
			return "none"
		}
		return strconv.FormatUint(o.V, 10)
	}
	return fmt.Sprintf("%s %v in %s (parSize %d, freeSize %d, parOffset %s, freeOffset %s)",
		t.Dtype, t.Shape.Dims(), a.Memory, a.ParSize, a.FreeSize, opt(a.ParOffset), opt(a.FreeOffset))
}

func sameTensor(a, b *klr.TensorName) bool {
	if a.Name != b.Name || a.Dtype != b.Dtype || a.FreeElements != b.FreeElements || a.Shape.ParDim != b.Shape.ParDim ||
		len(a.Shape.FreeDims) != len(b.Shape.FreeDims) || a.Address.Memory != b.Address.Memory ||
		a.Address.ParOffset != b.Address.ParOffset || a.Address.FreeOffset != b.Address.FreeOffset {
		return false
	}
	for i := range a.Shape.FreeDims {
		if a.Shape.FreeDims[i] != b.Shape.FreeDims[i] {
			return false
		}
	}
	return true
}

// tensor returns the function tensor of t, declaring it on first use.
func (cg *codegen) tensor(t *klr.TensorName) (*cgTensor, error) {
	if ct, ok := cg.tensors[t.Name]; ok {
		if sameTensor(&ct.tn, t) {
			return ct, nil
		}
		// A kernel input or output, declared from the kernel's lists, may be
		// restated by an access with its own HBM address record; dtype and
		// shape must agree.
		io := ct.mem == bir.MemInput || ct.mem == bir.MemOutput
		if io && t.Address.Memory.IsHBM() && ct.tn.Dtype == t.Dtype && slicesEqual(ct.tn.Shape.Dims(), t.Shape.Dims()) {
			return ct, nil
		}
		return nil, cg.errf("tensor %s is %s here but %s %s", t.Name, tensorDesc(t), ct.where, tensorDesc(&ct.tn))
	}
	var mt bir.MemoryType
	switch {
	case t.Address.Memory == klr.MemSBUF:
		mt = bir.MemSB
	case t.Address.Memory == klr.MemPSUM:
		mt = bir.MemPSUM
	case t.Address.Memory.IsHBM():
		mt = bir.MemDRAM
	default:
		return nil, cg.errf("tensor %s lives in %s memory, which narwhal does not lower", t.Name, t.Address.Memory)
	}
	where := "first used as"
	if cg.stmt != nil {
		where = "first used at " + cg.stmt.Pos.String() + " as"
	}
	return cg.declare(*t, mt, where)
}

// declare adds tensor t of memory type mt to the function.
func (cg *codegen) declare(t klr.TensorName, mt bir.MemoryType, where string) (*cgTensor, error) {
	if _, dup := cg.tensors[t.Name]; dup {
		return nil, cg.errf("%s %s is declared twice", where, t.Name)
	}
	dt, err := birDtype(t.Dtype)
	if err != nil {
		return nil, cg.errf("tensor %s: %v", t.Name, err)
	}
	free, ok := shapeElems(t.Shape.FreeDims)
	if !ok {
		return nil, cg.errf("tensor %s: free dimensions %v are too large", t.Name, t.Shape.FreeDims)
	}
	if t.FreeElements != free {
		return nil, cg.errf("tensor %s: freeElements %d, but its free dimensions %v hold %d", t.Name, t.FreeElements, t.Shape.FreeDims, free)
	}
	if total, ok := shapeElems(t.Shape.Dims()); !ok || total == 0 || total > maxElems/uint64(dt.Size()) {
		return nil, cg.errf("tensor %s: unsupported shape %v", t.Name, t.Shape.Dims())
	}
	shape := make([]int64, 0, 1+len(t.Shape.FreeDims))
	for _, d := range t.Shape.Dims() {
		shape = append(shape, int64(d))
	}
	if mt == bir.MemInput || mt == bir.MemOutput {
		where = "the kernel declares it"
	}
	ct := &cgTensor{tn: t, dtype: dt, mem: mt, shape: shape, row: int64(free), elems: int64(t.Shape.ParDim) * int64(free), where: where}
	ts := bir.Tensor{Name: t.Name + "_set", Dtype: dt, Shape: shape}
	loc := bir.MemLoc{Name: t.Name, Type: mt, Partitions: int64(t.Shape.ParDim), Bytes: int64(free) * dt.Size()}
	switch mt {
	case bir.MemInput:
		ts.Kind, ts.Class = bir.KindInput, bir.ClassTensor
	case bir.MemOutput:
		ts.Kind, ts.Class = bir.KindOutput, bir.ClassTensor
	case bir.MemDRAM:
		ts.Kind, ts.Class = bir.KindInternal, bir.ClassTensor
		if file, ok := cg.consts[t.Name]; ok {
			ts.Kind, ts.Class, ts.File = bir.KindConst, bir.ClassConst, file
		}
	case bir.MemSB, bir.MemPSUM:
		ts.Kind, ts.Class = bir.KindInternal, bir.ClassNeuronSBTensor
		if mt == bir.MemPSUM {
			ts.Class = bir.ClassNeuronPSUMTensor
		}
		a := &t.Address
		if !a.ParOffset.Valid || !a.FreeOffset.Valid {
			return nil, cg.errf("%s tensor %s has no address (parOffset/freeOffset): the kernel is not allocated; translate_nki_ast_to_bir lowers kernels the NKI compiler has allocated (seed 003: assert codegen.getIsAllocated())", mt, t.Name)
		}
		if a.ParOffset.V > 1<<20 || a.FreeOffset.V > 1<<40 {
			return nil, cg.errf("%s tensor %s: address (partition %d, byte %d) out of range", mt, t.Name, a.ParOffset.V, a.FreeOffset.V)
		}
		loc.Base = int64(a.ParOffset.V)
		loc.Allocated = true
		if mt == bir.MemSB {
			loc.Addr = int64(a.FreeOffset.V)
		} else {
			loc.Bank = int64(a.FreeOffset.V) / cg.bankBytes
			loc.Addr = int64(a.FreeOffset.V) % cg.bankBytes
		}
	}
	id, err := cg.f.AddTensor(ts)
	if err != nil {
		return nil, cg.errf("tensor %s: %v", t.Name, err)
	}
	l, err := cg.f.AddLoc(id, loc)
	if err != nil {
		return nil, cg.errf("tensor %s: %v", t.Name, err)
	}
	ct.id, ct.loc = id, l
	cg.tensors[t.Name] = ct
	return ct, nil
}

// apArg names one access-pattern field of an operator for aps.
type apArg struct {
	field string
	ref   *klr.TensorRef
}

// aps converts several access-pattern fields, in order, stopping at the
// first error (the operator's operands, where the tensors are not needed).
func (cg *codegen) aps(args ...apArg) ([]bir.Operand, error) {
	ops := make([]bir.Operand, len(args))
	for k, a := range args {
		op, _, err := cg.ap(a.field, a.ref)
		if err != nil {
			return nil, err
		}
		ops[k] = op
	}
	return ops, nil
}

// ap converts a TensorRef to a physical AP operand.
func (cg *codegen) ap(field string, r *klr.TensorRef) (bir.Operand, *cgTensor, error) {
	if r.Kind != klr.RefAbstract {
		return bir.Operand{}, nil, cg.errf("%s: TensorRef.%s is not supported (compiled kernels use TensorRef.abstract)", field, r.KindName())
	}
	a := r.Access
	ct, err := cg.tensor(a.Tensor())
	if err != nil {
		return bir.Operand{}, nil, err
	}
	dt := ct.dtype
	var offset int64
	var pairs bir.Pattern
	switch a.Kind {
	case klr.AccessKindBirPattern:
		b := a.Bir
		if b.ScalarOffset.Valid || b.VectorOffset.Valid {
			return bir.Operand{}, nil, cg.errf("%s: dynamic access of %s (scalarOffset/vectorOffset) is not supported", field, ct.tn.Name)
		}
		if b.DtypeOverride.Valid {
			if dt, err = birDtype(b.DtypeOverride.V); err != nil {
				return bir.Operand{}, nil, cg.errf("%s: %v", field, err)
			}
		}
		offset = b.Offset
		if b.Offset < -maxElems || b.Offset > maxElems {
			return bir.Operand{}, nil, cg.errf("%s: offset %d out of range", field, b.Offset)
		}
		for _, p := range b.Pattern {
			if p.Num > maxElems || p.Step < -maxElems || p.Step > maxElems {
				return bir.Operand{}, nil, cg.errf("%s: pattern pair [step %d, num %d] out of range", field, p.Step, p.Num)
			}
			pairs = append(pairs, bir.APPair{Step: p.Step, Num: int64(p.Num)})
		}
	case klr.AccessKindSimple:
		step := int64(1)
		pairs = make(bir.Pattern, len(ct.shape))
		for d := len(ct.shape) - 1; d >= 0; d-- {
			pairs[d] = bir.APPair{Step: step, Num: ct.shape[d]}
			step *= ct.shape[d]
		}
	case klr.AccessKindBasic:
		if offset, pairs, err = cg.basic(field, ct, a.Basic); err != nil {
			return bir.Operand{}, nil, err
		}
	case klr.AccessKindPattern:
		if offset, pairs, err = cg.pattern(field, ct, a.Pattern); err != nil {
			return bir.Operand{}, nil, err
		}
	default:
		return bir.Operand{}, nil, cg.errf("%s: Access.%s of %s is not supported", field, a.KindName(), ct.tn.Name)
	}
	if a.Kind != klr.AccessKindBirPattern && ct.mem != bir.MemDRAM && ct.mem != bir.MemInput && ct.mem != bir.MemOutput {
		// KLR's own lowering of these forms (Access.lowerAccessPattern)
		// refuses an on-chip partition start off the quadrants.
		if ps := offset / ct.row; offset >= 0 && ps%32 != 0 {
			return bir.Operand{}, nil, cg.errf("%s: Invalid partition start offset %d for non-HBM memory. Valid offsets are: 0, 32, 64, 96 (Access.%s of %s)", field, ps, a.KindName(), ct.tn.Name)
		}
	}
	if len(pairs) == 0 {
		return bir.Operand{}, nil, cg.errf("%s: empty access pattern of %s", field, ct.tn.Name)
	}
	// Bounds: the AP's elements must stay inside the tensor (in units of
	// the AP's dtype).
	limit := ct.elems * ct.dtype.Size() / dt.Size()
	lo, hi, empty := offset, offset, false
	for _, p := range pairs {
		if p.Num == 0 {
			empty = true
			break
		}
		// |step|, num <= maxElems = 2^40: the product fits in 64 bits.
		ext := p.Step * (p.Num - 1)
		if ext < 0 {
			lo += ext
		} else {
			hi += ext
		}
	}
	if !empty && (lo < 0 || hi >= limit) {
		return bir.Operand{}, nil, cg.errf("%s: access pattern %v at offset %d of %s reaches elements %d..%d, the tensor holds %d %s elements", field, pairs, offset, ct.tn.Name, lo, hi, limit, dt)
	}
	return bir.PhysAP(ct.loc, dt, offset, cg.m.InternPattern(pairs)), ct, nil
}

// pattern lowers an Access.pattern the way KLR's
// BirAccessPattern.fromAccessPattern does: element offset = rowLen *
// parOffset + freeOffset, pairs = [rowLen, parNum] followed by the
// pattern's [step, num] pairs, where rowLen is the tensor's free elements
// (the row-major layout every KLR access assumes). The pairs' own offset
// fields are per-dimension starts: either all zero, or already folded into
// freeOffset (sum offset*step = freeOffset, as in birPattern); anything
// else is ambiguous and refused. fixedAxis, an Option, is accepted either
// way and changes nothing: fromAccessPattern builds the BirAccessPattern
// from the tensor, parNum, the pattern, parOffset and freeOffset alone
// ("offset := free * ap.parOffset + ap.freeOffset, pattern := ⟨ free,
// ap.parNum ⟩ :: ap.freePattern"), so a fixed axis selects no other
// element; anything but an Option there is a malformed file.
func (cg *codegen) pattern(field string, ct *cgTensor, p *klr.AccessPattern) (int64, bir.Pattern, error) {
	if fa := p.FixedAxis; !(fa.Kind == klr.RawCtor && fa.Type == 0xff && (fa.Ctor == 0 && len(fa.Items) == 0 || fa.Ctor == 1 && len(fa.Items) == 1)) {
		return 0, nil, cg.errf("%s: Access.pattern of %s: fixedAxis (CBOR item at byte %d) is not an Option (want none or some)", field, ct.tn.Name, fa.Offset)
	}
	if p.ParNum > uint64(maxElems) || p.ParOffset > uint64(maxElems) || p.FreeOffset > uint64(maxElems) {
		return 0, nil, cg.errf("%s: Access.pattern of %s: parNum %d, parOffset %d, freeOffset %d out of range", field, ct.tn.Name, p.ParNum, p.ParOffset, p.FreeOffset)
	}
	pairs := bir.Pattern{{Step: ct.row, Num: int64(p.ParNum)}}
	var folded int64
	starts := false
	for _, q := range p.Pattern {
		if q.Num > uint64(maxElems) || q.Step < -maxElems || q.Step > maxElems || q.Offset < -maxElems || q.Offset > maxElems {
			return 0, nil, cg.errf("%s: Access.pattern of %s: pair [step %d, num %d, offset %d] out of range", field, ct.tn.Name, q.Step, q.Num, q.Offset)
		}
		pairs = append(pairs, bir.APPair{Step: q.Step, Num: int64(q.Num)})
		folded += q.Offset * q.Step
		starts = starts || q.Offset != 0
	}
	if starts && folded != int64(p.FreeOffset) {
		return 0, nil, cg.errf("%s: Access.pattern of %s: the pairs' starts give free offset %d but freeOffset is %d", field, ct.tn.Name, folded, p.FreeOffset)
	}
	return int64(p.ParOffset)*ct.row + int64(p.FreeOffset), pairs, nil
}

// basic lowers basic indexing over the tensor's row-major layout.
func (cg *codegen) basic(field string, ct *cgTensor, b *klr.AccessBasic) (int64, bir.Pattern, error) {
	if len(b.Indexes) != len(ct.shape) {
		return 0, nil, cg.errf("%s: %d indexes for the %d dimensions of %s", field, len(b.Indexes), len(ct.shape), ct.tn.Name)
	}
	strides := make([]int64, len(ct.shape))
	s := int64(1)
	for d := len(ct.shape) - 1; d >= 0; d-- {
		strides[d] = s
		s *= ct.shape[d]
	}
	var offset int64
	var pairs bir.Pattern
	for d, x := range b.Indexes {
		n := ct.shape[d]
		switch x.Kind {
		case klr.IndexCoord:
			if x.Coord >= uint64(n) {
				return 0, nil, cg.errf("%s: index %d of dimension %d of %s (size %d)", field, x.Coord, d, ct.tn.Name, n)
			}
			offset += int64(x.Coord) * strides[d]
			if d == 0 {
				pairs = append(pairs, bir.APPair{Step: strides[0], Num: 1})
			}
		default:
			sl := x.Slice
			if sl.Step == 0 || sl.Step < -maxElems || sl.Step > maxElems {
				return 0, nil, cg.errf("%s: slice step %d on dimension %d of %s", field, sl.Step, d, ct.tn.Name)
			}
			var num int64
			l, u := int64(min(sl.L, uint64(n))), int64(min(sl.U, uint64(n)))
			if sl.Step > 0 && u > l {
				num = (u - l + sl.Step - 1) / sl.Step
			} else if sl.Step < 0 && l > u {
				num = (l - u + (-sl.Step) - 1) / (-sl.Step)
			}
			if num > 0 && (l >= n || l < 0) {
				return 0, nil, cg.errf("%s: slice %d:%d:%d of dimension %d of %s (size %d)", field, sl.L, sl.U, sl.Step, d, ct.tn.Name, n)
			}
			offset += l * strides[d]
			pairs = append(pairs, bir.APPair{Step: sl.Step * strides[d], Num: num})
		}
	}
	return offset, pairs, nil
}

var engineMap = map[klr.Engine]bir.Engine{
	klr.EngUnassigned: bir.EngUnassigned,
	klr.EngAct:        bir.EngAct,
	klr.EngDMA:        bir.EngDMA,
	klr.EngDVE:        bir.EngDVE,
	klr.EngPE:         bir.EngPE,
	klr.EngPool:       bir.EngPool,
	klr.EngSP:         bir.EngSP,
}

// engine maps a KLR engine and checks it is allowed for op.
func (cg *codegen) engine(e klr.Engine, op bir.Opcode) (bir.Engine, error) {
	be, ok := engineMap[e]
	if !ok {
		return 0, cg.errf("unknown engine %s", e)
	}
	if !op.Info().Engines.Has(be) && be != bir.EngUnassigned {
		return 0, cg.errf("%s cannot run on engine %s (%s)", op, e, be)
	}
	return be, nil
}

// emitInst appends an instruction named after the statement.
func (cg *codegen) emitInst(op bir.Opcode, eng bir.Engine, ins, outs []bir.Operand, attrs bir.AttrSet) {
	name := ""
	if cg.stmt.Name.Valid && cg.stmt.Name.V != "" {
		name = cg.stmt.Name.V
	} else {
		name = cg.stmt.Op.Name() + "_" + strconv.Itoa(cg.nstmt)
	}
	if cg.names[name] {
		base := name
		for k := 1; cg.names[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
	}
	cg.names[name] = true
	id := cg.f.NewInst(op, name, eng, ins, outs, attrs)
	cg.f.SetPos(id, sourcePos(cg.stmt.Pos))
	cg.f.Append(cg.blk, id)
}

// sourcePos converts a KLR statement position to bir's.
func sourcePos(p klr.Pos) bir.Pos {
	q := bir.Pos{Line: bir.ClampPosInt(p.Line), Col: bir.ClampPosInt(p.Column)}
	if p.Filename.Valid {
		q.File = p.Filename.V
	}
	if p.LineEnd.Valid {
		q.EndLine = bir.ClampPosInt(p.LineEnd.V)
	}
	if p.ColumnEnd.Valid {
		q.EndCol = bir.ClampPosInt(p.ColumnEnd.V)
	}
	return q
}

func immValue(x *klr.Immediate) (bir.Value, bool) {
	switch x.Kind {
	case klr.ImmFloat:
		return bir.Float(float64(x.Float)), true
	case klr.ImmInt:
		return bir.Int(int64(x.Int)), true
	}
	return bir.Value{}, false
}

func immFloat(x *klr.Immediate) (float64, bool) {
	switch x.Kind {
	case klr.ImmFloat:
		return float64(x.Float), true
	case klr.ImmInt:
		return float64(x.Int), true
	}
	return 0, false
}

// activationFuncs maps KLR ActivationFunc names to BIR's
// ActivationFunctionType (bir-json.md §4.3).
var activationFuncs = map[string]string{
	"abs": "Abs", "arctan": "Arctan", "copy": "Copy", "erf": "Erf", "erf_dx": "Derivative_Erf",
	"exp": "Exp", "gelu": "Gelu", "gelu_apprx_tanh": "Gelu_apprx_tanh", "gelu_dx": "Derivative_Gelu",
	"log": "Ln", "mish": "Mish", "reciprocal": "Reciprocal", "relu": "Relu", "rsqrt": "Rsqrt",
	"sigmoid": "Sigmoid", "sign": "Sign", "silu": "Silu", "silu_dx": "Derivative_silu", "sin": "Sin",
	"softplus": "Softplus", "sqrt": "Sqrt", "square": "Square", "tanh": "Tanh",
	"gelu_apprx_sigmoid": "Gelu_apprx_sigmoid",
}

func (cg *codegen) emit(op klr.Operator) error {
	switch o := op.(type) {
	case *klr.NcDmaCopy:
		if o.OobMode.Kind == klr.BoundsReg {
			return cg.errf("ncDmaCopy: oobMode.reg (a register-held bounds flag) is not supported")
		}
		eng, err := cg.engine(o.Engine, bir.OpDMACopy)
		if err != nil {
			return err
		}
		return cg.dma(&o.Dst, &o.Src, o.ComputeOp, o.OobMode.Kind == klr.BoundsError, eng, o.DgeMode)
	case *klr.DmaCopy:
		if o.DstBoundsCheck.Kind == klr.BoundsReg || o.SrcBoundsCheck.Kind == klr.BoundsReg {
			return cg.errf("dmaCopy: a register-held bounds check is not supported")
		}
		oob := o.DstBoundsCheck.Kind == klr.BoundsError || o.SrcBoundsCheck.Kind == klr.BoundsError
		return cg.dma(&o.Dst, &o.Src, o.ComputeOp, oob, bir.EngUnassigned, 0)
	case *klr.TensorTensor:
		ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src0", &o.Src0}, apArg{"src1", &o.Src1})
		if err != nil {
			return err
		}
		dst, a, b := ops[0], ops[1], ops[2]
		eng, err := cg.engine(o.Engine, bir.OpTensorTensor)
		if err != nil {
			return err
		}
		cg.emitInst(bir.OpTensorTensor, eng, []bir.Operand{a, b}, []bir.Operand{dst}, bir.Attrs("op", o.Op.String(), "acc", "Idle"))
		return nil
	case *klr.TensorScalar:
		return cg.tensorScalar(o)
	case *klr.NcActivate:
		return cg.ncActivate(o)
	case *klr.Activate:
		return cg.activate(o)
	case *klr.NcMatMul:
		ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"stationary", &o.Stationary}, apArg{"moving", &o.Moving})
		if err != nil {
			return err
		}
		dst, st, mv := ops[0], ops[1], ops[2]
		attrs := bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", true, "is_transpose", o.IsTranspose,
			"is_weight_onezero", o.IsStationaryOneZero, "is_fmap_onezero", o.IsMovingZero)
		for _, tf := range []struct {
			key string
			v   []uint64
		}{{"tile_position", o.TilePosition}, {"tile_size", o.TileSize}} {
			switch len(tf.v) {
			case 0:
			case 2:
				attrs = append(attrs, bir.Field{Key: tf.key, Val: bir.Ints(int64(tf.v[0]), int64(tf.v[1]))})
			default:
				return cg.errf("ncMatMul: %s has %d entries, want 2 (row, column)", tf.key, len(tf.v))
			}
		}
		switch o.PerfMode.String() {
		case "None":
			attrs = append(attrs, bir.Field{Key: "perf_mode", Val: bir.String("None")})
		case "DoubleRow":
			attrs = append(attrs, bir.Field{Key: "perf_mode", Val: bir.String("DoubleRow")})
		default:
			return cg.errf("ncMatMul: perfMode %s has no BIR counterpart", o.PerfMode)
		}
		cg.emitInst(bir.OpMatmult, bir.EngPE, []bir.Operand{st, mv}, []bir.Operand{dst}, attrs)
		return nil
	case *klr.LoadStationary:
		src, _, err := cg.ap("src", &o.Src)
		if err != nil {
			return err
		}
		cg.stationary, cg.hasStationary, cg.statTranspose = src, true, o.IsTranspose
		return nil
	case *klr.MatMul:
		if !cg.hasStationary {
			return cg.errf("matMul without a preceding loadStationary")
		}
		ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"moving", &o.Moving})
		if err != nil {
			return err
		}
		dst, mv := ops[0], ops[1]
		cg.emitInst(bir.OpMatmult, bir.EngPE, []bir.Operand{cg.stationary, mv}, []bir.Operand{dst},
			bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", true, "is_transpose", cg.statTranspose))
		return nil
	case *klr.NcCopy:
		eng, err := cg.engine(o.Engine, bir.OpTensorCopy)
		if err != nil {
			return err
		}
		return cg.copyOp(&o.Dst, &o.Src, eng)
	case *klr.Copy:
		// KLR's Copy.opDim (a TensorSubDim) has no documented meaning
		// (klr-format.md, semantics.md §4.9 describe an elementwise copy
		// only) and no TensorCopy field to carry it: reject it rather than
		// drop it.
		if o.OpDim.Valid {
			return cg.errf("copy: opDim %s is not supported (TensorCopy copies elementwise; KLR's per-axis copy has no BIR counterpart)", o.OpDim.V)
		}
		return cg.copyOp(&o.Dst, &o.Src, bir.EngUnassigned)
	case *klr.MemSet:
		dst, _, err := cg.ap("dst", &o.Dst)
		if err != nil {
			return err
		}
		v, ok := immValue(&o.Value)
		if !ok {
			return cg.errf("memSet: value Immediate.%s is not supported (want an int or float immediate)", o.Value.KindName())
		}
		eng, err := cg.engine(o.Engine, bir.OpMemset)
		if err != nil {
			return err
		}
		cg.emitInst(bir.OpMemset, eng, nil, []bir.Operand{dst}, bir.Attrs("mode", "Const", "constant", v))
		return nil
	case *klr.Iota:
		dst, _, err := cg.ap("dst", &o.Dst)
		if err != nil {
			return err
		}
		pl := make([]bir.Value, len(o.Pattern.Pattern))
		for i, p := range o.Pattern.Pattern {
			pl[i] = bir.Object(bir.Field{Key: "step", Val: bir.Int(p.Step)}, bir.Field{Key: "num", Val: bir.Int(int64(p.Num))})
		}
		cg.emitInst(bir.OpIota, bir.EngPool, nil, []bir.Operand{dst}, bir.Attrs("base", o.Pattern.Offset,
			"pattern", bir.List(pl...), "channel_multiplier", o.Pattern.ChannelMultiplier))
		return nil
	case *klr.TensorReduce:
		ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src", &o.Src})
		if err != nil {
			return err
		}
		dst, src := ops[0], ops[1]
		cg.emitInst(bir.OpTensorReduce, bir.EngUnassigned, []bir.Operand{src}, []bir.Operand{dst},
			bir.Attrs("op", o.Op.String(), "axis", o.OpDim.String(), "negate", o.Negated))
		return nil
	case *klr.Transpose:
		ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src", &o.Src})
		if err != nil {
			return err
		}
		dst, src := ops[0], ops[1]
		eng, err := cg.engine(o.Engine, bir.OpTranspose)
		if err != nil {
			return err
		}
		if eng == bir.EngUnassigned {
			eng = bir.EngDVE
		}
		cg.emitInst(bir.OpTranspose, eng, []bir.Operand{src}, []bir.Operand{dst}, nil)
		return nil
	case *klr.UnknownOperator:
		if o.Reason != "" && o.Reason != "not modelled by narwhal's KLR reader" {
			return cg.errf("unsupported operator %s (%s)", o.Name(), o.Reason)
		}
		return cg.errf("unsupported operator %s", o.Name())
	}
	return cg.errf("unsupported operator %s", op.Name())
}

// dma lowers a DMA copy by the memories of its operands.
func (cg *codegen) dma(dstRef, srcRef *klr.TensorRef, compute klr.DgeComputeOp, oobErr bool, eng bir.Engine, dgeMode uint64) error {
	dst, dt, err := cg.ap("dst", dstRef)
	if err != nil {
		return err
	}
	src, st, err := cg.ap("src", srcRef)
	if err != nil {
		return err
	}
	var attrs bir.AttrSet
	if dgeMode != 0 {
		attrs = append(attrs, bir.Field{Key: "klr_dge_mode", Val: bir.Int(int64(dgeMode))})
	}
	if compute.String() == "add" { // DgeComputeOp.add: dst += src
		attrs = append(bir.Attrs("mode", "CCE", "cce_op", "add", "constants", bir.Floats(1, 1), "oob_is_err", oobErr), attrs...)
		cg.emitInst(bir.OpDMACopy, eng, []bir.Operand{src, dst}, []bir.Operand{dst}, attrs)
		return nil
	}
	switch {
	case st.mem.IsDRAM() && dt.mem.IsOnChip():
		cg.emitInst(bir.OpLoad, eng, []bir.Operand{src}, []bir.Operand{dst}, attrs)
	case st.mem.IsOnChip() && dt.mem.IsDRAM():
		cg.emitInst(bir.OpSave, eng, []bir.Operand{src}, []bir.Operand{dst}, attrs)
	default:
		attrs = append(bir.Attrs("mode", "Copy", "oob_is_err", oobErr), attrs...)
		cg.emitInst(bir.OpDMACopy, eng, []bir.Operand{src}, []bir.Operand{dst}, attrs)
	}
	return nil
}

func (cg *codegen) copyOp(dstRef, srcRef *klr.TensorRef, eng bir.Engine) error {
	dst, _, err := cg.ap("dst", dstRef)
	if err != nil {
		return err
	}
	src, _, err := cg.ap("src", srcRef)
	if err != nil {
		return err
	}
	cg.emitInst(bir.OpTensorCopy, eng, []bir.Operand{src}, []bir.Operand{dst}, nil)
	return nil
}

func (cg *codegen) tensorScalar(o *klr.TensorScalar) error {
	ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src", &o.Src})
	if err != nil {
		return err
	}
	dst, src := ops[0], ops[1]
	rev0 := o.Reverse.String() == "first" || o.Reverse.String() == "both"
	rev1 := o.Reverse.String() == "second" || o.Reverse.String() == "both"
	op1 := "bypass"
	if o.Op1.Valid {
		op1 = o.Op1.V.String()
		if !o.Imm1.Valid {
			return cg.errf("tensorScalar: op1 %s without imm1", op1)
		}
	}
	hasImm1 := o.Op1.Valid && o.Imm1.Valid
	tile0 := o.Imm0.Kind == klr.OperandTile
	tile1 := hasImm1 && o.Imm1.V.Kind == klr.OperandTile
	if tile0 || tile1 {
		if !tile0 || (hasImm1 && !tile1) {
			return cg.errf("tensorScalar: a tile operand mixed with an immediate operand is not supported (both scalars must be tiles or both immediates)")
		}
		s0, _, err := cg.ap("imm0", o.Imm0.Tile)
		if err != nil {
			return err
		}
		ins := []bir.Operand{src, s0}
		if tile1 {
			s1, _, err := cg.ap("imm1", o.Imm1.V.Tile)
			if err != nil {
				return err
			}
			ins = append(ins, s1)
		}
		eng, err := cg.engine(o.Engine, bir.OpTensorScalarPtr)
		if err != nil {
			return err
		}
		cg.emitInst(bir.OpTensorScalarPtr, eng, ins, []bir.Operand{dst},
			bir.Attrs("op0", o.Op0.String(), "reverse0", rev0, "op1", op1, "reverse1", rev1))
		return nil
	}
	c0, ok := immValue(&o.Imm0.Imm)
	if !ok {
		return cg.errf("tensorScalar: imm0 Immediate.%s is not supported (want an int or float immediate)", o.Imm0.Imm.KindName())
	}
	c1 := bir.Float(0)
	if hasImm1 {
		if c1, ok = immValue(&o.Imm1.V.Imm); !ok {
			return cg.errf("tensorScalar: imm1 Immediate.%s is not supported (want an int or float immediate)", o.Imm1.V.Imm.KindName())
		}
	}
	eng, err := cg.engine(o.Engine, bir.OpTensorScalar)
	if err != nil {
		return err
	}
	cg.emitInst(bir.OpTensorScalar, eng, []bir.Operand{src}, []bir.Operand{dst},
		bir.Attrs("op0", o.Op0.String(), "const0", c0, "reverse0", rev0, "op1", op1, "const1", c1, "reverse1", rev1))
	return nil
}

func (cg *codegen) activationFunc(f klr.ActivationFunc) (string, error) {
	if name, ok := activationFuncs[f.String()]; ok {
		return name, nil
	}
	return "", cg.errf("activation function %s has no BIR counterpart", f)
}

func (cg *codegen) ncActivate(o *klr.NcActivate) error {
	fn, err := cg.activationFunc(o.ActivationFunc)
	if err != nil {
		return err
	}
	if o.ReduceOp.Valid || o.ReduceRes.Valid {
		return cg.errf("ncActivate with a reduction (reduceOp/reduceRes) is not supported")
	}
	ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src", &o.Src})
	if err != nil {
		return err
	}
	dst, src := ops[0], ops[1]
	if o.Scale.Kind != klr.OperandImm {
		return cg.errf("ncActivate: a tile scale is not supported (want an immediate)")
	}
	scale, ok := immFloat(&o.Scale.Imm)
	if !ok {
		return cg.errf("ncActivate: scale Immediate.%s is not supported", o.Scale.Imm.KindName())
	}
	ins := []bir.Operand{src}
	if o.Bias.Valid {
		bias, _, err := cg.ap("bias", &o.Bias.V)
		if err != nil {
			return err
		}
		ins = append(ins, bias)
	}
	cg.emitInst(bir.OpActivation, bir.EngAct, ins, []bir.Operand{dst},
		bir.Attrs("func", fn, "scale", bir.Float(scale), "alpha", bir.Float(0), "acc", o.AccumulatorCmd.String()))
	return nil
}

func (cg *codegen) activate(o *klr.Activate) error {
	fn, err := cg.activationFunc(o.ActivationFunc)
	if err != nil {
		return err
	}
	ops, err := cg.aps(apArg{"dst", &o.Dst}, apArg{"src", &o.Src})
	if err != nil {
		return err
	}
	dst, src := ops[0], ops[1]
	scale, ok := immFloat(&o.Scale)
	if !ok {
		return cg.errf("activate: scale Immediate.%s is not supported", o.Scale.KindName())
	}
	if bias, ok := immFloat(&o.Bias); !ok || bias != 0 {
		return cg.errf("activate: an immediate bias (%s) is not supported; BIR's Activation takes a [P,1] bias tile", o.Bias.KindName())
	}
	alpha, ok := immFloat(&o.Imm)
	if !ok {
		return cg.errf("activate: imm Immediate.%s is not supported", o.Imm.KindName())
	}
	cg.emitInst(bir.OpActivation, bir.EngAct, []bir.Operand{src}, []bir.Operand{dst},
		bir.Attrs("func", fn, "scale", bir.Float(scale), "alpha", bir.Float(alpha), "acc", o.AccumulatorCmd.String()))
	return nil
}

// maxElems bounds element counts, offsets and steps (2^40 elements is far
// beyond any memory of the machine), so that address arithmetic on hostile
// files cannot overflow int64.
const maxElems = 1 << 40

// shapeElems multiplies dimensions, failing beyond maxElems.
func shapeElems(dims []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range dims {
		if d > maxElems || (d != 0 && n > maxElems/d) {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func slicesEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
