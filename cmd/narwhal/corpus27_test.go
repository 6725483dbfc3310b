package main

// Issue 27's reproducers in the hostile corpus: the files they need
// (issue27Files, stored in testdata/hostile like the rest) and their
// cases (casesText27, appended to cases.txt). Three things the older
// cases did not need:
//
//   - NAME.symlink files: the scratch copy of the corpus makes NAME a
//     symbolic link to the file the .symlink file names (links to an
//     input, for the output-collision cases);
//   - cases whose exit status is marked "!" are output-collision cases:
//     after each, every corpus file of the scratch copy must still hash
//     as the generator made it (no input overwritten);
//   - a fourth field "absent: PATH..." lists files that must not exist
//     after the case (outputs of a failed command, /dev/null.core0),
//     and an argument "env:NAME=VALUE" sets a variable of the child.
//
// Reproducers that need narwhal's own compiled output (recompiling it,
// forgeries of its schedule and semaphores, CoreBarrier lists, a missing
// Halt, a counter past its width, a race, a deadlock, a --check
// mismatch) are made at test time by compiledCases, from a compile in
// this process, and join TestHostileCorpus's cases; they are not stored:
// their bytes depend on the scheduler's figures, which change with the
// cost model. Each forgery is an edit of one instruction's line found by
// its name (not by a figure), and a forgery that no longer applies fails
// the test instead of testing the unforged module.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
)

// pyAdd is a kernel file of the legacy API (two inputs added), for the
// front end's cases.
const pyAdd = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.load(a), nl.load(b)))
    return out
`

// issue27Files adds the files of issue 27's cases to the corpus.
func issue27Files(files map[string][]byte) {
	ok := files["ok_copy.json"]
	text := textModule("", "  ld = "+copyXZ+"\n")
	// Modules named like the outputs that would overwrite them.
	files["mod.svg"] = text
	files["mod.csv"] = text
	files["mod.npz"] = ok
	files["rn/z.npy"] = ok
	// A matmul (PSUM) module named like --dump-alloc-problem's PSUM file.
	if m, err := kernels.Build("matmul:m=128,k=128,n=512"); err == nil {
		var b bytes.Buffer
		if bir.Print(&b, m) == nil {
			files["mm-psum.csv"] = b.Bytes()
		}
	}
	files["alloc_ok.csv"] = []byte("id,lower,upper,size\n0,0,10,8\n1,5,20,8\n")
	// Links to the input: a file, a --streams listing, a --dump-dir dump.
	files["link.bir.symlink"] = []byte("ok_copy.json")
	files["st/main.vector.txt.symlink"] = []byte("../ok_copy.json")
	files["dd/00-translate_nki_ast_to_bir.bir.symlink"] = []byte("../ok_copy.json")
	// A module carrying a huge machine option (item 6).
	files["partitions_2e32.bir"] = bytes.Replace(text, []byte("module arch=trn2\n"), []byte("module arch=trn2\noption arch.partitions = \"4294967296\"\n"), 1)
	// Item 11: an Input declared OnChip; a Memset with no constant.
	files["io_onchip.bir"] = bytes.Replace(text, []byte("loc %x: Input 128x16"), []byte("loc %x: OnChip 128x16"), 1)
	files["memset_noconst.bir"] = textModule("  tensor %t_set: f32[128, 4] class=NeuronSBTensor\n    loc %t: SB 128x16\n",
		"  ms = Memset on DVE -> %t[ap=[[4,128],[1,4]]] f32 {mode=\"Const\"}\n  st = Save %t[ap=[[4,128],[1,4]]] f32 -> %z[ap=[[4,128],[1,4]]] f32\n")
	// Kernel files: valid, not Python, a loop that never ends, a helper import.
	files["py/add.py"] = []byte(pyAdd)
	files["py/syntax.py"] = []byte("import neuronxcc.nki as nki\n\n@nki.jit\ndef broken(a:\n    return a\n")
	files["py/spin.py"] = []byte("import neuronxcc.nki as nki\n\n\n@nki.jit\ndef spin(a):\n    n = 0\n    while True:\n        n += 1\n    return a\n")
	files["py/loop.py"] = []byte(strings.Replace(pyAdd, "    nl.store(out, value=nl.add(nl.load(a), nl.load(b)))\n",
		"    for i in nl.affine_range(a.shape[0] // 128):\n        r = nl.arange(128)[:, None] + 128 * i\n        c = nl.arange(a.shape[1])[None, :]\n        nl.store(out[r, c], value=nl.add(nl.load(a[r, c]), nl.load(b[r, c])))\n", 1))
	files["py/helper.py"] = []byte("import neuronxcc.nki.language as nl\n\n\ndef twice(t):\n    return nl.add(t, t)\n")
	files["py/uses_helper.py"] = []byte(strings.Replace(pyAdd, "import neuronxcc.nki.language as nl\n", "import neuronxcc.nki.language as nl\nfrom helper import twice\n", 1))
}

// casesText27 are issue 27's argument-driven cases (the format of
// casesText, with the additions of the file comment).
const casesText27 = `
# issue 27 item 1: every output checked against every input (links followed) and the other outputs
!1 | compile @ok_copy.json --trace @ok_copy.json | is an input of this command
!1 | compile @ok_copy.json --html @ok_copy.json | is an input of this command
!1 | compile @ok_copy.json --logfile @ok_copy.json | is an input of this command
!1 | compile @ok_copy.json --stats @ok_copy.json | is an input of this command
!1 | compile @mod.csv --dump-alloc-problem @mod.csv | is an input of this command
!1 | compile @mm-psum.csv --dump-alloc-problem @mm.csv | is an input of this command
!1 | compile @mod.svg --memmap @mod.svg | is an input of this command
!1 | compile @ok_copy.json --trace @link.bir | (a link to
!1 | compile @ok_copy.json --streams @st | --streams: output
!1 | compile @ok_copy.json --dump-dir @dd | is an input of this command
!1 | run @rn/z.npy --outputs @rn | is an input of this command
!1 | run @mod.npz --outputs @mod.npz | is an input of this command
!1 | alloc @alloc_ok.csv --capacity=100 -o @alloc_ok.csv | is an input of this command
!1 | full-unroll @ok_copy.json -o $OUT/fu.bir --stats @ok_copy.json | is an input of this command
!1 | compile @ok_copy.json -o $OUT/out.json --html $OUT/out.json | name the same file | absent: $OUT/out.json
!1 | compile builtin:tensor_add --memmap $OUT/m.csv --dump-alloc-problem $OUT/m.csv | name the same file | absent: $OUT/m.csv
# item 2: NEURON_CC_FLAGS carries flags only
!1 | env:NEURON_CC_FLAGS=--logfile compile @ok_copy.json -o $OUT/out.json | --logfile needs a value in the variable | absent: $OUT/out.json
# item 3: no regular files at /dev/null; outputs only when the command succeeds (the -o/--trace/--streams case guards the older outputs)
0 | compile builtin:exchange --lnc 2 -o /dev/null | | absent: /dev/null.core0 /dev/null.core1
1 | compile builtin:tensor_add --option arch.semaphores=1 --memmap $OUT/m.csv --dump-alloc-problem $OUT/p.csv | error[NW408] | absent: $OUT/m.csv $OUT/p.csv
1 | compile builtin:tensor_add --option arch.semaphores=1 -o $OUT/o.json --trace $OUT/t.json --streams $OUT/st | error[NW408] | absent: $OUT/o.json $OUT/t.json $OUT/st
# item 5: every option checked against its documented range before use
1 | compile builtin:tensor_add --option arch.psum-bank-bytes=1 | want a power of two 512..1048576
1 | compile builtin:tensor_add --option arch.psum-bank-bytes=3 | want a power of two 512..1048576
1 | compile builtin:macro_matmul --option arch.max-ap-num=0 | arch option max-ap-num: want 65535..
1 | compile builtin:macro_matmul --option arch.tile-gemm-moving-fmax=0 | arch option tile-gemm-moving-fmax: want 128..65536
1 | compile builtin:macro_matmul --option arch.tile-sbuf-max-free-elems=0 | arch option tile-sbuf-max-free-elems: want 65536..
1 | compile builtin:macro_elementwise --option arch.max-ap-num=1 | arch option max-ap-num: want 65535..
1 | compile builtin:macro_elementwise --option arch.max-ap-num=3 | arch option max-ap-num: want 65535..
1 | compile builtin:macro_elementwise --option arch.min-ap-step=3 | arch option min-ap-step: want -2147483648..-32768
1 | compile builtin:macro_elementwise --option arch.max-ap-step=0 | arch option max-ap-step: want 32767..
1 | compile builtin:macro_elementwise --option arch.tile-sbuf-max-free-elems=1 | arch option tile-sbuf-max-free-elems: want 65536..
1 | compile builtin:macro_elementwise --option arch.tile-psum-max-free-elems=3 | arch option tile-psum-max-free-elems: want 4096..
1 | compile builtin:macro_elementwise --option arch.tile-sbuf-max-free-elems=3 | arch option tile-sbuf-max-free-elems: want 65536..
1 | compile builtin:macro_elementwise --option arch.tile-psum-max-free-elems=1 | arch option tile-psum-max-free-elems: want 4096..
1 | compile builtin:tensor_add --option arch.hwdge-fixed-ns=9223372036854775807 | arch option hwdge-fixed-ns: want a number 0..1e+07
1 | compile builtin:tensor_add --option arch.min-ii=9223372036854775807 | arch option min-ii: want 0..1048576
1 | compile builtin:tensor_add --option arch.static-overhead=9223372036854775807 | arch option static-overhead: want 0..1048576
1 | compile builtin:tensor_add --option arch.access-overhead=9223372036854775807 | arch option access-overhead: want 0..1048576
1 | compile builtin:tensor_add --option arch.matmul-fp32-factor=9223372036854775807 | arch option matmul-fp32-factor: want 1..64
1 | compile builtin:tensor_add --option arch.sbuf-bytes-per-partition=9223372036854775807 | arch option sbuf-bytes-per-partition: want 4096..67108864
1 | compile builtin:tensor_add --option time_aware_scheduler.reorder-window=9223372036854775807 | reorder-window=9223372036854775807: want an integer 0..65536
0 | compile builtin:macro_elementwise --option arch.partitions=32 -o $SHARED/p32.json |
0 | run $SHARED/p32.json --check --outputs $OUT | matches the Go reference
0 | compile builtin:tensor_add:rows=256,cols=64 --option arch.partitions=32 -o $SHARED/p32t.json |
0 | run $SHARED/p32t.json --check --outputs $OUT | matches the Go reference
1 | compile builtin:tensor_add --option arch.semaphore-bits=0 | arch option semaphore-bits: want 1..31
1 | compile builtin:tensor_add --option arch.semaphore-bits=1000 | arch option semaphore-bits: want 1..31
1 | compile builtin:tensor_add --option pre_schedule.target=nan | pre_schedule.target=nan: want a number
1 | compile builtin:tensor_add --option alloc.slack=nan | alloc.slack=nan: want a number
1 | compile builtin:tensor_add --option alloc.exact_nodes=-1 | alloc.exact_nodes=-1: want an integer 0..
1 | compile builtin:tensor_add --option time_aware_scheduler.orders= | time_aware_scheduler.orders=: want
1 | compile builtin:tensor_add builtin:matmul --out-dir $OUT -j 0 | -j 0: want at least 1
0 | compile builtin:tensor_add:rows=128,cols=8 -o $SHARED/ta.bir |
1 | run $SHARED/ta.bir --concurrent --interleave starve:queue99 | has 16 DMA queues, queue0..queue15
# item 6: allocations the geometry sizes bounded; streams bounded and garbage refused at once
1 | run builtin:tensor_add --option arch.partitions=4294967296 --outputs $OUT | arch option partitions: want 32..128
1 | run @partitions_2e32.bir --outputs $OUT | arch option partitions: want 32..128
1 | compile builtin:tensor_add --option arch.dma-queues=32767 | arch option dma-queues: want 1..64
1 | verify builtin:tensor_add --option arch.dma-queues=16384 | arch option dma-queues: want 1..64
1 | verify builtin:tensor_add --option arch.dma-queues=32767 | arch option dma-queues: want 1..64
1 | compile builtin:tensor_add --option arch.dma-queues=16384 | arch option dma-queues: want 1..64
1 | compile /dev/zero | not a module: byte 0x00 at offset 0
1 | verify /dev/urandom | not a module
# item 7: 127 partitions (alloc, and the race checker, near-linear: benchmarks BenchmarkAllocPass_Partitions127, BenchmarkRunConcurrent_Partitions127)
0 | compile builtin:tensor_add --option arch.partitions=127 -o $SHARED/p127.json |
0 | run $SHARED/p127.json --concurrent --check --outputs $OUT | no race, no deadlock
0 | compile builtin:tensor_add:rows=2048 --option arch.partitions=127 |
# item 10: a pass whose prerequisites did not run is refused
1 | compile builtin:macro_elementwise --passes time_aware_scheduler,alloc_semaphores | needs anti_dependency_analyzer earlier in the same run
1 | compile builtin:tensor_add --passes time_aware_scheduler,alloc_semaphores | needs anti_dependency_analyzer earlier in the same run
1 | compile builtin:macro_elementwise --passes alloc_semaphores | requires stage scheduled
1 | compile @py/loop.py --input a=float32[256,64] --input b=float32[256,64] --passes time_aware_scheduler,alloc_semaphores | needs anti_dependency_analyzer earlier in the same run
# item 11: one rule set: inputs and outputs in DRAM, Memset's value
1 | compile @io_onchip.bir | want DRAM (Input, Output or DRAM)
1 | verify @io_onchip.bir | want DRAM (Input, Output or DRAM)
1 | verify @memset_noconst.bir | a Const Memset has no value
1 | compile @memset_noconst.bir | a Const Memset has no value
1 | run builtin:tensor_add --concurrent --outputs $OUT | run --concurrent executes a synchronized module
# item 12: messages
1 | compile builtin:tensor_add --option arch.matmul-max-n-fp32=0 | arch option matmul-max-n-fp32: want 128..65536
1 | compile builtin:tensor_add --option arch.tile-pmax=0 | arch option tile-pmax: want 32..128
1 | compile builtin:tensor_add --option arch.arch-level=99999999999999999999 | arch option arch-level: want 10..40
1 | compile builtin:tensor_add --option arch.psum-banks=0 | arch option psum-banks: want 1..64
1 | compile builtin:tensor_add --option arch.sbuf-carveout-bytes=9000000000 | arch option sbuf-carveout-bytes: want 0..67108864
1 | compile builtin:tensor_add --option arch.sbuf-bytes-per-partition=64 | arch option sbuf-bytes-per-partition: want 4096..
1 | compile builtin:tensor_add -o /dev/full | error[NW106]
1 | compile builtin:tensor_add --trace /dev/full | error[NW106]: --trace: write /dev/full
1 | compile builtin:tensor_add --streams /dev/full | error[NW106]: --streams
1 | compile builtin:tensor_add --html /dev/full | error[NW106]: --html
1 | compile builtin:tensor_add --stats /dev/full | error[NW106]: writing /dev/full
1 | compile builtin:tensor_add --logfile /dev/full | error[NW106]: --logfile: writing /dev/full
# item 13: every error path exits 1 with its code and one line
1 | run builtin:tensor_add --concurrent --interleave bogus | error[NW101]: --interleave "bogus"
1 | bench --sizes 0 | error[NW101]: --sizes
1 | bench --runs nosuch:compile | error[NW101]: --runs
1 | bench extra | error[NW101]: unexpected argument
1 | compile builtin:tensor_add --option foo | error[NW103]: --option "foo": want PASS.KEY=VALUE
1 | compile builtin:tensor_add --memmap $OUT/x.txt | error[NW101]: --memmap
1 | compile builtin:tensor_add --stats $OUT | error[NW106]
1 | run builtin:tensor_add --inputs @alloc_ok.csv --outputs $OUT | error[NW502]: --inputs
1 | kernels extra | error[NW101]: want no arguments
1 | nosuchcommand | error[NW101]: unknown command
1 | print builtin:tensor_add --format xml | error[NW101]: --format
1 | verify builtin:tensor_add --stage nosuch | error[NW101]: --stage
1 | compile builtin:tensor_add:rows=3 builtin:tensor_add --out-dir $OUT | error[NW406]: 1 of 2 modules failed
1 | verify builtin:tensor_add --all --stage synchronized | error[NW402]
# the front end held to the same contract
1 | compile @py/syntax.py | error[NW206]
1 | compile @py/spin.py --input a=float32[128,64] | evaluation steps
1 | compile @py/add.py --input a=float32[4611686018427387904,4611686018427387904] --input b=float32[128,64] | is too large
1 | compile @py/add.py --input a=float32[1048576,1048576] --input b=float32[1048576,1048576] | error[NW422]
1 | run @py/add.py --input a=float32[1048576,1048576] --input b=float32[1048576,1048576] --outputs $OUT | error[NW
!1 | compile @py/add.py --input a=float32[128,64] --input b=float32[128,64] --html @py/add.py | is an input of this command
!1 | compile @py/add.py --input a=float32[128,64] --input b=float32[128,64] -o @py/add.py | is the input file
!1 | compile @py/uses_helper.py --input a=float32[128,64] --input b=float32[128,64] --trace @py/helper.py | is an input of this command
0 | compile @py/uses_helper.py --input a=float32[128,64] --input b=float32[128,64] -o $OUT/u.json |
`

// forgery is one edit of a compiled module: on the line of instruction
// inst (or of location loc), the first match of pattern is replaced
// (an empty pattern drops the line).
type forgery struct {
	name, inst, pattern, repl string
}

// forge applies f to the text-form module src.
func forge(t *testing.T, src []byte, f forgery) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(src), "\n")
	done := false
	for k, line := range lines {
		if !strings.HasPrefix(strings.TrimSpace(line), f.inst) {
			continue
		}
		if f.pattern == "" {
			lines[k], done = "", true
			break
		}
		re := regexp.MustCompile(f.pattern)
		if loc := re.FindStringSubmatchIndex(line); loc != nil {
			repl := re.ExpandString(nil, f.repl, line, loc)
			lines[k], done = line[:loc[0]]+string(repl)+line[loc[1]:], true
			break
		}
	}
	if !done {
		t.Fatalf("forgery %s: no line %q matching %q in the compiled module (the compiler's output changed: update the forgery)", f.name, f.inst, f.pattern)
	}
	return []byte(strings.Join(lines, ""))
}

// compiledCases compiles two built-ins in this process into dir (a
// tensor_add of one tile in both formats, exchange on two cores), writes
// the forgeries of issue 27 items 4, 8, 9, 11 and 13 next to them, and
// returns their cases.
func compiledCases(t *testing.T, dir, scratch string) []corpusCase {
	t.Helper()
	compile := func(args ...string) {
		if code, _, stderr := narwhal(t, append([]string{"compile"}, args...)...); code != 0 {
			t.Fatalf("compile %v: exit %d: %s", args, code, stderr)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	compile("builtin:tensor_add:rows=128,cols=8", "-o", p("ta.bir"))
	compile("builtin:tensor_add:rows=128,cols=8", "-o", p("ta.json"))
	compile("builtin:exchange", "--lnc", "2", "-o", p("ex.bir"))
	compile("builtin:tensor_add", "-o", p("t.json")) // the issue's reproducer, at the default size
	ta, err := os.ReadFile(p("ta.bir"))
	if err != nil {
		t.Fatal(err)
	}
	core1, err := os.ReadFile(p("ex.core1.bir"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		if err := os.WriteFile(p(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	var cases []corpusCase
	n := 0
	add := func(exit int, want string, args ...string) {
		n++
		out := filepath.Join(scratch, fmt.Sprintf("compiled%d", n))
		os.MkdirAll(out, 0o755)
		for k, a := range args {
			args[k] = strings.ReplaceAll(a, "$OUT", out)
		}
		cases = append(cases, corpusCase{exit: exit, args: args, want: want, log: true})
	}
	// Item 4: a compiled input is kept (verified at its stages), in both
	// formats; one core's program under --lnc is refused naming its stage.
	add(0, "the input is compiled: verified at stage", "compile", p("ta.bir"), "-o", "$OUT/again.bir", "--report")
	add(0, "the input is compiled: verified at stage", "compile", p("ta.json"), "-o", "$OUT/again.json", "--report")
	add(0, "", "compile", p("t.json"))
	add(1, "one core's program", "compile", p("ex.core0.bir"), "--lnc", "2")
	// Item 8: CoreBarrier participant lists that disagree across the cores
	// or are malformed: a refusal, never "no race, no deadlock".
	for k, list := range []string{"0, 1, 2", "", "0, -1"} {
		c1 := write(fmt.Sprintf("barrier%d.core1.bir", k), forge(t, core1, forgery{"barrier", "core_barrier0 =", `cores=\[0, 1\]`, "cores=[" + list + "]"}))
		add(1, "error[NW", "run", p("ex.core0.bir"), c1, "--concurrent", "--check", "--outputs", "$OUT")
		if list != "0, 1, 2" { // a core id beyond the run is a cross-core fact
			add(1, "cores ["+strings.ReplaceAll(list, ",", "")+"]", "verify", c1, "--stage", "synchronized")
		}
	}
	// Item 9: stage synchronized implies scheduled and allocated.
	for _, f := range []forgery{
		{"dup-order", "halt_vector =", `order=\d+`, "order=0"},
		{"huge-order", "halt_vector =", `order=\d+`, "order=999999999"},
		{"no-sched", "add.0 =", ` sched\([^)]*\)`, ""},
		{"halt-at-0", "halt_vector =", `start=\d+, end=\d+`, "start=0, end=0"},
		{"sb-onchip", "loc %x_tile:", `SB `, "OnChip "},
	} {
		want := "error[NW313]"
		if f.name == "sb-onchip" {
			want = "error[NW402]"
		}
		add(1, want, "verify", write(f.name+".bir", forge(t, ta, f)), "--stage", "synchronized")
	}
	add(0, "strided-legal", "verify", "-h")
	// Item 11: a missing Vector Halt and a counter past its width are
	// refused by the verifier and by the concurrent run without it.
	for _, f := range []forgery{
		{"no-halt", "halt_vector =", "", ""},
		{"wrap", "load_x.0 =", `updates=\[\[(\d+), 1\]\]`, "updates=[[${1}, 70000]]"},
	} {
		forged := write(f.name+".bir", forge(t, ta, f))
		add(1, "error[NW313]", "verify", forged, "--stage", "synchronized")
		add(1, "error[NW503]", "run", forged, "--concurrent", "--no-verify", "--outputs", "$OUT")
	}
	// Item 13: the race checker's and the deadlock detector's findings and
	// a --check mismatch exit 1 with a coded line.
	race := write("race.bir", forge(t, ta, forgery{"race", "add.0 =", `waits=\[(\[\d+, \d+\]), \[\d+, \d+\]\]`, "waits=[${1}]"}))
	add(1, "error[NW503]: "+race+": the concurrent run found 1 races", "run", race, "--concurrent", "--no-verify", "--outputs", "$OUT")
	add(1, "error[NW313]", "run", race, "--concurrent", "--outputs", "$OUT")
	dead := write("deadlock.bir", forge(t, ta, forgery{"deadlock", "add.0 =", `waits=\[\[(\d+), 1\]`, "waits=[[${1}, 2]"}))
	add(1, "a deadlock", "run", dead, "--concurrent", "--no-verify", "--outputs", "$OUT")
	sub := write("subtract.bir", forge(t, ta, forgery{"subtract", "add.0 =", `op="add"`, `op="subtract"`}))
	add(1, "error[NW503]: --check:", "run", sub, "--check", "--outputs", "$OUT")
	return cases
}
