package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/klr"
	"github.com/narwhal-compiler/narwhal/klr/klrtest"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// codeText is, per code, a piece of the message its example must print:
// the test checks the code and that the text says what is wrong.
var codeText = map[string]string{
	diag.Usage:             "flag provided but not defined: -optlvl",
	diag.UnknownArch:       `unknown target "trn9"`,
	diag.PassOption:        `pass vn_splitter has no option "ratios"`,
	diag.ReadInput:         "kernel.bir: empty input",
	diag.Builtin:           "m=100: want a positive multiple of 128",
	diag.Output:            "directory results does not exist",
	diag.BadCSV:            "missing required column(s) size",
	diag.RunBudget:         "executed more than 2 instructions",
	diag.RunInput:          "input x: in/x.npy: not a .npy file",
	diag.RunFault:          "read of never-written SBUF",
	diag.BadJSON:           "kernel.json:1:31: want ',' or '}' after an object field",
	diag.BadText:           "kernel.bir:12:",
	diag.BadKLR:            "the file is truncated",
	diag.Structure:         "depends on instruction gone: want a live instruction",
	diag.Declaration:       "bytes per partition: want a multiple of float32's 4 bytes, have 2046",
	diag.OperandShape:      "want equal element counts",
	diag.OutOfBounds:       "want 0 <= index < 65536",
	diag.EngineOpcode:      "engine PE: want one of",
	diag.WrongMemory:       "the Tensor engine writes only PSUM",
	diag.EngineAP:          "partition step 1024: want 512",
	diag.MatmulLimit:       "K = 64, M = 32: want K <= 32 and M <= 32, the tile_size",
	diag.BadField:          `axis "XYZWC": want X, XY, XYZ or XYZW`,
	diag.IndirectShape:     "must have 1 element per partition for IndexAP",
	diag.PartStart:         "k.py:11:4: ",
	diag.PSUMBank:          "k.py:10:4: ",
	diag.Stage:             "want <= MaxCceDmaSource = 2",
	diag.Overlap:           "k.py:",
	diag.TooManyInsts:      "Compiler generated too many instructions",
	diag.DoesNotFit:        "cannot fit the on-chip memory",
	diag.KernelCodegen:     "unsupported operator tensorTensorScan",
	diag.KernelCall:        "NKI Kernel file kernels/add.klr does not exist",
	diag.DMALegalize:       "3 arguments exceed MaxCceDmaSource = 1",
	diag.ParallelInputs:    "",
	diag.TilingRefused:     "pass sunda_size_tiling: instruction x2 (TensorScalar): an explicit dependency (on ld)",
	diag.Semaphores:        "needs 9 semaphores (one per engine or DMA queue that signals another), the arch has 3",
	diag.LNCCores:          "k.py:13:4: function lnc, instruction core_barrier2 (CoreBarrier): core 0 meets the other cores at CoreBarriers [1 2 3], core 1 at [1]",
	diag.LoopNotHandled:    "instruction tiles (DynamicForLoop): a DynamicForLoop whose trip count is known only at run time",
	diag.Internal:          "boom in a test pass",
	diag.KernelBind:        "kernel kernel has no parameter --input x (parameters: a)",
	diag.BadPython:         "kernel.py:7:21: '(' was never closed",
	diag.KernelRaised:      "kernel.py:9:5: AssertionError: columns must be a multiple of 1024, have 512",
	diag.KernelUnsupported: "kernel.py:9:5: NotSupported: nisa.builtin_custom_op",
	diag.KernelAPI:         "kernel.py:8:9: NKIError: partition dimension 256",
	diag.KernelBudget:      "LimitExceeded: the trace exceeded its budget of 50000000 evaluation steps",
}

// TestErrorCodes runs every registry entry's example (it must fail with
// its code, on one stderr line saying what is wrong) and its fix (it must
// succeed), and keeps docs/errors.md equal to what the registry and the
// messages make (-update rewrites it).
func TestErrorCodes(t *testing.T) {
	restore := addPanickingPass()
	defer restore()
	path, err := filepath.Abs(filepath.Join("..", "..", "docs", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	doc.WriteString(errorsDocHead)
	seen := map[string]bool{}
	for i := range diag.Registry {
		e := &diag.Registry[i]
		if seen[e.Code] {
			t.Errorf("%s is registered twice", e.Code)
		}
		seen[e.Code] = true
		want, ok := codeText[e.Code]
		if !ok {
			t.Errorf("%s has no test text in codeText", e.Code)
		}
		var out string
		t.Run(e.Code, func(t *testing.T) {
			if e.Code == diag.ParallelInputs {
				t.Skip("tested with compile -j (TestCompileMany_*)")
			}
			ex := e.Example
			t.Chdir(t.TempDir())
			writeFiles(t, e.Code, false, ex)
			code, _, stderr := narwhal(t, ex.Args...)
			wantExit, prefix := 1, "error["+e.Code+"]: "
			if e.Code == diag.Internal {
				wantExit, prefix = 2, "internal error["+e.Code+"], "+diag.InternalText
			}
			if code != wantExit || !strings.Contains(stderr, prefix) || !strings.Contains(stderr, want) {
				t.Fatalf("narwhal %s: exit %d, stderr %q\nwant exit %d, %q and %q", diag.ShellQuote(ex.Args), code, stderr, wantExit, prefix, want)
			}
			wantOneLine(t, e.Code, stderr)
			out = stderr
			if len(e.Fix.Args) == 0 {
				return
			}
			writeFiles(t, e.Code, true, e.Fix)
			if code, _, stderr := narwhal(t, e.Fix.Args...); code != 0 {
				t.Errorf("the fix, narwhal %s: exit %d, stderr %q", diag.ShellQuote(e.Fix.Args), code, stderr)
			}
		})
		if e.Code == diag.ParallelInputs {
			out = parallelInputsMessage(t, e.Example)
		}
		doc.WriteString(e.Explain(normalizeOut(out)))
	}
	for code := range codeText {
		if !seen[code] {
			t.Errorf("codeText names %s, which the registry lacks", code)
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || string(have) != doc.String() {
		t.Errorf("docs/errors.md is not what the registry makes (go test ./cmd/narwhal -run TestErrorCodes -update): %v", err)
	}
}

const errorsDocHead = `# narwhal's error codes

<!-- Generated by go test ./cmd/narwhal -run TestErrorCodes -update from package diag's Registry
and the messages the examples print; do not edit by hand. -->

Every mistake narwhal reports in its input or command line has a stable code, printed first:

    narwhal compile: error[NW306]: kernel.bir: the input does not verify: function main, instruction mm (Matmult), ...

(the NKI source line leads the message when the input is a kernel: ` + "`kernel.klr: kernels.py:28:4: ...`" + `).

` + "`narwhal explain CODE`" + ` prints the entry below; ` + "`narwhal explain`" + ` lists the codes. The exit
status is 1. A failure that is narwhal's own fault is NW900, exit status 2. Codes never change
meaning; a new kind of mistake gets a new code. Each entry's example is run by the test that
generates this page: it fails with the code and the message shown, and its fix compiles.

NW1xx: the command line, the input and output files. NW2xx: input formats. NW3xx: the input
breaks a rule of the IR or of the hardware (the verifier's rule names are given). NW4xx:
compiling the input fails. NW5xx: running it in the interpreter (narwhal run) fails. NW9xx:
narwhal's fault.

`

// normalizeOut drops the temporary directories from a message.
func normalizeOut(s string) string {
	s = regexp.MustCompile(`/[^ ]*/TestErrorCodes[^ ]*/[0-9]+/`).ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// writeFiles writes an example's files into the working directory; the
// built ones (binary KLR) come from klrFiles.
func writeFiles(t *testing.T, code string, fix bool, ex diag.Example) {
	t.Helper()
	for _, f := range ex.Files {
		data := []byte(f.Text)
		if f.Built {
			data = klrFile(t, code, fix, f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(f.Name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.Name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code == diag.KernelCall && fix {
		// The fixed placeholder names add.klr: a copy kernel [128, 512].
		if err := os.WriteFile("add.klr", encodeKLR(t, copyKernel(0, 0), nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// klrFile makes the KLR file of a code's example (or of its fix).
func klrFile(t *testing.T, code string, fix bool, name string) []byte {
	t.Helper()
	switch code {
	case diag.BadKLR:
		b := encodeKLR(t, copyKernel(0, 0), nil)
		if fix {
			return b
		}
		return b[:len(b)/2]
	case diag.PartStart:
		// A 64-partition SBUF tile at partition 32 (fix: 64).
		off := uint64(32)
		if fix {
			off = 64
		}
		a := hbmT("a", 128, 64)
		o := hbmT("out", 64, 32)
		ta := chipT("ta", klr.MemSBUF, 64, 32, off, 0)
		return encodeKLR(t, lncKernel("part", []klr.TensorName{a}, []klr.TensorName{o},
			dmaOp(whole(ta), tile(a, 32, 64, 8, 32)),
			&klr.TensorScalar{Dst: whole(ta), Src: whole(ta), Imm0: fimm(2), Op0: klr.AluOp(aluIndex("mult")), Engine: klr.EngDVE},
			dmaOp(whole(o), whole(ta))), nil)
	case diag.PSUMBank:
		// A 2 KiB-per-partition PSUM tile 1024 bytes into its bank (fix: 0).
		off := uint64(1024)
		if fix {
			off = 0
		}
		a := hbmT("a", 128, 512)
		o := hbmT("out", 128, 512)
		p := chipT("p", klr.MemPSUM, 128, 512, 0, off)
		s := chipT("s", klr.MemSBUF, 128, 512, 0, 0)
		return encodeKLR(t, lncKernel("bank", []klr.TensorName{a}, []klr.TensorName{o},
			&klr.MemSet{Dst: whole(p), Value: klr.Immediate{Kind: klr.ImmFloat, Float: 1}, Dtype: klrtest.Dtype("float32"), Engine: klr.EngDVE},
			&klr.NcCopy{Dst: whole(s), Src: whole(p), Engine: klr.EngDVE},
			dmaOp(whole(o), whole(s))), nil)
	case diag.Overlap:
		// ta and tb both at byte 0 while both live (fix: tb at 2048).
		off := uint64(0)
		if fix {
			off = 2048
		}
		a, b, o := hbmT("a", 128, 512), hbmT("b", 128, 512), hbmT("out", 128, 512)
		ta := chipT("ta", klr.MemSBUF, 128, 512, 0, 0)
		tb := chipT("tb", klr.MemSBUF, 128, 512, 0, off)
		return encodeKLR(t, lncKernel("overlap", []klr.TensorName{a, b}, []klr.TensorName{o},
			dmaOp(whole(ta), whole(a)), dmaOp(whole(tb), whole(b)),
			&klr.TensorTensor{Dst: whole(ta), Src0: whole(ta), Src1: whole(tb), Op: klr.AluOp(aluIndex("add")), Engine: klr.EngDVE},
			dmaOp(whole(o), whole(ta))), nil)
	case diag.LNCCores:
		// Two cores, each copying its half of a through t into out; core
		// 0 then reads its half of out back (a read of a shared tensor it
		// wrote: a CoreBarrier), core 1 does not (fix: it does too).
		return encodeKLR(t, lncTwoCores(fix), nil)
	case diag.KernelCodegen:
		// The fixture's shape: tensorTensor, patched to operator 35
		// (tensorTensorScan), which narwhal does not lower.
		if fix {
			return encodeKLR(t, addKernel(), nil)
		}
		return encodeKLR(t, addKernel(), func(b []byte) []byte {
			k := bytes.Index(b, []byte{0xd9, 0xda, 34})
			if k < 0 {
				t.Fatal("no tensorTensor operator in the encoded kernel")
			}
			b[k+2] = 35
			return b
		})
	}
	t.Fatalf("%s: no KLR file for %s", code, name)
	return nil
}

func encodeKLR(t *testing.T, k *klr.LncKernel, patch func([]byte) []byte) []byte {
	t.Helper()
	b, err := klrtest.Encode(klrtest.LncFile(k))
	if err != nil {
		t.Fatal(err)
	}
	if patch != nil {
		b = patch(b)
	}
	return b
}

// macroKernel doubles a bf16 [128, 70000] tile in place: more free
// elements than one instruction takes (a macro operation), on a placed
// tile, which sunda_size_tiling does not lay out anew.
func macroKernel() *klr.LncKernel {
	a, o := klrtest.HBM("a", "bfloat16", 128, 70000), klrtest.HBM("out", "bfloat16", 128, 70000)
	s := klrtest.OnChip("s", "bfloat16", klr.MemSBUF, 128, 70000, 0, 0)
	return lncKernel("macro", []klr.TensorName{a}, []klr.TensorName{o},
		dmaOp(whole(s), whole(a)),
		&klr.TensorScalar{Dst: whole(s), Src: whole(s), Imm0: fimm(2), Op0: klr.AluOp(aluIndex("mult")), Engine: klr.EngDVE},
		dmaOp(whole(o), whole(s)))
}

// anyEngineKernel is addKernel with the add on no engine in particular
// (assign_engines chooses one).
func anyEngineKernel() *klr.LncKernel {
	k := addKernel()
	k.Bodies[0][0].Body[2].Op.(*klr.TensorTensor).Engine = klr.EngUnassigned
	return k
}

// stridedKernel loads x [64, 128] transposed into a [128, 64] tile (a
// partition-strided load, which legalize_strided_dma stages through a new
// SBUF tile under --gen-stride-dma) while a placed tile fills the rest of
// the SBUF (212,992 bytes per partition on trn2): the staging tile does
// not fit.
func stridedKernel() *klr.LncKernel {
	x, y := hbmT("x", 64, 128), hbmT("y", 128, 64)
	big := chipT("big", klr.MemSBUF, 128, 53184, 0, 256)
	tt := chipT("tt", klr.MemSBUF, 128, 64, 0, 0)
	tr := klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindBirPattern, Bir: &klr.BirAccessPattern{
		Tensor: x, Pattern: []klr.APPair{{Step: 1, Num: 128}, {Step: 128, Num: 64}}}}}
	return lncKernel("strided", []klr.TensorName{x}, []klr.TensorName{y},
		dmaOp(whole(tt), tr),
		&klr.TensorScalar{Dst: whole(big), Src: whole(big), Imm0: fimm(2), Op0: klr.AluOp(aluIndex("mult")), Engine: klr.EngDVE},
		dmaOp(whole(y), whole(tt)))
}

// lncTwoCores is NW409's two-core kernel (see klrFile); readBack1 makes
// core 1 read its half back as core 0 does.
func lncTwoCores(readBack1 bool) *klr.LncKernel {
	a, o := hbmT("a", 256, 512), hbmT("out", 256, 512)
	ts := chipT("t", klr.MemSBUF, 128, 512, 0, 0)
	u := chipT("u", klr.MemSBUF, 128, 512, 0, 2048)
	body := func(core uint64, readBack bool) []klr.Block {
		ops := []klr.Operator{dmaOp(whole(ts), tile(a, 128*core, 128, 0, 512)), dmaOp(tile(o, 128*core, 128, 0, 512), whole(ts))}
		if readBack {
			// Read the half back and write it again: barriers before the
			// read (RAW), before the write (WAR) and after it.
			ops = append(ops, dmaOp(whole(u), tile(o, 128*core, 128, 0, 512)), dmaOp(tile(o, 128*core, 128, 0, 512), whole(u)))
		}
		return []klr.Block{{Label: "main.1", Body: klrtest.Stmts(ops...)}}
	}
	return &klr.LncKernel{Name: "lnc", Inputs: []klr.TensorName{a}, Outputs: []klr.TensorName{o},
		Bodies: [][]klr.Block{body(0, true), body(1, readBack1)}}
}

// copyKernel copies a [128, 512] fp32 input to the output through an SBUF
// tile at (parOff, freeOff).
func copyKernel(parOff, freeOff uint64) *klr.LncKernel {
	a := hbmT("a", 128, 512)
	o := hbmT("out", 128, 512)
	s := chipT("s", klr.MemSBUF, 128, 512, parOff, freeOff)
	return lncKernel("copy", []klr.TensorName{a}, []klr.TensorName{o}, dmaOp(whole(s), whole(a)), dmaOp(whole(o), whole(s)))
}

// addKernel is out = a + b on the Vector engine.
func addKernel() *klr.LncKernel {
	a, b, o := hbmT("a", 128, 512), hbmT("b", 128, 512), hbmT("out", 128, 512)
	ta := chipT("ta", klr.MemSBUF, 128, 512, 0, 0)
	tb := chipT("tb", klr.MemSBUF, 128, 512, 0, 2048)
	return lncKernel("add", []klr.TensorName{a, b}, []klr.TensorName{o},
		dmaOp(whole(ta), whole(a)), dmaOp(whole(tb), whole(b)),
		&klr.TensorTensor{Dst: whole(ta), Src0: whole(ta), Src1: whole(tb), Op: klr.AluOp(aluIndex("add")), Engine: klr.EngDVE},
		dmaOp(whole(o), whole(ta)))
}

func aluIndex(name string) int { return int(klrtest.AluOp(name)) }

func hbmT(name string, par, free uint64) klr.TensorName {
	return klrtest.HBM(name, "float32", par, free)
}

func chipT(name string, mem klr.Memory, par, free, parOff, freeOff uint64) klr.TensorName {
	return klrtest.OnChip(name, "float32", mem, par, free, parOff, freeOff)
}

func tile(t klr.TensorName, p0, np, f0, nf uint64) klr.TensorRef {
	return klrtest.Tile(t, p0, np, f0, nf)
}

func whole(t klr.TensorName) klr.TensorRef { return klrtest.Whole(t) }

func lncKernel(name string, ins, outs []klr.TensorName, ops ...klr.Operator) *klr.LncKernel {
	return klrtest.Kernel(name, ins, outs, ops...)
}

func dmaOp(dst, src klr.TensorRef) klr.Operator { return klrtest.DMA(dst, src) }

func fimm(v float32) klr.Operand { return klrtest.FloatImm(v) }

// addPanickingPass adds a pass "test_panic" to the pipeline table (run it
// with --passes test_panic) and returns the function that removes it.
func addPanickingPass() func() {
	saved := pipeline.Table.Passes
	pipeline.Table.Passes = append(append([]pass.Pass(nil), saved...), pass.Pass{Name: "test_panic", Run: func(ctx *pass.Context) error {
		panic("boom in a test pass")
	}})
	return func() { pipeline.Table.Passes = saved }
}

// TestErrorCodes_AnyPassNamesTheNKILine: an error a pass raises on a KLR
// kernel leads with the NKI source line and its code, whichever pass
// raises it: the translator (a rule the kernel breaks, an operator it
// cannot lower), the DMA legalization (a read-modify-write copy it cannot
// chain), and every later pass that a kernel or the command line can make
// fail: sunda_size_tiling (a placed macro tensor), assign_engines (no engine of the machine runs an instruction), alloc (a
// staging tile that does not fit beside the kernel's placed tiles),
// alloc_semaphores (more streams than semaphores) and the joint schedule
// of compile --lnc (cores whose barriers differ).
//
// The other passes of the default pipeline cannot fail on a kernel or the
// command line (their errors are option values, NW103 with no position, or
// narwhal's faults, NW900): sunda_size_tiling_perf and
// time_aware_scheduler (the machine parameters their cost model needs are
// range-checked before any pass runs, issue 27 item 5: a clock of 0 is
// NW103 naming the option and its range, checked below); infer_psum_tensor (a KLR kernel's tiles are
// placed in SBUF or PSUM already; on a BIR input with placement-open
// tensors it fails with NW306/NW402, TestInferPSumTensor_Decisions),
// pre_schedule, anti_dependency_analyzer, assign_hwdge_engine and
// alloc_queues (orders, edges and queues exist for any straight-line
// program), insert_core_barrier, insert_ptcom_flat and
// assign_trigger_engine (no failure path).
func TestErrorCodes_AnyPassNamesTheNKILine(t *testing.T) {
	t.Chdir(t.TempDir())
	write := func(name string, b []byte) string {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	// out = a + b as one read-modify-write DMA (compute_op add): a
	// collective-compute DMACopy of two sources, which legalize_cce_dma
	// cannot chain when MaxCceDmaSource is 1.
	a, o := hbmT("a", 128, 512), hbmT("out", 128, 512)
	rmw := encodeKLR(t, lncKernel("rmw", []klr.TensorName{a}, []klr.TensorName{o},
		dmaOp(whole(o), whole(a)),
		&klr.NcDmaCopy{Dst: whole(o), Src: whole(a), ComputeOp: 1, OobMode: klr.DmaBounds{Kind: klr.BoundsError}}), nil)
	cases := []struct {
		name, file string
		data       []byte
		args       []string
		code, pos  string
	}{
		{"translate: a rule the kernel breaks", "part.klr", klrFile(t, diag.PartStart, false, ""), nil, diag.PartStart, "k.py:11:4: "},
		{"translate: an operator it cannot lower", "scan.klr", klrFile(t, diag.KernelCodegen, false, ""), nil, diag.KernelCodegen, "k.py:12:4: "},
		{"legalize_cce_dma: a DMA it cannot chain", "rmw.klr", rmw, []string{"--option", "arch.max-cce-dma-source=1"}, diag.DMALegalize, "k.py:11:4: "},
		{"sunda_size_tiling: a placed macro tensor", "macro.klr", encodeKLR(t, macroKernel(), nil), nil, diag.TilingRefused, "k.py:10:4: "},
		{"assign_engines: no engine of the machine runs it", "anyengine.klr", encodeKLR(t, anyEngineKernel(), nil),
			[]string{"--option", "arch.dve-present=false", "--option", "arch.pool-present=false", "--option", "arch.act-present=false", "--option", "sunda_size_tiling_perf.enable=false"}, diag.EngineOpcode, "k.py:12:4: "},
		{"alloc: a staging tile that does not fit", "strided.klr", encodeKLR(t, stridedKernel(), nil), []string{"--gen-stride-dma"}, diag.DoesNotFit, "k.py:"},
		{"alloc_semaphores: more streams than semaphores", "add.klr", encodeKLR(t, addKernel(), nil), []string{"--option", "arch.semaphores=2"}, diag.Semaphores, "k.py:11:4: "},
		{"compile --lnc: cores whose barriers differ", "lnc.klr", encodeKLR(t, lncTwoCores(false), nil), []string{"--lnc", "2"}, diag.LNCCores, "k.py:13:4: "},
	}
	t.Run("a machine parameter out of range: refused before any pass", func(t *testing.T) {
		code, _, stderr := narwhal(t, "compile", write("add.klr", encodeKLR(t, addKernel(), nil)), "--option", "arch.dve-clock-ghz=0")
		if code != 1 || !strings.Contains(stderr, "error["+diag.PassOption+"]: ") || !strings.Contains(stderr, "arch option dve-clock-ghz: want a number 0.01..100") || strings.Contains(stderr, "pass ") {
			t.Errorf("exit %d, stderr %q: want NW103 naming the option's range, from no pass", code, stderr)
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"compile", write(c.file, c.data)}, c.args...)
			code, _, stderr := narwhal(t, args...)
			if code != 1 || !strings.Contains(stderr, "error["+c.code+"]: "+c.file+": "+c.pos) {
				t.Errorf("exit %d, stderr %q\nwant error[%s] led by the input and %q", code, stderr, c.code, c.pos)
			}
			// The pass the case is named after raised it.
			if p, _, _ := strings.Cut(c.name, ":"); p != "translate" {
				if _, ok := pipeline.Table.Lookup(p); ok && !strings.Contains(stderr, "pass "+p+":") && !strings.Contains(stderr, "pass "+p+",") {
					t.Errorf("stderr %q: want the error from pass %s", stderr, p)
				}
			}
		})
	}
}

// TestCodeOf: the code survives wrapping; internal outranks a code inside.
func TestCodeOf(t *testing.T) {
	v := diag.Errorf(diag.WrongMemory, "x")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("plain"), ""},
		{v, diag.WrongMemory},
		{errors.Join(errors.New("a"), v), diag.WrongMemory},
		{&pass.VerifierError{Pass: "p", Err: v}, diag.Internal},
		{&pass.Error{Pass: "p", Panic: true, Err: v}, diag.Internal},
		{&pass.Error{Pass: "p", Err: v}, diag.WrongMemory},
		{&bir.PosError{Pos: bir.Pos{Line: 1}, Err: v}, diag.WrongMemory},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, diag.ReadInput},
	} {
		if got := diag.CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// parallelInputsMessage runs NW406's example (compile -j's output
// conflict) and returns its message for the documentation.
func parallelInputsMessage(t *testing.T, ex diag.Example) string {
	t.Helper()
	t.Chdir(t.TempDir())
	code, _, stderr := narwhal(t, ex.Args...)
	if code != 1 || !strings.Contains(stderr, "error["+diag.ParallelInputs+"]") {
		t.Errorf("narwhal %s: exit %d, stderr %q; want error[%s]", diag.ShellQuote(ex.Args), code, stderr, diag.ParallelInputs)
	}
	return stderr
}
