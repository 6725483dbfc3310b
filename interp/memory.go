package interp

// The interpreter's memories.
//
// Storage. A storage is a block of bytes with a shadow bitmap (one bit per
// byte: written or not). On-chip storages are rows (partitions) of rowBytes
// bytes each; DRAM storages are flat.
//
//   - DRAM: one storage per location (Input, Output and DRAM locations), of
//     Partitions x Bytes bytes, addressed flat. An Input's storage is a copy
//     of the input tensor (fully written); an Output's storage is returned.
//   - SBUF and PSUM: a location with Allocated set lives in the shared SBUF
//     (partitions x SBUF bytes) or PSUM (partitions x banks x bank bytes)
//     array at (Base partition, Addr byte) (PSUM: byte Bank*bankBytes+Addr);
//     a location that is not allocated gets private storage of Partitions x
//     Bytes, so modules before and after allocation both run.
//   - Block tensors: a tensor with IsBlock and NBlocks whose Locs holds a
//     single template location stands for NBlocks blocks. An unallocated
//     on-chip or internal-DRAM template gets NBlocks private storages (a
//     symbolic AP's block index picks one); an allocated template, or an
//     Input/Output template, has one fixed placement that every block
//     aliases (the address says so). After FullUnroll's memloc generation
//     each block has its own location (bir.Function.LocForBlock).
//
// The shared arrays are sized to the highest byte any allocated location
// uses (their placement is still checked against the arch's capacity), so a
// small allocated module does not pay for 28 MiB of SBUF.
//
// Fresh memory holds the sentinel byte 0xFF (see sentinelByte).
//
// DRAM virtual addresses (ReadVarAddr, IndirectLoad/IndirectSave): see
// dramVA in indirect.go.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// sentinelByte fills never-written memory.
//
// CHOICE (semantics.md §1 "fill fresh tensors with sentinels"): every fresh
// byte is 0xFF, whatever the dtype: a NaN in every float format (fp32,
// bf16, fp16 and each fp8 format read 0xFF.. as NaN) and -1 / all-ones in
// every integer format. The NKI simulator fills integers with 4; narwhal
// uses one dtype-independent byte so that the same bytes appear before and
// after allocation (an allocated location shares the untyped SBUF array),
// which keeps translation validation with AllowUninitReads meaningful.
const sentinelByte = 0xFF

type memKind uint8

const (
	memDRAM memKind = iota
	memSB
	memPSUM
	// memOpen is an OnChip location (placement open): private on-chip
	// storage that engines access as SBUF and the Tensor engine may also
	// write, with PSUM's bank and accumulation-group semantics (the
	// storage carries PSUM's bank table), so a module runs the same before
	// and after infer_psum_tensor chooses SB or PSUM.
	memOpen
)

func (k memKind) String() string {
	switch k {
	case memSB:
		return "SBUF"
	case memPSUM:
		return "PSUM"
	case memOpen:
		return "on-chip (placement open)"
	}
	return "DRAM"
}

// storage is a block of bytes with its written-bitmap.
type storage struct {
	kind     memKind
	data     []byte
	init     []uint64 // bit b of word w: byte 64w+b was written
	rowBytes int64    // on-chip: bytes per row (partition) in data
	rows     int64
	// PSUM: bankBytes, and the open accumulation group of each (row, bank).
	bankBytes int64
	banks     int64
	groupOpen []bool
	// unwritten counts the bytes never written; at 0 every read check is
	// skipped (the common case for a tile after its first write).
	unwritten int64
}

func (mc *machine) newStorage(kind memKind, rows, rowBytes int64, name string) (*storage, error) {
	size, ok := storageBytes(rows, rowBytes)
	if !ok {
		return nil, errf(ErrOperand, "%s storage of %d x %d bytes for %s is too large to execute", kind, rows, rowBytes, name)
	}
	if err := mc.tryCharge(size, fmt.Sprintf("%s storage of %d x %d bytes for %s", kind, rows, rowBytes, name)); err != nil {
		return nil, err
	}
	n := rows * rowBytes
	s := &storage{kind: kind, rows: rows, rowBytes: rowBytes}
	s.data = make([]byte, n)
	for i := range s.data {
		s.data[i] = sentinelByte
	}
	s.init = make([]uint64, (n+63)/64)
	s.unwritten = n
	return s, nil
}

// isInit reports whether the n bytes at off were all written.
func (s *storage) isInit(off, n int64) bool {
	w, b := off>>6, uint(off&63)
	if int64(b)+n <= 64 {
		mask := (uint64(1)<<uint(n) - 1) << b
		if n == 64 {
			mask = math.MaxUint64
		}
		return s.init[w]&mask == mask
	}
	for i := range n {
		o := off + i
		if s.init[o>>6]&(1<<uint(o&63)) == 0 {
			return false
		}
	}
	return true
}

// setInit marks the n bytes at off written (or not).
func (s *storage) setInit(off, n int64, v bool) {
	if v && s.unwritten == 0 {
		return
	}
	w, b := off>>6, uint(off&63)
	if int64(b)+n <= 64 {
		mask := (uint64(1)<<uint(n) - 1) << b
		if n == 64 {
			mask = math.MaxUint64
		}
		old := s.init[w]
		if v {
			s.init[w] = old | mask
			s.unwritten -= int64(bits.OnesCount64(mask &^ old))
		} else {
			s.init[w] = old &^ mask
			s.unwritten += int64(bits.OnesCount64(mask & old))
		}
		return
	}
	for i := range n {
		s.setInit(off+i, 1, v)
	}
}

// markAll marks the whole storage written (inputs).
func (s *storage) markAll() {
	for i := range s.init {
		s.init[i] = math.MaxUint64
	}
	s.unwritten = 0
}

// allWritten reports whether every byte of the storage was written.
func (s *storage) allWritten() bool { return s.unwritten == 0 }

// region is where one location (or one block of a template location) lives.
type region struct {
	st   *storage
	loc  bir.LocID
	name string
	mt   bir.MemoryType
	// On-chip: the location occupies rows [row0, row0+parts) of st, bytes
	// [col0, col0+bytes) of each row. DRAM: bytes [col0, col0+bytes) of a
	// flat storage (col0 is 0; parts is 1).
	row0, col0   int64
	parts, bytes int64
	// physBase is the physical partition of row0 (the activation
	// accumulator lane of its first row); physCol0 the physical byte
	// address of col0 (for messages).
	physBase, physCol0 int64
	// va is the DRAM virtual address of byte 0 (DRAM regions only).
	va uint64
	// fn/block identify the region for virtual-address lookups.
	fn    int
	block int64
}

func (r *region) onChip() bool { return r.st.kind != memDRAM }

// describe returns a human-readable position of byte offset off of r.st.
func (r *region) describe(off int64) string {
	if !r.onChip() {
		return fmt.Sprintf("%s (location %s) at byte %d", r.st.kind, r.name, off-r.col0)
	}
	row, col := off/r.st.rowBytes, off%r.st.rowBytes
	return fmt.Sprintf("%s (location %s) at partition %d byte %d", r.st.kind, r.name, r.physBase+row-r.row0, r.physCol0+col-r.col0)
}

// maxBlocks bounds the block index of a template location with per-block
// private storage (each touched block gets its own storage).
const maxBlocks = 1 << 24

// geometry is the machine geometry of a run.
type geometry struct {
	partitions   int64
	sbufBytes    int64 // SBUF bytes per partition (0: unknown)
	psumBanks    int64
	psumBankSize int64
	archName     string
	gen          int // ArchLevel (20 = NC-v2, ...); 0 when unknown
	// peSpansBanks: a Tensor-engine (matmul) destination row may span
	// PSUM banks, because the generation's N limit is wider than a bank
	// (semantics.md §4.7: N <= 4096 fp32 / 8192 bf16 on NC-v4).
	peSpansBanks bool
}

func geometryFor(m *bir.Module, opt Options) (geometry, error) {
	g := geometry{partitions: opt.Partitions, sbufBytes: opt.SBUFBytesPerPart, psumBanks: opt.PSUMBanks, psumBankSize: opt.PSUMBankBytes, archName: m.Arch}
	model, err := arch.ForModule(m)
	if err != nil {
		if g.partitions == 0 || g.psumBanks == 0 || g.psumBankSize == 0 {
			return g, &Error{Kind: ErrInput, Msg: fmt.Sprintf("%v (set Options.Partitions, PSUMBanks and PSUMBankBytes to run without a machine model)", err)}
		}
		return g, nil
	}
	g.gen = model.ArchLevel
	g.peSpansBanks = model.MatmulSpansBanks()
	if g.partitions == 0 {
		g.partitions = model.Partitions
	}
	if g.sbufBytes == 0 {
		g.sbufBytes = model.SBUFBytesPerPartition
	}
	if g.psumBanks == 0 {
		g.psumBanks = model.PSUMBanks
	}
	if g.psumBankSize == 0 {
		g.psumBankSize = model.PSUMBankBytes
	}
	if g.partitions <= 0 || g.psumBanks <= 0 || g.psumBankSize <= 0 {
		return g, &Error{Kind: ErrInput, Msg: fmt.Sprintf("arch %s: partitions %d, PSUM banks %d x %d bytes: set Options.Partitions, PSUMBanks and PSUMBankBytes", model.Name, g.partitions, g.psumBanks, g.psumBankSize)}
	}
	return g, nil
}

// frame is one activation of a function: its private storages and
// registers.
type frame struct {
	f       *bir.Function
	fn      int // index in Module.Funcs
	regions []*region
	blocks  map[bir.LocID][]*region // templates with per-block private storage
	regs    []int64
	regInit []bool
	// loops is the stack of active loop axes (for error messages).
	loops    []loopCtx
	returned bool
	// regShadow keys the registers in the concurrent run's race checker.
	regShadow *storage
}

type loopCtx struct {
	name string
	axis int32
}

func newFrame(f *bir.Function) *frame {
	return &frame{
		f:       f,
		fn:      f.Index(),
		regions: make([]*region, f.NumLocs()),
		regs:    make([]int64, f.NumRegs()),
		regInit: make([]bool, f.NumRegs()),
	}
}

// memKindOf maps a location's memory type to a storage kind.
func memKindOf(l *bir.MemLoc) (memKind, error) {
	switch {
	case l.Type.IsDRAM():
		return memDRAM, nil
	case l.Type == bir.MemSB:
		return memSB, nil
	case l.Type == bir.MemPSUM:
		return memPSUM, nil
	case l.Type == bir.MemOnChip:
		return memOpen, nil
	}
	return 0, errf(ErrOperand, "location %s has memory type %s: narwhal executes only Input, Output, DRAM, SB, PSUM and OnChip locations", l.Name, l.Type)
}

// isTemplate reports whether location l of a tensor is a single template
// standing for several blocks.
func isTemplate(f *bir.Function, t bir.TensorID) bool {
	ts := f.Tensor(t)
	return ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1
}

// region returns the region of block b of location l in frame fr (b is 0
// for a location that is not a template).
func (mc *machine) region(fr *frame, l bir.LocID, b int64) (*region, error) {
	f := fr.f
	if int(l) < 0 || int(l) >= f.NumLocs() {
		return nil, errf(ErrOperand, "no memory location #%d", l)
	}
	loc := f.Loc(l)
	if loc.Dead {
		return nil, errf(ErrOperand, "memory location %s was removed", loc.Name)
	}
	if int(l) >= len(fr.regions) { // the function grew since the frame was made
		fr.regions = append(fr.regions, make([]*region, f.NumLocs()-len(fr.regions))...)
	}
	kind, err := memKindOf(loc)
	if err != nil {
		return nil, err
	}
	// Block 0 of a template is the location's own region; the other blocks
	// get private storages unless the template has a fixed placement.
	fixed := kind != memDRAM && loc.Allocated || loc.Type == bir.MemInput || loc.Type == bir.MemOutput
	perBlock := b > 0 && !fixed && isTemplate(f, loc.Tensor)
	if !perBlock {
		b = 0
		if r := fr.regions[l]; r != nil {
			return r, nil
		}
	} else {
		if fr.blocks == nil {
			fr.blocks = map[bir.LocID][]*region{}
		}
		ts := f.Tensor(loc.Tensor)
		if b >= ts.NBlocks {
			return nil, errf(ErrOutOfBounds, "block index %d outside the %d blocks of tensor %s", b, ts.NBlocks, ts.Name)
		}
		// The per-block table grows with the highest block touched, not
		// with NBlocks: a malformed NBlocks of 2^40 must not allocate.
		if b >= maxBlocks {
			return nil, errf(ErrOperand, "block %d of tensor %s: narwhal executes at most %d blocks of one template location", b, ts.Name, maxBlocks)
		}
		rs := fr.blocks[l]
		if b >= int64(len(rs)) {
			if err := mc.tryCharge((b+1-int64(len(rs)))*8, fmt.Sprintf("the block table of tensor %s (up to block %d)", ts.Name, b)); err != nil {
				return nil, err
			}
			rs = append(rs, make([]*region, b+1-int64(len(rs)))...)
			fr.blocks[l] = rs
		}
		if r := rs[b]; r != nil {
			return r, nil
		}
	}
	r, err := mc.newRegion(fr, l, loc, kind, b)
	if err != nil {
		return nil, err
	}
	if perBlock {
		fr.blocks[l][b] = r
	} else {
		fr.regions[l] = r
	}
	return r, nil
}

func (mc *machine) newRegion(fr *frame, l bir.LocID, loc *bir.MemLoc, kind memKind, b int64) (*region, error) {
	if loc.Partitions < 0 || loc.Bytes < 0 {
		return nil, errf(ErrOperand, "location %s has negative dims [%d, %d]", loc.Name, loc.Partitions, loc.Bytes)
	}
	total, ok := checked.Mul(loc.Partitions, loc.Bytes)
	if !ok || total > 1<<62 {
		return nil, errf(ErrOperand, "location %s of %d x %d bytes is too large to execute (more than 2^62 bytes)", loc.Name, loc.Partitions, loc.Bytes)
	}
	r := &region{loc: l, name: loc.Name, mt: loc.Type, parts: loc.Partitions, bytes: loc.Bytes, fn: fr.fn, block: b}
	switch {
	case kind == memDRAM:
		var err error
		shared := mc.sharedIO != nil && fr == mc.entryFrame && (loc.Type == bir.MemInput || loc.Type == bir.MemOutput)
		if st := mc.sharedIO[loc.Name]; shared && st != nil && int64(len(st.data)) == total {
			r.st = st
		} else if r.st, err = mc.newStorage(memDRAM, 1, total, "location "+loc.Name); err != nil {
			return nil, err
		} else if shared {
			mc.sharedIO[loc.Name] = r.st
		}
		r.parts, r.bytes = 1, total
		va, err := mc.dramVA(fr, l, b, total)
		if err != nil {
			return nil, err
		}
		r.va = va
		mc.vaRegions = append(mc.vaRegions, r)
	case loc.Allocated && kind != memOpen:
		st, err := mc.shared(kind)
		if err != nil {
			return nil, err
		}
		col0 := loc.Addr
		if kind == memPSUM {
			if loc.Bank < 0 || loc.Bank >= mc.geo.psumBanks {
				return nil, errf(ErrOutOfBounds, "location %s is allocated in PSUM bank %d; the machine has banks 0..%d", loc.Name, loc.Bank, mc.geo.psumBanks-1)
			}
			col0 = loc.Bank*mc.geo.psumBankSize + loc.Addr
		}
		capBytes := mc.geo.sbufBytes
		if kind == memPSUM {
			capBytes = mc.geo.psumBanks * mc.geo.psumBankSize
		}
		if loc.Base < 0 || loc.Addr < 0 || loc.Base+loc.Partitions > mc.geo.partitions || col0+loc.Bytes > capBytes {
			return nil, errf(ErrOutOfBounds, "location %s is placed at partitions [%d, %d) bytes [%d, %d), outside the %s of %d partitions x %d bytes",
				loc.Name, loc.Base, loc.Base+loc.Partitions, col0, col0+loc.Bytes, kind, mc.geo.partitions, capBytes)
		}
		r.st, r.row0, r.col0 = st, loc.Base, col0
		r.physBase, r.physCol0 = loc.Base, col0
	default:
		var err error
		if r.st, err = mc.newStorage(kind, loc.Partitions, loc.Bytes, "location "+loc.Name); err != nil {
			return nil, err
		}
		if kind == memPSUM || kind == memOpen {
			if err := mc.initPSUM(r.st); err != nil {
				return nil, err
			}
		}
		r.physBase = loc.Base
		r.physCol0 = loc.Addr
		if kind == memPSUM {
			r.physCol0 = 0 // an unallocated PSUM location starts a bank
		}
	}
	return r, nil
}

func (mc *machine) initPSUM(st *storage) error {
	st.bankBytes = mc.geo.psumBankSize
	st.banks = st.rowBytes/st.bankBytes + min(st.rowBytes%st.bankBytes, 1)
	n, ok := checked.Mul(st.rows, st.banks)
	if !ok {
		return errf(ErrOperand, "PSUM storage of %d rows x %d banks is too large to execute", st.rows, st.banks)
	}
	if err := mc.tryCharge(n, "the PSUM accumulation-group table"); err != nil {
		return err
	}
	st.groupOpen = make([]bool, n)
	return nil
}

// shared returns the shared SBUF or PSUM array, creating it on first use
// with rows of the largest extent any allocated location of the module
// needs.
func (mc *machine) shared(kind memKind) (*storage, error) {
	if kind == memSB {
		if mc.sbuf == nil {
			if mc.geo.sbufBytes <= 0 {
				return nil, errf(ErrInput, "arch %s does not publish its SBUF size: set Options.SBUFBytesPerPart to run allocated modules", mc.geo.archName)
			}
			st, err := mc.newStorage(memSB, mc.geo.partitions, min(mc.sharedExtent(bir.MemSB), mc.geo.sbufBytes), "the allocated SBUF")
			if err != nil {
				return nil, err
			}
			mc.sbuf = st
		}
		return mc.sbuf, nil
	}
	if mc.psum == nil {
		full := mc.geo.psumBanks * mc.geo.psumBankSize
		ext := mc.sharedExtent(bir.MemPSUM)
		ext = min((ext+mc.geo.psumBankSize-1)/mc.geo.psumBankSize*mc.geo.psumBankSize, full)
		st, err := mc.newStorage(memPSUM, mc.geo.partitions, ext, "the allocated PSUM")
		if err != nil {
			return nil, err
		}
		if err := mc.initPSUM(st); err != nil {
			return nil, err
		}
		mc.psum = st
	}
	return mc.psum, nil
}

// sharedExtent returns the highest byte address (exclusive) any allocated
// location of memory type mt uses, over the whole module.
func (mc *machine) sharedExtent(mt bir.MemoryType) int64 {
	ext := int64(1)
	for _, f := range mc.m.Funcs {
		for l := 0; l < f.NumLocs(); l++ {
			loc := f.Loc(bir.LocID(l))
			if loc.Dead || !loc.Allocated || loc.Type != mt {
				continue
			}
			end := loc.Addr + loc.Bytes
			if mt == bir.MemPSUM {
				end += loc.Bank * mc.geo.psumBankSize
			}
			ext = max(ext, end)
		}
	}
	return ext
}
