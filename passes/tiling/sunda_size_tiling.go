// Package tiling implements SundaSizeTiling (seed 002 §2): macro
// operations, whole-tensor instructions larger than one hardware
// instruction, tiled onto the 128-partition / PSUM-bank grid
// (sunda_size_tiling), and performance tiling of already-legal programs
// judged by the scheduler's makespan (sunda_size_tiling_perf, perf.go).
//
// # sunda_size_tiling
//
// The seed's docstring: "SundaSizeTiling - Tile the loopnests to generate
// tiles that can fit into a single tonga instruction. It will generate
// NeuronMacro to mark those tiles. [...] This pass will also propagate
// tiling decisions, such that the data rate in producer and consumer
// match (this make it easier to find a good schedule). The size limit in
// this case is mainly coming from the size of PSUM buffer."
//
// What it does, on every function:
//
//  1. Finds the macro operations (analyze.go): instructions that exceed
//     one hardware instruction - more than pmax partitions, more free
//     elements than one access encodes, a matmul past K/M/N, a PSUM access
//     wider than a bank, a row broadcast across partitions (pair-0 step
//     0): the conditions of the verifier's StageTiled size rules - and the
//     on-chip tensors that cannot be one tile (more partitions than the
//     array, more bytes than the SBUF or PSUM). Every instruction that
//     shares an on-chip tensor with one of them is rewritten with it (the
//     closure), so a macro tensor is laid out once for all its accessors.
//     docs/bir-json.md ("Macro operations") says what inputs may hold.
//  2. Units (plan.go): every accessor of a PSUM tensor forms one atomic
//     unit (a PSUM tile is evacuated in the iteration that made it, never
//     materialized whole), and a Load whose SBUF tensor only a matmul
//     reads is fused into that matmul's K loop (each K step loads its
//     stationary and moving tiles, as the hand-written kernels do).
//  3. Rate matching (plan.go, option rate_matching): units linked by an
//     on-chip tensor that the producer writes and the consumer reads whole
//     or as a per-row column, over the same rows, join one group: one
//     loop nest, one tile grid, "the same free tile down a chain", so
//     consumer tile k depends on producer tile k only. A matmul operand
//     is not such a link (the matmul reads every K tile); the tensor
//     between then passes as row blocks (a boundary tensor).
//  4. The tile (plan.go shape): partitions pt = min(rows,
//     partition_max_elts rounded down to the 32-partition quadrant; for a
//     matmul also gemm_stationary_fmax), the free tile ft in elements from
//     byte budgets: one PSUM bank for every PSUM tensor of the group (the
//     seed's ceiling), gemm_moving_fmax and the generation's matmul N
//     limit for a matmul, max_computation_tile_size_in_bytes shared by the
//     SBUF tensors one iteration touches, the 64K SBUF free size and the
//     uint16 AP num. The free axis is cut into equal tiles
//     (ceil(C / ceil(C / bound))), the partition axis into pt-row tiles
//     and one remainder. A matmul's K is cut into pmax-partition steps
//     accumulated in PSUM (start_tensor_calc on the first, stop on the
//     last); its M (stationary) and N (moving) axes are the group's p and
//     f axes, tiled independently.
//  5. PSUM pressure (low_psum_usage_threshold): a group whose PSUM tiles,
//     double-buffered, would hold more than the threshold's share of the
//     PSUM banks stops propagating one layout: its PSUM units keep their
//     bank tiles, and its SBUF instructions are regrouped among themselves
//     with their own (larger) free tile; the tensors between pass as row
//     blocks. The same split resolves a group whose reduction needs whole
//     rows wider than a PSUM bank allows.
//  6. Software replication (enable_software_replication,
//     is_replication_candidate; seed 002 §2.4): a one-partition row read
//     through a partition broadcast by a group whose tile has more
//     partitions is replicated once, before the group's nest, into a
//     [pt, cols] replica that every tile reads: by the Tensor engine for
//     a float row (a ones vector [1, pt] as the stationary operand and
//     the row as the moving one, K = 1, one PSUM bank of columns at a
//     time, each evacuated into the replica: the NKI tutorial's and the
//     hand-written rmsnorm's broadcast), by one on-chip DMA whose source
//     reads the row with partition step 0 otherwise. With replication off
//     (or for a row that is no candidate) every tile re-loads the row
//     from DRAM with a partition-broadcast DMA.
//  7. The SIMD-macro path (seed 002 §2.2, §2.5; option simd_macro): a
//     group of GpSimd elementwise instructions (with its loads and stores)
//     is one SIMD macro (packInstsToSIMDMacro: the group is one loop
//     nest). extractAxesForSIMDMacro: when its rows leave GpSimd cores
//     idle (fewer than 128, or a remainder tile) and its R*C elements
//     fill columns of 128 partitions, the group is re-viewed as [128,
//     R*C/128], the 8 cores x 16 partitions, since every operand is
//     elementwise over the same elements, the on-chip tensors are the
//     group's own and each DRAM region is one contiguous run. Its free
//     tile is bounded by the SBUF budget (GpSimd never touches PSUM).
//  8. Emission (emit.go): the groups in a topological order of the
//     read/write hazards between groups and the other instructions of the
//     block (as close to program order as possible); each group becomes a
//     loop nest over its regions (full tiles, then the remainders), one
//     instruction per macro operation per tile, named after it. A tensor
//     internal to a group becomes a block tensor with one block per
//     iteration (a column tensor: one per row tile), as the NKI front end
//     gives a tile allocated in a loop; a boundary tensor becomes row
//     blocks [pt, cols] indexed by the row tile. The loops are ordinary
//     loops with symbolic access patterns: the unrollers, the footprint
//     passes, the DMA passes, the allocator and the scheduler handle them
//     as they handle the hand-written kernels.
//
// Pre: a module the verifier accepts (macro operations allowed: stage
// none). Post: verify.StageTiled (no compute access over pmax partitions,
// no free size, encoding, matmul or PSUM-bank limit exceeded, no partition
// broadcast); every output bit-identical to the macro module's (a -0 in a
// row replicated by the Tensor engine excepted, see below), except where
// a matmul's K is split: each K tile's products are summed in fp32
// and added to PSUM, so the sum's rounding differs from one K-long sum (a
// relative error within (K + 1) * 2^-24 of the sum of |products|, the
// bound the matmul reference states; tests hold the split to it).
//
// Where it runs (pipeline): after translate_nki_ast_to_bir and before the
// DMA legalizations, the unrollers and the footprint passes. The seed
// places SundaSizeTiling "after ISel/intrinsic-fusion and before
// legalize/PSUM-inference/memory-planning"; design.md's shape draws
// "[tiling]" after shrink_ml, but macro tiling cannot run there: its tiles
// are loops that FullUnroll must flatten, its tile tensors are block
// tensors that FullUnroll's memloc generation gives one location per
// block, and sb_size_legalization / vn_splitter / shrink_ml would meet
// 512-partition tensors they can only cut into 16-partition pieces (or
// reject). The DMA legalizations then see tile-sized loads. Performance
// tiling, which needs the schedule, is the second pass of this package
// (perf.go): it runs after the allocation, whose reuse the schedule it is
// judged by depends on, and before the dependency analysis.
//
// Decisions where the seed is silent (its §2.3 knob list and the .so
// immediates are not in the seed text):
//   - A macro operation accesses its on-chip tensors whole (or broadcasts
//     one row); DRAM operands are 2-D regions of contiguous rows. Macro
//     operations sit at the top level of a function, without predicates
//     or explicit dependencies (program order is their meaning).
//   - Defaults: partition_max_elts = pmax (128), max_computation_tile_
//     size_in_bytes = the usable SBUF bytes per partition (176 KiB on
//     NC-v2, 208 KiB on NC-v3: the seed's bound for SBUF-resident ops),
//     shared by the SBUF tensors one iteration touches (so one iteration's
//     tiles fit together); low_psum_usage_threshold = 0.5 (double-buffered
//     PSUM tiles may take half the banks; the other half stays for other
//     groups and spills).
//   - A reduction keeps whole rows (its free axis is not split: partial
//     reductions combined across tiles would reorder sums); a row wider
//     than the budget is an error naming the bound.
//   - Replication uses the Tensor engine where it can (float rows): the
//     cost model prices a K = 1 matmul and its evacuation far below a DMA
//     of the whole replica (about 1.5 us against 25 us for [128, 512]
//     fp32 on trn2), and macro_rmsnorm then matches the hand-written
//     kernel's makespan. Its one inexactness: the matmul sums from +0, so
//     a -0 in the row becomes +0 in the replica (the hand-written kernel
//     has the same); an integer row is replicated by a DMA, exactly. Only
//     one-partition rows are broadcast (pair 0 step 0).
//   - The remainder tile of an axis is its own region (a copy of the nest
//     with the remainder's sizes), not a predicate: every instruction of a
//     region has one shape.
package tiling

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Options configure SundaSizeTiling. The zero values of the sizes take
// the arch's (see Defaults).
type Options struct {
	// PartitionMaxElts is partition_max_elts: the largest partition tile
	// (elements of the partition axis); 0 takes the arch's pmax.
	PartitionMaxElts int64
	// MaxComputationTileSizeInBytes is max_computation_tile_size_in_bytes:
	// the free-axis byte budget of one iteration's SBUF tiles; 0 takes the
	// arch's usable SBUF bytes per partition.
	MaxComputationTileSizeInBytes int64
	// LowPSUMUsageThreshold is low_psum_usage_threshold: the share of the
	// PSUM banks a group's tiles may hold (double-buffered) before the
	// group stops propagating one layout.
	LowPSUMUsageThreshold float64
	// RateMatching propagates tiling decisions along producer -> consumer
	// chains (one tile grid per chain).
	RateMatching bool
	// EnableSoftwareReplication is enable_software_replication.
	EnableSoftwareReplication bool
	// SIMDMacro takes the SIMD-macro path for GpSimd elementwise groups.
	SIMDMacro bool
	// Logf receives the per-group log lines (nil: none).
	Logf func(format string, args ...any)
	// OnFunction is called with each function's name as the pass starts
	// on it (the pass table entry sets pass.Context.Function).
	OnFunction func(name string)
}

// Defaults returns the default options for model.
func Defaults(model *arch.Model) Options {
	return Options{
		PartitionMaxElts:              model.TilePartitions(),
		MaxComputationTileSizeInBytes: model.UsableSBUFBytes(),
		LowPSUMUsageThreshold:         DefaultLowPSUMUsageThreshold,
		RateMatching:                  true,
		EnableSoftwareReplication:     true,
		SIMDMacro:                     true,
	}
}

// DefaultLowPSUMUsageThreshold is low_psum_usage_threshold's default.
const DefaultLowPSUMUsageThreshold = 0.5

// Stats count what the pass did.
type Stats struct {
	Functions   int   // functions with macro operations
	Tiled       int64 // macro instructions replaced by tiles (fused loads included)
	Created     int64 // instructions created (tile instructions, replicas, re-loads)
	Groups      int64 // loop nests (tiling groups)
	RateMatched int64 // groups of more than one instruction
	Tiles       int64 // tile iterations over all groups
	Loops       int64 // loops created
	Boundary    int64 // tensors passed between groups as row blocks
	PSUMSplits  int64 // groups split: PSUM pressure, or whole rows wider than the PSUM tile
	Replicated  int64 // broadcast rows replicated (software replication)
	Reloaded    int64 // broadcast re-loads (one per tile instruction)
	// SIMDMacros counts the groups the SIMD-macro path changed: re-viewed
	// as [128, R*C/128] (the path's only effect on the output); SIMDSame
	// the GpSimd elementwise groups it left as they were (their rows fill
	// the 8 cores x 16 partitions already: the output is byte-identical
	// with the path off).
	SIMDMacros int64
	SIMDSame   int64
}

// SundaSizeTiling tiles every macro operation of m.
func SundaSizeTiling(m *bir.Module, model *arch.Model, opt Options) (Stats, error) {
	var st Stats
	d := Defaults(model)
	if opt.PartitionMaxElts == 0 {
		opt.PartitionMaxElts = d.PartitionMaxElts
	}
	if opt.MaxComputationTileSizeInBytes == 0 {
		opt.MaxComputationTileSizeInBytes = d.MaxComputationTileSizeInBytes
	}
	if tp := model.TilePartitions(); opt.PartitionMaxElts < 1 || opt.PartitionMaxElts > tp {
		return st, diag.Errorf(diag.PassOption, "partition_max_elts = %d: want 1..%d (the tile partitions of %s: pmax %d, %d partitions)", opt.PartitionMaxElts, tp, model.Name, model.Tile.PMax, model.Partitions)
	}
	if opt.MaxComputationTileSizeInBytes <= 0 {
		if _, err := model.SBUFBudget(); err != nil {
			return st, err
		}
		return st, diag.Errorf(diag.PassOption, "max_computation_tile_size_in_bytes = %d: want > 0", opt.MaxComputationTileSizeInBytes)
	}
	if opt.LowPSUMUsageThreshold < 0 || opt.LowPSUMUsageThreshold != opt.LowPSUMUsageThreshold {
		return st, diag.Errorf(diag.PassOption, "low_psum_usage_threshold = %v: want >= 0", opt.LowPSUMUsageThreshold)
	}
	for _, f := range m.FuncsMainFirst() {
		if opt.OnFunction != nil {
			opt.OnFunction(f.Name)
		}
		a, err := collect(f, model, &opt)
		if err != nil {
			return st, err
		}
		if a == nil {
			continue
		}
		if model.PSUMBankBytes <= 0 {
			if _, err := model.PSUMBudget(); err != nil {
				return st, err
			}
		}
		if err := a.classify(); err != nil {
			return st, err
		}
		groups, err := a.plan()
		if err != nil {
			return st, err
		}
		if err := a.emit(groups, &st); err != nil {
			return st, err
		}
		st.PSUMSplits += int64(a.splits)
		st.Functions++
	}
	return st, nil
}

// Pass is the pass table entry of sunda_size_tiling.
var Pass = pass.Pass{
	Name:     "sunda_size_tiling",
	Default:  true,
	Produces: verify.StageTiled,
	Options: []pass.Option{
		{Name: "partition_max_elts", Default: "0", Doc: "largest partition tile in elements, rounded down to the 32-partition quadrant (0: pmax)"},
		{Name: "max_computation_tile_size_in_bytes", Default: "0", Doc: "free-axis byte budget of one iteration's SBUF tiles (0: the usable SBUF bytes per partition)"},
		{Name: "low_psum_usage_threshold", Default: strconv.FormatFloat(DefaultLowPSUMUsageThreshold, 'g', -1, 64), Doc: "share of the PSUM banks a group's double-buffered tiles may hold before it stops propagating one layout"},
		{Name: "rate_matching", Default: "true", Doc: "one tile grid along producer -> consumer chains"},
		{Name: "enable_software_replication", Default: "true", Doc: "replicate a broadcast row across the tile's partitions once (false: re-load it per tile)"},
		{Name: "simd_macro", Default: "true", Doc: "the SIMD-macro path for GpSimd elementwise groups (8 cores x 16 partitions)"},
	},
	Doc: "macro operations tiled onto the 128-partition / PSUM-bank grid as loop nests, rate-matched along chains (seed 002 §2)",
	Run: run,
}

func run(ctx *pass.Context) error {
	opt := Options{Logf: ctx.Logf, OnFunction: ctx.Function}
	var err error
	if opt.PartitionMaxElts, err = ctx.IntOption("partition_max_elts"); err != nil {
		return err
	}
	if opt.MaxComputationTileSizeInBytes, err = ctx.IntOption("max_computation_tile_size_in_bytes"); err != nil {
		return err
	}
	if opt.LowPSUMUsageThreshold, err = ctx.FloatOption("low_psum_usage_threshold"); err != nil {
		return err
	}
	if opt.RateMatching, err = ctx.BoolOption("rate_matching"); err != nil {
		return err
	}
	if opt.EnableSoftwareReplication, err = ctx.BoolOption("enable_software_replication"); err != nil {
		return err
	}
	if opt.SIMDMacro, err = ctx.BoolOption("simd_macro"); err != nil {
		return err
	}
	st, err := SundaSizeTiling(ctx.Module, ctx.Arch, opt)
	ctx.Function("")
	if err != nil {
		return err
	}
	count(ctx, "sunda_size_tiling.", []counter{
		{"tiled", st.Tiled}, {"created", st.Created}, {"groups", st.Groups}, {"rate_matched", st.RateMatched},
		{"tiles", st.Tiles}, {"loops", st.Loops}, {"boundary_tensors", st.Boundary}, {"psum_splits", st.PSUMSplits},
		{"replicated", st.Replicated}, {"reloaded", st.Reloaded}, {"simd_macros", st.SIMDMacros}, {"simd_unchanged", st.SIMDSame},
	}, false)
	return nil
}

// counter is one report counter of a pass of this package.
type counter struct {
	name string
	v    int64
}

// count adds the counters (those that are zero too when all) to the
// pass's report, each under prefix.
func count(ctx *pass.Context, prefix string, cs []counter, all bool) {
	for _, c := range cs {
		if all || c.v != 0 {
			ctx.Count(prefix+c.name, c.v)
		}
	}
}

// SplitsK reports whether tiling m with options opt splits some matmul's
// contraction axis: a Matmult whose stationary operand spans more
// partitions than the K tile (the arch's partitions, and
// partition_max_elts rounded down to the quadrant). That is the one place
// the tiler reorders arithmetic (each K tile's products are summed in
// fp32, then accumulated in PSUM); everywhere else the tiled module
// computes bit for bit what the macro module does. Tests use it to decide
// between bit-exact comparison and the reference's tolerance.
func SplitsK(m *bir.Module, model *arch.Model, opt Options) bool {
	a := &analysis{model: model, opt: &opt}
	if opt.PartitionMaxElts == 0 {
		opt.PartitionMaxElts = model.TilePartitions()
	}
	for _, f := range m.Funcs {
		split := false
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsMatmul() {
				if ins := f.Ins(i); len(ins) > 0 {
					if p := m.Pattern(ins[0].Pattern); len(p) > 0 && p[0].Num > a.partTile(p[0].Num, model.Partitions) {
						split = true
					}
				}
			}
			return !split
		})
		if split {
			return true
		}
	}
	return false
}

// MacroInstructions returns the instructions of f that exceed one
// hardware instruction on model (what the verifier's StageTiled size rules
// reject), in program order.
func MacroInstructions(f *bir.Function, model *arch.Model) []bir.InstID {
	var out []bir.InstID
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.IsLoop() && macroInst(f, i, model) {
			out = append(out, i)
		}
		return true
	})
	return out
}

// HasMacroOperations reports whether some instruction of m exceeds one
// hardware instruction on model (what sunda_size_tiling tiles). `narwhal
// run` executes such a module with interp.Options.Macro.
func HasMacroOperations(m *bir.Module, model *arch.Model) bool {
	for _, f := range m.Funcs {
		found := false
		f.Walk(func(i bir.InstID) bool {
			found = !f.Inst(i).Op.IsLoop() && macroInst(f, i, model)
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
