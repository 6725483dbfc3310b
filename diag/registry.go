package diag

import "strings"

// Entry documents one code: what the mistake is, a small input that makes
// it, and the same input fixed. docs/errors.md and `narwhal explain` print
// entries; the test in cmd/narwhal runs every Example (it must fail with
// the entry's code) and every Fix (it must compile).
type Entry struct {
	Code        string
	Title       string // the kind of mistake, one line
	ExplainText string // why it is a mistake and what narwhal checks
	Example     Example
	Fix         Example
	FixText     string // what to change
}

// Example is a command and the files it reads.
type Example struct {
	// Args are the command's arguments after "narwhal".
	Args []string
	// Files are written into the working directory before the command
	// runs; a file with Built set is made by the test (a binary KLR
	// file), and Text shows what it holds in the documentation.
	Files []File
	// Note says what the documentation cannot show (how a built file is
	// made).
	Note string
}

// File is an input of an example.
type File struct {
	Name  string
	Text  string
	Lang  string // the documentation's code-block language: "bir", "json", "python"
	Built bool
}

// Lookup returns the entry of code (case-insensitive; "900" finds NW900).
func Lookup(code string) (*Entry, bool) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if !strings.HasPrefix(c, "NW") {
		c = "NW" + c
	}
	for i := range Registry {
		if Registry[i].Code == c {
			return &Registry[i], true
		}
	}
	return nil, false
}

// head is the start of the text-form examples: a 128 x 512 fp32 input,
// output and SBUF tile.
const head = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 512] kind=Input
    loc %x: Input 128x2048
  tensor %out_set: f32[128, 512] kind=Output
    loc %out: Output 128x2048
  tensor %t_set: f32[128, 512] class=NeuronSBTensor
    loc %t: SB 128x2048
`

const ldT = `  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %t[ap=[[512,128],[1,512]]] f32
`

// cce3 sums x three times with one collective-compute DMA.
const cce3 = "  red = DMACopy %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 {mode=\"CCE\", constants=[1.0, 1.0, 1.0], cce_op=\"add\"}\n"

const stT = `  st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32
`

// matmulTile is a bf16 [K=64, M=32] x [64, 512] matmul into PSUM with the
// given fields.
func matmulTile(fields string) string {
	return `module arch=trn2

func @main {
  tensor %st_set: bf16[64, 32] class=NeuronSBTensor
    loc %st: SB 64x64
  tensor %mv_set: bf16[64, 512] class=NeuronSBTensor
    loc %mv: SB 64x1024
  tensor %ps_set: f32[32, 512] class=NeuronPSUMTensor
    loc %ps: PSUM 32x2048

Block1:
  mm = Matmult on PE %st[ap=[[32,64],[1,32]]] bf16, %mv[ap=[[512,64],[1,512]]] bf16 -> %ps[ap=[[512,32],[1,512]]] f32 ` + fields + `
}
`
}

// macroDouble doubles a 256-partition tile (a macro operation) between
// its load and its save; deps follows the doubling.
func macroDouble(deps string) string {
	return `module arch=trn2

func @main {
  tensor %x_set: f32[256, 512] kind=Input
    loc %x: Input 256x2048
  tensor %out_set: f32[256, 512] kind=Output
    loc %out: Output 256x2048
  tensor %t_set: f32[256, 512] class=NeuronSBTensor
    loc %t: SB 256x2048

Block1:
  ld = Load %x[ap=[[512,256],[1,512]]] f32 -> %t[ap=[[512,256],[1,512]]] f32
  x2 = TensorScalar on DVE %t[ap=[[512,256],[1,512]]] f32 -> %t[ap=[[512,256],[1,512]]] f32 {op0="mult", const0=2.0, op1="bypass", const1=0.0}` + deps + `
  st = Save %t[ap=[[512,256],[1,512]]] f32 -> %out[ap=[[512,256],[1,512]]] f32
}
`
}

// mod is a text-form module: head, extra declarations, then Block1.
func mod(decls, body string) string {
	if decls != "" {
		decls += "\n"
	} else {
		decls = "\n"
	}
	return head + decls + "Block1:\n" + body + "}\n"
}

func compileBir(text string, extra ...string) Example {
	return Example{Args: append([]string{"compile", "kernel.bir"}, extra...), Files: []File{{Name: "kernel.bir", Text: text, Lang: "bir"}}}
}

func cmd(args ...string) Example { return Example{Args: args} }

// klrKernel is an example whose input is a KLR file the test writes from
// the NKI kernel shown.
// pyKernel is a kernel-file example: kernel.py holding body after the
// legacy API's imports, compiled with args.
func pyKernel(body string, args ...string) Example {
	text := "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n" + body
	return Example{Args: append([]string{"compile", "kernel.py"}, args...), Files: []File{{Name: "kernel.py", Text: text, Lang: "python"}}}
}

// pyCopy is a kernel that copies a [128, 512] tile, with stmt before the store.
func pyCopy(stmt string) string {
	return "@nki.jit\ndef kernel(a):\n    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n    t = nl.load(a)\n" + stmt + "    nl.store(out, value=t)\n    return out\n"
}

func klrKernel(nki string) Example {
	return Example{Args: []string{"compile", "kernel.klr"}, Files: []File{{Name: "kernel.klr", Text: nki, Lang: "python", Built: true}},
		Note: "kernel.klr is this NKI kernel serialized by the KLR toolchain (the test writes the same KLR with klrtest; its statements sit at lines 10 to 13 of k.py)."}
}

// Registry is every code, in code order.
var Registry = []Entry{
	{
		Code: Usage, Title: "unknown flag or bad command line",
		ExplainText: "A flag narwhal does not know, a flag value of the wrong type, or the wrong number of " +
			"input files. `narwhal COMMAND -h` lists the flags. Flags can also come from " +
			"the NEURON_CC_FLAGS environment variable (docs/cli.md): a wrong flag there is reported the same way.",
		Example: cmd("compile", "--optlvl", "2"),
		Fix:     cmd("compile", "--optlevel", "2"),
		FixText: "Spell the flag as `narwhal compile -h` lists it.",
	},
	{
		Code: KernelBind, Title: "a kernel file's parameters do not fit the kernel",
		ExplainText: "A kernel file (.py) is traced with its parameters bound from the command line: --kernel picks the " +
			"function (default: the file's only @nki.jit kernel), --input NAME=DTYPE[D0,...] or --inputs FILE.npz gives a " +
			"tensor parameter its dtype and shape, --arg NAME=EXPR any other parameter (a Python literal or a dotted name " +
			"of the file's namespace), --grid the SPMD launch grid. A flag naming no parameter, a parameter without a " +
			"value or default, a malformed spec, or no kernel to pick is this error (../shared/docs/nki-frontend.md).",
		Example: pyKernel(pyCopy(""), "--input", "x=float32[128,512]"),
		Fix:     pyKernel(pyCopy(""), "--input", "a=float32[128,512]"),
		FixText: "Name the kernel's parameters as the message lists them, and give every tensor parameter its dtype and shape.",
	},
	{
		Code: UnknownArch, Title: "unknown target or architecture",
		ExplainText: "`--target` takes neuronx-cc's instance families (trn1, trn1n, inf2, trn2, trn3), `--arch` " +
			"narwhal's machine models and their aliases (inf1, trn1, trn2, trn3, gen2, NC-v3, ...). The " +
			"module's own `arch` must name a model too (rule module-arch).",
		Example: cmd("compile", "--target", "trn9"),
		Fix:     cmd("compile", "--target", "trn2"),
		FixText: "Use one of the listed names.",
	},
	{
		Code: PassOption, Title: "unknown pass or pass option",
		ExplainText: "`--passes`, `--print-after` and `--option PASS.KEY=VALUE` name passes of the pass table and " +
			"the options they declare; `--option arch.NAME=VALUE` names a machine parameter. `narwhal passes` " +
			"lists them all. A value an option does not take (a pass option's, or a machine parameter's out of " +
			"its range, on the command line or in the module's own arch.* options), and a pass selected " +
			"with --passes whose required verifier stage neither the input nor an earlier selected pass " +
			"establishes, are refused with this code too.",
		Example: cmd("compile", "--option", "vn_splitter.ratios=8"),
		Fix:     cmd("compile", "--option", "vn_splitter.ratio=8"),
		FixText: "Use a pass and option name `narwhal passes` lists.",
	},
	{
		Code: ReadInput, Title: "the input file cannot be read",
		ExplainText: "The file does not exist, cannot be read, or holds nothing but white space.",
		Example:     Example{Args: []string{"compile", "kernel.bir"}, Files: []File{{Name: "kernel.bir", Text: "\n", Lang: "bir"}}},
		Fix:         compileBir(mod("", ldT+stT)),
		FixText:     "Give a BIR-JSON, text-form or KLR file, or `builtin:NAME`.",
	},
	{
		Code: Builtin, Title: "unknown built-in kernel or parameter",
		ExplainText: "`builtin:NAME[:k=v,...]` names a kernel of `narwhal kernels` and parameters it accepts, " +
			"each within the kernel's range (tile sizes are multiples of 128, ...).",
		Example: cmd("compile", "builtin:matmul:m=100"),
		Fix:     cmd("compile", "builtin:matmul:m=128"),
		FixText: "`narwhal kernels` lists each kernel's parameters and defaults.",
	},
	{
		Code: Output, Title: "an output file cannot be written",
		ExplainText: "An output (-o, --html, --trace, --memmap, run's --outputs names, ...) names a directory that " +
			"does not exist, a directory instead of a file, a file the command may not write, or the input " +
			"file itself (compile refuses to overwrite its input unless --in-place is given). narwhal never " +
			"creates the directory of a file output; a failed write leaves an existing file as it was.",
		Example: cmd("compile", "builtin:tensor_add", "-o", "results/tensor_add.json"),
		Fix:     cmd("compile", "builtin:tensor_add", "-o", "tensor_add.json"),
		FixText: "Create the directory first (mkdir results), or write where one exists.",
	},
	{
		Code: BadJSON, Title: "malformed BIR-JSON",
		ExplainText: "The file is not JSON, or a field has the wrong type or value for BIR-JSON (docs/bir-json.md). " +
			"The message gives file:line:column and the function, instruction and operand.",
		Example: Example{Args: []string{"verify", "kernel.json"}, Files: []File{{Name: "kernel.json", Lang: "json",
			Text: `{"version": 2, "arch": "trn2" "functions": [{"name": "main", "blocks": []}]}` + "\n"}}},
		Fix: Example{Args: []string{"verify", "kernel.json"}, Files: []File{{Name: "kernel.json", Lang: "json",
			Text: `{"version": 2, "arch": "trn2", "functions": [{"name": "main", "blocks": []}]}` + "\n"}}},
		FixText: "Add the missing comma.",
	},
	{
		Code: BadText, Title: "malformed text form",
		ExplainText: "The file does not follow narwhal's text form (docs/text-format.md). The message gives " +
			"file:line:column, the function and instruction, what was expected and what was found.",
		Example: compileBir(mod("", "  ld = Load %x[ap=[[512,128],[1,512]] f32 -> %t[ap=[[512,128],[1,512]]] f32\n"+stT)),
		Fix:     compileBir(mod("", ldT+stT)),
		FixText: "Close the access pattern's bracket.",
	},
	{
		Code: BadKLR, Title: "malformed KLR file",
		ExplainText: "The file starts like KLR (the CBOR self-describe tag) but is not a KLR file narwhal reads: " +
			"another KLR version than 0.0.12, a content other than a compiled kernel, or a truncated or " +
			"corrupt item (the message gives the byte offset and the field path).",
		Example: Example{Args: []string{"compile", "kernel.klr"}, Files: []File{{Name: "kernel.klr", Lang: "text", Built: true,
			Text: "a KLR file cut in half (what an interrupted copy leaves)"}}},
		Fix:     klrKernel("a complete KLR file of the kernel"),
		FixText: "Serialize the kernel again with the KLR toolchain (version 0.0.12).",
	},
	{
		Code: BadCSV, Title: "malformed allocation problem (MiniMalloc CSV)",
		ExplainText: "`narwhal alloc` reads MiniMalloc's CSV: a header naming the columns id, lower, upper and size " +
			"(any order, other columns ignored), then one buffer per line with integers: lower < upper, size > 0, " +
			"all within the solver's range (2^52).",
		Example: Example{Args: []string{"alloc", "problem.csv", "--capacity=16"}, Files: []File{{Name: "problem.csv", Lang: "text", Text: "id,lower,upper\n0,0,1\n"}}},
		Fix:     Example{Args: []string{"alloc", "problem.csv", "--capacity=16"}, Files: []File{{Name: "problem.csv", Lang: "text", Text: "id,lower,upper,size\n0,0,1,8\n"}}},
		FixText: "Give every buffer its size.",
	},
	{
		Code: BadPython, Title: "a kernel file is not valid Python",
		ExplainText: "narwhal parses a kernel file with its own Python 3 parser (package python/syntax, the grammar of " +
			"CPython 3.11) and reports a syntax error as CPython would: the line, the column and CPython's words.",
		Example: pyKernel("@nki.jit\ndef kernel(a):\n    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm\n    return out\n", "--input", "a=float32[128,512]"),
		Fix:     pyKernel(pyCopy(""), "--input", "a=float32[128,512]"),
		FixText: "Fix the Python at the line and column the message names.",
	},
	{
		Code: Structure, Title: "broken reference or structure",
		ExplainText: "Something the module refers to does not exist or is not where it must be: an operand " +
			"naming a removed location, a dependency on a removed instruction, a duplicate name, a loop " +
			"axis no enclosing loop binds, a block reached twice. Rules ref, name-unique, tables, block, " +
			"loop, dep, opcode, sym-axis-unbound.",
		Example: compileBir(mod("", ldT+"  st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 deps [FLOW ?gone]\n")),
		Fix:     compileBir(mod("", ldT+"  st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 deps [FLOW ld]\n")),
		FixText: "Depend on an instruction that exists.",
	},
	{
		Code: Declaration, Title: "bad tensor or location declaration",
		ExplainText: "A tensor's or memory location's fields disagree: an unknown dtype, a shape that does not " +
			"match its locations, bytes per partition that are not a multiple of the element size. Rules " +
			"tensor, loc, dtype.",
		Example: compileBir(mod("  tensor %u_set: f32[128, 512] class=NeuronSBTensor\n    loc %u: SB 128x2046\n",
			"  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %u[ap=[[512,128],[1,512]]] f32\n")),
		Fix: compileBir(mod("  tensor %u_set: f32[128, 512] class=NeuronSBTensor\n    loc %u: SB 128x2048\n",
			"  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %u[ap=[[512,128],[1,512]]] f32\n")),
		FixText: "512 fp32 elements per partition take 2048 bytes.",
	},
	{
		Code: OperandShape, Title: "operand count or shape mismatch",
		ExplainText: "The opcode's operands disagree (semantics.md §1): a DMA moves as many elements as it reads; " +
			"a compute instruction's sources and destination have the same partitions and elements per " +
			"partition; a matmul's stationary is [K, M], moving [K, N] and destination [M, N]. Rules arity, " +
			"elem-count, cce-shape.",
		Example: compileBir(mod("", "  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %t[ap=[[512,128],[1,256]]] f32\n")),
		Fix:     compileBir(mod("", ldT)),
		FixText: "Write as many elements as are read.",
	},
	{
		Code: OutOfBounds, Title: "access outside its tensor",
		ExplainText: "An access pattern reaches elements outside its location (offset plus the pattern's extent), " +
			"has more than 5 [step, num] pairs or a num below 1, or a symbolic block index outside the " +
			"tensor's blocks. Rules ap-bounds, ap-shape.",
		Example: compileBir(mod("", "  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %t[offset=256, ap=[[512,128],[1,512]]] f32\n")),
		Fix:     compileBir(mod("", ldT)),
		FixText: "Keep offset + extent inside the tile: the tile holds exactly one 128 x 512 block.",
	},
	{
		Code: EngineOpcode, Title: "the engine cannot run the opcode",
		ExplainText: "Each opcode runs on some engines only (the Tensor engine multiplies and transposes; " +
			"element-wise arithmetic runs on the Vector and GpSimd engines; ...), and an engine must exist " +
			"on the target generation, as must an instruction the NKI reference gives to newer NeuronCores " +
			"only (range_select and nonzero_with_count NC-v3, exponential NC-v4). Rules engine, act-reduce, nc-version.",
		Example: compileBir(mod("", ldT+"  add = TensorTensor on PE %t[ap=[[512,128],[1,512]]] f32, %t[ap=[[512,128],[1,512]]] f32 -> %t[ap=[[512,128],[1,512]]] f32 {op=\"add\"}\n")),
		Fix:     compileBir(mod("", ldT+"  add = TensorTensor on DVE %t[ap=[[512,128],[1,512]]] f32, %t[ap=[[512,128],[1,512]]] f32 -> %t[ap=[[512,128],[1,512]]] f32 {op=\"add\"}\n")),
		FixText: "Run element-wise arithmetic on the Vector engine (DVE).",
	},
	{
		Code: WrongMemory, Title: "operand in a memory the engine cannot use",
		ExplainText: "The engines reach only some memories: compute engines read and write SBUF and PSUM, never " +
			"DRAM; the Tensor engine (matmul) reads SBUF and writes PSUM; GpSimd never touches PSUM; DMA " +
			"never reads PSUM. This is the mistake neuronx-cc reports as \"kernel failed verifier check\": " +
			"a matmul whose destination is not PSUM. Rules onchip-operand, pe-memory, gpsimd-psum, dma-psum, " +
			"tt-psum, customop-memory.",
		Example: compileBir(mod("  tensor %w_set: f32[128, 128] class=NeuronSBTensor\n    loc %w: SB 128x512\n  tensor %r_set: f32[128, 512] class=NeuronSBTensor\n    loc %r: SB 128x2048\n",
			ldT+"  ldw = Load %x[ap=[[512,128],[1,128]]] f32 -> %w[ap=[[128,128],[1,128]]] f32\n"+
				"  mm = Matmult on PE %w[ap=[[128,128],[1,128]]] f32, %t[ap=[[512,128],[1,512]]] f32 -> %r[ap=[[512,128],[1,512]]] f32 {start_tensor_calc=true, stop_tensor_calc=true}\n")),
		Fix: compileBir(mod("  tensor %w_set: f32[128, 128] class=NeuronSBTensor\n    loc %w: SB 128x512\n  tensor %r_set: f32[128, 512] class=NeuronPSUMTensor\n    loc %r: PSUM 128x2048\n",
			ldT+"  ldw = Load %x[ap=[[512,128],[1,128]]] f32 -> %w[ap=[[128,128],[1,128]]] f32\n"+
				"  mm = Matmult on PE %w[ap=[[128,128],[1,128]]] f32, %t[ap=[[512,128],[1,512]]] f32 -> %r[ap=[[512,128],[1,512]]] f32 {start_tensor_calc=true, stop_tensor_calc=true}\n")),
		FixText: "Accumulate the matmul into a PSUM tile (then copy it to SBUF on the Vector engine if needed).",
	},
	{
		Code: EngineAP, Title: "access pattern the engine cannot encode",
		ExplainText: "Compute-engine access patterns walk whole partitions: the partition pair's step is the " +
			"location's elements per partition, the free pattern stays inside a partition, at most 4 free " +
			"dimensions, nums fit 16 bits and steps 16 signed bits. (DMA has no such limits; " +
			"legalize_strided_dma turns partition-strided DMA into engine-legal code.) Rules engine-ap, " +
			"partition-stride.",
		Example: compileBir(mod("", ldT+"  cp = TensorCopy on DVE %t[ap=[[512,64],[1,512]]] f32 -> %t[ap=[[1024,64],[1,512]]] f32\n")),
		Fix:     compileBir(mod("", ldT+"  cp = TensorCopy on DVE %t[ap=[[512,64],[1,512]]] f32 -> %t[offset=32768, ap=[[512,64],[1,512]]] f32\n")),
		FixText: "Address consecutive partitions (step = 512 elements, the tile's row); move the other half with an offset.",
	},
	{
		Code: MatmulLimit, Title: "matmul sizes or tile fields out of range",
		ExplainText: "A matmul's destination dtype must be one the generation writes, and fp32 inputs go only " +
			"with fp32; once tiled (StageTiled) it contracts K <= 128 partitions, produces M <= 128 rows (the " +
			"stationary's free size) and N columns up to the generation's limit for the destination dtype " +
			"(512 fp32 per PSUM bank on trn2); larger matmuls are macro operations sunda_size_tiling splits. " +
			"Its tile_position/tile_size must be a legal PE tile that holds the operands; the moving operand " +
			"starts at the tile_position row and the destination at its column, so the memory planner (alloc) " +
			"places their tiles there, and reports a position no legal start gives (a 128-partition tile can " +
			"only start at 0) or two matmuls that need one tile at two partitions. Rules matmul-limits, " +
			"matmul-dtype, tile-size, tile-position.",
		Example: compileBir(matmulTile("{start_tensor_calc=true, stop_tensor_calc=true, tile_position=[0, 0], tile_size=[32, 32]}")),
		Fix:     compileBir(matmulTile("{start_tensor_calc=true, stop_tensor_calc=true}")),
		FixText: "A [K=64, M=32] stationary does not fit a 32 x 32 PE tile: give no tile fields (the whole array), or a tile that holds it.",
	},
	{
		Code: BadField, Title: "missing or malformed opcode field",
		ExplainText: "An opcode-specific field the verifier reads has the wrong type or value: a reduction axis " +
			"other than X, XY, XYZ, XYZW or C (tensor_partition_reduce), an AluOp a variant does not take, a tile field that is not a pair, a semaphore command that is not " +
			"{semaphore, value}, more semaphore waits or updates than one instruction carries. Rules attr, " +
			"semaphore.",
		Example: compileBir(mod("  tensor %r_set: f32[128, 1] class=NeuronSBTensor\n    loc %r: SB 128x4\n",
			ldT+"  red = TensorReduce on DVE %t[ap=[[512,128],[1,512]]] f32 -> %r[ap=[[1,128],[1,1]]] f32 {op=\"add\", axis=\"XYZWC\"}\n")),
		Fix: compileBir(mod("  tensor %r_set: f32[128, 1] class=NeuronSBTensor\n    loc %r: SB 128x4\n",
			ldT+"  red = TensorReduce on DVE %t[ap=[[512,128],[1,512]]] f32 -> %r[ap=[[1,128],[1,1]]] f32 {op=\"add\", axis=\"X\"}\n")),
		FixText: "Reduce along the free axis X (XYZWC, free and partition axes at once, is no reduction; C alone is tensor_partition_reduce, on GpSimd).",
	},
	{
		Code: IndirectShape, Title: "indirect DMA shapes disagree",
		ExplainText: "A gather or scatter (GenericIndirectLoad/Save, IndirectLoad/Save) reads its row indices " +
			"from an index tile with one element per partition, names as many indirect dimensions as it " +
			"has index tiles, and its data shapes match (seed 001's checkIndirectShape and " +
			"checkTensorIndirection). Rules indirect-shape, tensor-indirection.",
		Example: compileBir(mod("  tensor %idx_set: i32[128, 2] class=NeuronSBTensor\n    loc %idx: SB 128x8\n",
			"  gl = GenericIndirectLoad %x[ap=[[512,128],[1,512]]] f32, %idx[ap=[[2,128],[1,2]]] i32 -> %t[ap=[[512,128],[1,512]]] f32 {indirect_dims=[0]}\n")),
		Fix: compileBir(mod("  tensor %idx_set: i32[128, 1] class=NeuronSBTensor\n    loc %idx: SB 128x4\n",
			"  gl = GenericIndirectLoad %x[ap=[[512,128],[1,512]]] f32, %idx[ap=[[1,128],[1,1]]] i32 -> %t[ap=[[512,128],[1,512]]] f32 {indirect_dims=[0]}\n")),
		FixText: "One index per partition: an index tile of [128, 1].",
	},
	{
		Code: PartStart, Title: "partition-start rule",
		ExplainText: "An engine access of n partitions may start only at a partition the hardware can address " +
			"for that size (seed 002 §3): 64 partitions at 0 or 64, 32 at multiples of 32, fewer within a " +
			"32-partition quadrant. neuronx-cc users meet it as \"Invalid access of 8 partitions starting " +
			"at partition 48\". narwhal checks it on allocated modules, which every NKI kernel is, and " +
			"names the kernel line. Rule partition-start.",
		Example: klrKernel(`@nki.jit
def kernel(a):
    out = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)   # allocated at partition 32
    nisa.dma_copy(dst=t, src=a[32:96, 0:32])
    nisa.tensor_scalar(dst=t, data=t, op0=np.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=t)
    return out`),
		Fix:     klrKernel(`t = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)   # allocated at partition 64 (or 0)`),
		FixText: "Place a 64-partition tile at partition 0 or 64.",
	},
	{
		Code: PSUMBank, Title: "access crosses a PSUM bank",
		ExplainText: "PSUM is 8 banks of 2 KiB per partition; an engine access of PSUM stays within one bank " +
			"(a matmul accumulates into one bank: 512 fp32 columns). narwhal checks it on allocated modules " +
			"(every NKI kernel). Rule psum-bank.",
		Example: klrKernel(`@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)  # allocated at byte 1024 of the bank
    nisa.memset(dst=p, value=1.0)
    ...`),
		Fix:     klrKernel(`p = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)  # allocated at byte 0 of a bank`),
		FixText: "Start a 2 KiB PSUM tile at a bank boundary (or use a tile that fits in what is left of the bank).",
	},
	{
		Code: Stage, Title: "the module claims or needs a stage it does not satisfy",
		ExplainText: "Some rules hold only once a pass has established them: no loops after FullUnroll, no " +
			"GenericIndirectLoad after lower_generic_indirect, CCE DMAs within MaxCceDmaSource after " +
			"legalize_cce_dma, engines assigned. A module can claim a stage (the function attribute " +
			"stage_legalize_cce_dma_completed), and then must satisfy it on the target: a module legalized " +
			"for one MaxCceDmaSource checked against a smaller one fails here. (After a pass of a run, a " +
			"broken stage rule is the pass's fault: NW900.) Rules unrolled, indirect-lowered, cce-sources, " +
			"engine-assigned.",
		Example: Example{Args: []string{"verify", "kernel.bir", "--option", "arch.max-cce-dma-source=2"}, Files: []File{{Name: "kernel.bir", Lang: "bir",
			Text: strings.Replace(mod("", cce3), "func @main {", "func @main attributes=[stage_legalize_cce_dma_completed] {", 1)}}},
		Fix: Example{Args: []string{"verify", "kernel.bir", "--option", "arch.max-cce-dma-source=2"}, Files: []File{{Name: "kernel.bir", Lang: "bir",
			Text: mod("", cce3)}}},
		FixText: "Drop the claim and let legalize_cce_dma split the DMA for the target (`narwhal compile`), or check against the MaxCceDmaSource the module was legalized for.",
	},
	{
		Code: Overlap, Title: "two tensors live at once share on-chip memory",
		ExplainText: "Two SBUF or PSUM allocations that are live at the same time (one is written before the " +
			"other's last read) occupy the same partitions and bytes, so one overwrites the other. narwhal " +
			"checks it on allocated modules: every NKI kernel (whose addresses the NKI front end chose) and " +
			"the output of its own allocator. Rule overlap.",
		Example: klrKernel(`@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)  # allocated at byte 0
    tb = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)  # allocated at byte 0 too
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)          # overwrites ta, which is still to be read
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=np.add)
    nisa.dma_copy(dst=out, src=ta)`),
		Fix:     klrKernel(`tb = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)  # allocated at byte 2048`),
		FixText: "Give tiles that are live together disjoint addresses.",
	},
	{
		Code: TooManyInsts, Title: "unrolling makes too many instructions",
		ExplainText: "FullUnroll refuses to make 25,000,000 instructions or more (the seeds' ceiling, neuronx-cc's " +
			"\"Compiler generated too many instructions\"), and Unroll refuses more than its budget " +
			"(max_instruction_limit, default 5,000,000). narwhal checks a lower bound before cloning, so " +
			"the error comes at once, naming the function.",
		Example: compileBir(mod("", ldT+"  loop_i = Loop i in [0, 30000000) {\n  Body:\n    st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32\n  }\n")),
		Fix:     compileBir(mod("", ldT+"  loop_i = Loop i in [0, 30) {\n  Body:\n    st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32\n  }\n")),
		FixText: "Move work into each instruction (larger tiles, fewer iterations) so that the unrolled count stays under the ceiling.",
	},
	{
		Code: DoesNotFit, Title: "a tensor cannot fit on-chip memory",
		ExplainText: "An SBUF or PSUM tensor is larger than the generation's partitions or usable bytes per " +
			"partition, and no transformation can make it fit: sb_size_legalization finds no dimension to " +
			"cut (an instruction would straddle the pieces), vn_splitter no disjoint partition groups, " +
			"shrink_ml no dead elements; or the memory planner (alloc) finds more bytes live at one instant than " +
			"the memory holds (neuronx-cc's \"couldn't be allocated in SB\"): it lists the live set at the worst " +
			"instant, tensor by tensor. The message says, per tensor, why each pass could not act, and " +
			"names the NKI line that first uses it. Rules sb-fit and allocated give the same code for an " +
			"allocated kernel whose tile lies outside the usable memory.",
		Example: compileBir(mod("  tensor %in_set: f32[128, 60000] kind=Input\n    loc %in: Input 128x240000\n  tensor %big_set: f32[128, 60000] class=NeuronSBTensor\n    loc %big: SB 128x240000\n  tensor %r_set: f32[128, 1] class=NeuronSBTensor\n    loc %r: SB 128x4\n",
			"  ld = Load %in[ap=[[60000,128],[1,60000]]] f32 -> %big[ap=[[60000,128],[1,60000]]] f32\n"+
				"  red = TensorReduce on DVE %big[ap=[[60000,128],[1,60000]]] f32 -> %r[ap=[[1,128],[1,1]]] f32 {op=\"add\", axis=\"X\"}\n")),
		Fix: compileBir(mod("  tensor %in_set: f32[128, 60000] kind=Input\n    loc %in: Input 128x240000\n  tensor %big_set: f32[128, 30000] class=NeuronSBTensor\n    loc %big: SB 128x120000\n  tensor %r_set: f32[128, 2] class=NeuronSBTensor\n    loc %r: SB 128x8\n",
			"  ld0 = Load %in[ap=[[60000,128],[1,30000]]] f32 -> %big[ap=[[30000,128],[1,30000]]] f32\n"+
				"  red0 = TensorReduce on DVE %big[ap=[[30000,128],[1,30000]]] f32 -> %r[ap=[[2,128],[1,1]]] f32 {op=\"add\", axis=\"X\"}\n"+
				"  ld1 = Load %in[offset=30000, ap=[[60000,128],[1,30000]]] f32 -> %big[ap=[[30000,128],[1,30000]]] f32\n"+
				"  red1 = TensorReduce on DVE %big[ap=[[30000,128],[1,30000]]] f32 -> %r[offset=1, ap=[[2,128],[1,1]]] f32 {op=\"add\", axis=\"X\"}\n")),
		FixText: "Reduce in two halves that fit SBUF (then add the two partial sums).",
	},
	{
		Code: KernelCodegen, Title: "the NKI kernel uses something narwhal cannot translate",
		ExplainText: "translate_nki_ast_to_bir meets an operator or a field value with no BIR counterpart (a " +
			"KLR operator narwhal does not lower, a dynamic offset, an unallocated SBUF tensor, an access " +
			"leaving its tensor). The message names the operator and its NKI source line.",
		Example: klrKernel(`@nki.jit
def kernel(a, b):
    ...
    nisa.tensor_tensor_scan(...)   # line 28: KLR's tensorTensorScan, which narwhal does not lower
    ...`),
		Fix:     klrKernel(`nisa.tensor_tensor(dst=sum_tile, data1=a_tile, data2=b_tile, op=np.add)`),
		FixText: "Use an operator docs/klr.md lists as supported.",
	},
	{
		Code: KernelCall, Title: "NKI kernel call: file, core or arguments",
		ExplainText: "An NKIKLIRKernel placeholder names a kernel file that exists neither as given nor in the " +
			"artifact directory, a kernel compiled for several logical cores runs on a module without a " +
			"neuron_core_id, or its arguments do not bind the kernel's inputs and outputs (count, dtype, " +
			"element count).",
		Example: compileBir(mod("", "  k = NKIKLIRKernel %x[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 {path=\"kernels/add.klr\", format=\"klr\"}\n")),
		Fix:     compileBir(mod("", "  k = NKIKLIRKernel %x[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 {path=\"add.klr\", format=\"klr\"}\n")),
		FixText: "Name the kernel file by a path that exists (relative to the working directory) or copy it into the artifact directory.",
	},
	{
		Code: DMALegalize, Title: "a DMA the DMA passes cannot legalize",
		ExplainText: "lower_generic_indirect, legalize_strided_dma or legalize_cce_dma cannot rewrite a DMA into " +
			"what the hardware runs, with the seeds' own messages: a collective-compute DMA with more " +
			"sources than a CCE DMA can chain when MaxCceDmaSource is below 2, an indirect DMA whose " +
			"offsets are not contiguous per partition, a strided load whose tile does not fit SBUF.",
		Example: compileBir(mod("", "  red = DMACopy %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 {mode=\"CCE\", constants=[1.0, 1.0, 1.0], cce_op=\"add\"}\n"),
			"--option", "arch.max-cce-dma-source=1"),
		Fix: compileBir(mod("", "  red = DMACopy %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32, %x[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32 {mode=\"CCE\", constants=[1.0, 1.0, 1.0], cce_op=\"add\"}\n"),
			"--option", "arch.max-cce-dma-source=2"),
		FixText: "A CCE DMA chain needs MaxCceDmaSource >= 2 (the hardware's is 16).",
	},
	{
		Code: ParallelInputs, Title: "several inputs: conflicting outputs, or some failed",
		ExplainText: "`narwhal compile a b ... --out-dir DIR` writes DIR/NAME.json per input; two inputs with the " +
			"same NAME would overwrite each other, and flags that name one output file (-o, --html, " +
			"--trace, --memmap, --dump-alloc-problem, --stats, --print-after, --dump-dir, --report, " +
			"--logfile) do not apply to several modules. When some of the modules fail, each has its FAIL " +
			"line with its own cause on standard output and the command exits 1 with this code.",
		Example: cmd("compile", "builtin:tensor_add", "builtin:tensor_add", "--out-dir", "out"),
		Fix:     cmd("compile", "builtin:tensor_add", "builtin:matmul", "--out-dir", "out"),
		FixText: "Give each input its own name (or compile the same module once).",
	},
	{
		Code: TilingRefused, Title: "a macro operation sunda_size_tiling cannot tile",
		ExplainText: "A macro operation (a whole-tensor instruction larger than one hardware instruction: more " +
			"than 128 partitions, a PSUM row of several banks, more free elements than one instruction " +
			"takes; docs/bir-json.md) is tiled by sunda_size_tiling into a loop nest over tiles it lays out " +
			"itself. It refuses what it cannot rewrite without changing the program: an explicit " +
			"dependency, a predicate, a partial access of a macro tensor, a placed (allocated) macro " +
			"tensor (an NKI kernel's tiles are placed: one NKI instruction works on one tile), an opcode " +
			"with no macro form, a macro operation inside a loop. The message names the instruction, its " +
			"NKI line, and what is wanted.",
		Example: compileBir(macroDouble(" deps [FLOW ld]")),
		Fix:     compileBir(macroDouble("")),
		FixText: "Leave the dependencies of macro operations out: their program order is their meaning, and the tiles get theirs from the bytes they touch.",
	},
	{
		Code: Semaphores, Title: "the synchronization needs more semaphores than the machine has",
		ExplainText: "alloc_semaphores gives each engine and DMA queue that signals another its own counting " +
			"semaphore (docs/synchronization.md). A program whose instructions use more engines and queues " +
			"that signal than the machine's semaphores (arch.semaphores; the number is not published, " +
			"narwhal chooses 32) cannot be synchronized this way. The message says how many it needs and " +
			"names the instruction of the first stream left without one.",
		Example: cmd("compile", "builtin:tensor_add", "--option", "arch.semaphores=3"),
		Fix:     cmd("compile", "builtin:tensor_add", "--option", "arch.semaphores=32"),
		FixText: "Give the machine's real semaphore count (arch.semaphores), or use fewer DMA queues (arch.dma-queues) so that fewer streams signal.",
	},
	{
		Code: LoopNotHandled, Title: "a loop the scheduler or the synchronization cannot handle",
		ExplainText: "A function that keeps loops (FullUnroll levels 0 and 1, an NKI dynamic_range loop) is " +
			"scheduled and synchronized as loops: dependencies carried across iterations, a periodic " +
			"schedule of each body, semaphore counts that advance per iteration, all checked on the " +
			"loop's instances (docs/schedule.md, docs/synchronization.md). A loop whose trip count is " +
			"known only at run time (a DoWhile, a DynamicForLoop over registers: nl.dynamic_range over a " +
			"VirtualRegister, `while reg:`) is handled through a window of iterations that stands for " +
			"every trip count, under rules the window needs: it sits at the function's top level or " +
			"inside guards of at most one iteration (a loop of several iterations around it would " +
			"multiply its run-time count into the outer semaphore counts), no operand of its body names " +
			"its axis (the body addresses memory through registers), and its body and control run on " +
			"one engine, whose sequencer holds the trip count's registers. A call inside a loop body, and " +
			"a loop of static trip count whose semaphore counts pass the counter's range (a rotation " +
			"inside a loop), are not handled either. narwhal refuses such a function rather than emit one " +
			"it has not synchronized. The message names the loop.",
		Example: Example{Args: []string{"compile", "kernel.bir"}, Files: []File{{Name: "kernel.bir", Lang: "bir", Text: loopKernel(true)}}},
		Fix:     Example{Args: []string{"compile", "kernel.bir"}, Files: []File{{Name: "kernel.bir", Lang: "bir", Text: loopKernel(false)}}},
		FixText: "Move the runtime loop out of the loop around it (to the function's top level: here the " +
			"outer loop's two passes do the same, so one is enough), or give the loop constant bounds " +
			"(its axis's: `DynamicForLoop d in [0, 4)` without register operands) and unroll.",
	},
	{
		Code: LNCCores, Title: "an LNC kernel's cores cannot be compiled together",
		ExplainText: "`narwhal compile FILE --lnc N` compiles the N logical cores' programs of an LNC kernel " +
			"together and schedules them jointly (LncAwareScheduler). The cores meet at CoreBarriers, which " +
			"insert_core_barrier puts where a core reads or rewrites a shared HBM tensor written or read " +
			"since the last one, so cores that access the shared tensors differently get different " +
			"barriers and would wait for each other forever on hardware; a shared tensor must also have " +
			"the same shape on every core. The message names the core, the barrier or tensor, and its NKI line.",
		Example: Example{Args: []string{"compile", "kernel.klr", "--lnc", "2"}, Files: []File{{Name: "kernel.klr", Lang: "python", Built: true, Text: `@nki.jit   # an LNC=2 kernel: each core writes its half of out
def kernel(a):
    ...
    nisa.dma_copy(dst=out[rows], src=t)
    if nl.program_id(0) == 0:
        nisa.dma_copy(dst=u, src=out[rows])   # line 12: core 0 reads its half back,
        nisa.dma_copy(dst=out[rows], src=u)   # line 13: and writes it again; core 1 does not`}},
			Note: "kernel.klr is this NKI kernel serialized by the KLR toolchain (the test writes the same KLR with klrtest: two bodies, lines 10 to 13 of k.py)."},
		Fix: Example{Args: []string{"compile", "kernel.klr", "--lnc", "2"}, Files: []File{{Name: "kernel.klr", Lang: "python", Built: true, Text: `    nisa.dma_copy(dst=u, src=out[rows])   # both cores read their half back
    nisa.dma_copy(dst=out[rows], src=u)   # and write it again`}}},
		FixText: "Make the cores access the shared tensors alike (or keep what one core alone touches in its own tensors).",
	}, {
		Code: KernelRaised, Title: "tracing the NKI kernel raised a Python exception",
		ExplainText: "narwhal runs the kernel's Python at trace time, as NKI does: an exception that escapes it (a NameError, " +
			"a TypeError, a failed assert with its message, a raise in a helper) stops the compile with the exception's type, " +
			"message and the kernel's file:line:col. The words are CPython's.",
		Example: pyKernel(pyCopy("    assert a.shape[1] % 1024 == 0, f\"columns must be a multiple of 1024, have {a.shape[1]}\"\n"), "--input", "a=float32[128,512]"),
		Fix:     pyKernel(pyCopy("    assert a.shape[1] % 512 == 0, f\"columns must be a multiple of 512, have {a.shape[1]}\"\n"), "--input", "a=float32[128,512]"),
		FixText: "Fix what the exception says at the line it names.",
	},
	{
		Code: KernelUnsupported, Title: "the NKI kernel uses a construct or API narwhal does not support",
		ExplainText: "A Python construct the tracer does not evaluate (async code, for one) or an NKI API name narwhal cannot " +
			"lower faithfully. docs/nki.md lists every nl, nisa and ncc name with its status and the reason for each one " +
			"that is not supported. The message names the construct or the API and its line.",
		Example: pyKernel(pyCopy("    nisa.builtin_custom_op(function_name='f', lib_file_name='f.so', ulib_to_ucode_version='1', ulib_to_isa_version='1', srcs=[t], dsts=[t])\n"), "--input", "a=float32[128,512]"),
		Fix:     pyKernel(pyCopy(""), "--input", "a=float32[128,512]"),
		FixText: "Write the computation with the supported API (docs/nki.md).",
	},
	{
		Code: KernelAPI, Title: "the NKI kernel breaks a rule of the NKI API",
		ExplainText: "The kernel calls the NKI API with something the API does not allow: a tile of more than 128 " +
			"partitions (nl.tile_size.pmax), shapes or dtypes that disagree, an operand in a buffer the instruction cannot " +
			"use, a tile used outside the loop that made it. The message names the rule, the tensors and the kernel line.",
		Example: pyKernel(pyCopy(""), "--input", "a=float32[256,512]"),
		Fix:     pyKernel(pyCopy(""), "--input", "a=float32[128,512]"),
		FixText: "Tile the kernel so that every tile fits the rule (at most 128 partitions: a loop over 128-row tiles).",
	}, {
		Code: KernelBudget, Title: "tracing the NKI kernel exceeds the tracer's budget",
		ExplainText: "The tracer runs the kernel's Python with a budget of evaluation steps (50,000,000: statements, " +
			"calls and loop iterations), so a loop that never ends, or one so long that its trace would not finish, stops " +
			"with this error and the kernel's line instead of hanging. A kernel's loops over tiles are nl.affine_range " +
			"loops, traced once; a Python loop of millions of iterations at trace time is the usual cause.",
		Example: pyKernel(pyCopy("    n = 0\n    while True:\n        n += 1\n"), "--input", "a=float32[128,512]"),
		Fix:     pyKernel(pyCopy(""), "--input", "a=float32[128,512]"),
		FixText: "End the loop (or make it an nl.affine_range loop over tiles).",
	},

	{
		Code: RunBudget, Title: "a run exceeds the interpreter's budget",
		ExplainText: "`narwhal run` stops a module that executes more instructions than --max-instructions " +
			"(default 10,000,000; loop iterations count as one) or needs more memory than --max-memory " +
			"(default 2 GiB) for its tensors and scratch, before it exhausts the machine. The message names the " +
			"instruction and the loop iteration.",
		Example: cmd("run", "builtin:tensor_add", "--max-instructions", "2", "--outputs", "out"),
		Fix:     cmd("run", "builtin:tensor_add", "--outputs", "out"),
		FixText: "Raise the budget (--max-instructions N, --max-memory SIZE, -1 for none), or run a smaller instance.",
	},
	{
		Code: RunInput, Title: "bad inputs for a run",
		ExplainText: "`narwhal run` reads each input tensor from NAME.npy in --inputs DIR (or an array of that name " +
			"in a .npz), and draws the missing ones at random. A file that is not .npy/.npz, a dtype with no " +
			"narwhal counterpart, big-endian data, or a shape other than the tensor's is refused, naming the input.",
		Example: Example{Args: []string{"run", "builtin:tensor_add", "--inputs", "in", "--outputs", "out"}, Files: []File{{Name: "in/x.npy", Lang: "text", Text: "not a NumPy file\n"}}},
		Fix:     Example{Args: []string{"run", "builtin:tensor_add", "--outputs", "out"}},
		FixText: "Write the inputs with numpy.save (float32 [512, 2048] here), or leave them out to get random ones.",
	},
	{
		Code: RunFault, Title: "the module faults, races or computes wrongly when run",
		ExplainText: "The interpreter executes the module and meets what the hardware would not do or would do " +
			"wrongly: a read of memory nothing wrote, an access outside its location, a PSUM access crossing a " +
			"bank, operands of different element counts, an engine touching a memory it cannot, an integer " +
			"division by zero. The verifier catches most of these statically; the rest depend on values. " +
			"Under `run --concurrent`: a race (two accesses no semaphore orders), a deadlock, DMAs in " +
			"flight after Halt, or outputs that differ from the sequential run's (each finding is printed on " +
			"standard output); under `run --check`: outputs that differ from the kernel's reference.",
		Example: Example{Args: []string{"run", "kernel.bir", "--outputs", "out"}, Files: []File{{Name: "kernel.bir", Lang: "bir", Text: mod("", stT)}}},
		Fix:     Example{Args: []string{"run", "kernel.bir", "--outputs", "out"}, Files: []File{{Name: "kernel.bir", Lang: "bir", Text: mod("", ldT+stT)}}},
		FixText: "Write the tile before saving it.",
	},
	{
		Code: Internal, Title: "internal error: narwhal's fault",
		ExplainText: "A pass panicked, or left a module the verifier rejects although its input verified. This " +
			"is a bug in narwhal, not a mistake in the input (exit status 2). Please report it at " +
			ReportURL + " with a reproducer: the input file and the command line narwhal prints " +
			"(NARWHAL_TRACEBACK=1 adds the stack; --dump-dir DIR keeps the module after every pass, so the " +
			"dump before the failing pass is the smallest reproducer).",
		Example: Example{Args: []string{"compile", "builtin:tensor_add", "--passes", "test_panic"},
			Note: "test_panic is a pass that panics, which the test adds to the pass table: there is no known way to make narwhal fail on its own."},
		FixText: "None on your side: report it.",
	},
}

// ReportURL is where narwhal's bugs are reported.
const ReportURL = "https://github.com/narwhal-compiler/narwhal/issues"

// loopKernel is a kernel with a DynamicForLoop over a register loaded
// from an input, nested in a loop of two iterations or not.
func loopKernel(nested bool) string {
	opening, closing, ind := "", "", ""
	if nested {
		opening, closing, ind = "  outer = Loop o in [0, 2) {\n  Block_o:\n", "  }\n", "  "
	}
	return `module arch=trn2

func @main {
  tensor %in_set: f32[128, 64] kind=Input
    loc %in: Input 128x256
  tensor %bounds_set: i32[1, 1] kind=Input
    loc %bounds: Input 1x4
  tensor %out_set: f32[128, 64] kind=Output
    loc %out: Output 128x256
  tensor %t_set: f32[128, 64] class=NeuronSBTensor
    loc %t: SB 128x256
  tensor %b_set: i32[1, 1] class=NeuronSBTensor
    loc %b: SB 1x4
  reg $n

Block1:
  ldn = Load %bounds[ap=[[1,1],[1,1]]] i32 -> %b[ap=[[1,1],[1,1]]] i32
  rn = TensorLoad %b[ap=[[1,1],[1,1]]] i32 -> $n i32
` + opening + ind + `  tiles = DynamicForLoop d in [0, 1) 0 i32, $n i32, 1 i32 {
` + ind + `  body:
` + ind + `    ld = Load %in[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
` + ind + `    st = Save %t[ap=[[64,128],[1,64]]] f32 -> %out[ap=[[64,128],[1,64]]] f32
` + ind + `  }
` + closing + `}
`
}
