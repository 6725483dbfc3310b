// The bench command: the whole-pipeline scale benchmark.
//
//	narwhal bench [--sizes 1M,5M,25M] [--dir DIR] [--keep] [--no-phases]
//	              [--runs tensor_add:full-unroll.bir,...,matmul:compile]
//	narwhal bench --anchors
//
// --anchors prints the cost model's calibration table instead (package
// anchors, docs/cost-model.md): every anchor compiled in this process.
//
// For each size it sizes built-in kernels to unroll to about that many
// instructions and runs, as child processes of this same binary, exactly
// what a user would run:
//
//	narwhal full-unroll -unrollLevel=2 builtin:tensor_add:rows=R,cols=64 -o DIR/out.bir
//	narwhal full-unroll -unrollLevel=2 builtin:tensor_add:rows=R,cols=64 -o DIR/out.json
//	narwhal compile builtin:tensor_add:rows=R,cols=64 -o DIR/out.bir
//	narwhal compile builtin:matmul:m=16384,k=K,n=16384 -o DIR/out.bir
//
// tensor_add unrolls to 4 instructions per 128-row tile (two loads, the
// add, the store; cols=64) and one block tensor location per tile and
// operand; matmul to Mt*Nt*(2+3*Kt) instructions for Mt, Nt, Kt tiles of
// 128, 512 and 128 (a PSUM accumulation chain per output tile).
//
// compile runs the default pipeline, whatever pipeline.Table makes it when
// the binary is built (the passes are listed in the output), so a rerun
// after new passes join it measures them. For each run it prints wall
// time, CPU time (user + system), peak RSS and peak RSS per instruction
// (from the child's rusage), and the output's size; then, from a second
// run with --stats, what each phase cost: load, the verification of the
// input, every pass and the verification after it, save (wall, CPU per
// instruction, bytes allocated per instruction, live Go heap per
// instruction after the phase). The totals come from the first run, which
// has no --stats (its forced collections would inflate them).
//
// It is opt-in (never part of go test): the 25M runs need 6 to 10 GiB
// and several minutes; on a shared machine run it under the team's
// heavy-run lock. A run whose peak memory, projected linearly from the
// same run at the previous size, exceeds the memory available is skipped
// and the table says so (--force runs it anyway). --compile-arg passes
// flags to the compile runs (--compile-arg=--passes=a,b,c measures part
// of the pipeline). Output files are deleted after each run unless --keep (a 25M
// BIR-JSON file is about 12 GB). The tables are Markdown, for the README's
// speed table.
package main

import (
	"encoding/json"
	"fmt"
	"github.com/narwhal-compiler/narwhal/diag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/anchors"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

func init() {
	extraCommands = append(extraCommands, command{
		"bench",
		"bench [--sizes 1M,5M,25M] [--runs KERNEL:CMD,...] [--dir DIR] [--keep] [--no-phases]: the whole-pipeline scale benchmark (opt-in, needs ~10 GiB at 25M); bench --anchors: the cost model's calibration table",
		runBench,
	})
}

// benchCommand is one command line the benchmark runs per size.
type benchCommand struct {
	key  string // the --runs name after the kernel
	args func(spec, out string) []string
	ext  string
}

var benchCommands = []benchCommand{
	{"full-unroll.bir", func(spec, out string) []string {
		return []string{"full-unroll", "-unrollLevel=2", spec, "-o", out}
	}, ".bir"},
	{"full-unroll.json", func(spec, out string) []string {
		return []string{"full-unroll", "-unrollLevel=2", spec, "-o", out}
	}, ".json"},
	{"compile", func(spec, out string) []string { return []string{"compile", spec, "-o", out} }, ".bir"},
}

// benchKernels size a built-in kernel to about n instructions after full
// unrolling, at most FullUnroll's ceiling (so "25M" is the largest module
// it accepts); they return the spec and the exact count.
var benchKernels = map[string]func(n int64) (string, int64){
	"tensor_add": func(n int64) (string, int64) {
		n = min(n, unroll.MaxTotalCount-1)
		tiles := max(n/4, 1)
		return fmt.Sprintf("builtin:tensor_add:rows=%d,cols=64", tiles*128), 4 * tiles
	},
	"matmul": func(n int64) (string, int64) {
		const mt, nt = 128, 32 // m = n = 16384
		n = min(n, unroll.MaxTotalCount-1)
		kt := max((n/(mt*nt)-2)/3, 1)
		return fmt.Sprintf("builtin:matmul:m=%d,k=%d,n=%d", mt*128, kt*128, nt*512), mt * nt * (2 + 3*kt)
	},
}

const defaultBenchRuns = "tensor_add:full-unroll.bir,tensor_add:full-unroll.json,tensor_add:compile,matmul:compile"

// benchRun is one kernel and command of --runs.
type benchRun struct {
	kernel string
	cmd    benchCommand
}

// parseCount reads 25M, 5m, 1000k or 1000000.
func parseCount(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "M") || strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, s[:len(s)-1]
	case strings.HasSuffix(s, "K") || strings.HasSuffix(s, "k"):
		mult, s = 1_000, s[:len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v > 1<<40/mult {
		return 0, fmt.Errorf("size %q: want a positive count such as 25M, 500k or 1000000", s)
	}
	return v * mult, nil
}

// childRun is what one child process cost.
type childRun struct {
	wall, cpu time.Duration
	peakRSS   int64
	outBytes  int64
	stats     *cmdStats
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	sizes := fs.String("sizes", "1M,5M,25M", "instruction `counts` to measure (comma-separated; k and M suffixes)")
	dir := fs.String("dir", "", "`DIR` for the output files (default: a new temporary directory)")
	keep := fs.Bool("keep", false, "keep the output files")
	noPhases := fs.Bool("no-phases", false, "skip the second, --stats run of each command (no per-phase table)")
	runsFlag := fs.String("runs", defaultBenchRuns, "`list` of KERNEL:COMMAND runs per size (kernels tensor_add, matmul; commands full-unroll.bir, full-unroll.json, compile)")
	force := fs.Bool("force", false, "run every size even when its projected peak memory exceeds what the machine has available")
	var compileArgs multiFlag
	fs.Var(&compileArgs, "compile-arg", "pass `ARG` to every compile run (repeatable), e.g. --compile-arg=--passes=... to measure part of the pipeline")
	anchorsFlag := fs.Bool("anchors", false, "instead: the cost model's calibration table (package anchors; docs/cost-model.md): every anchor compiled at its published shape, predicted vs measured")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *anchorsFlag {
		rows, err := anchors.Table()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "narwhal bench --anchors: %s\n\n%s", versionString(), anchors.Markdown(rows))
		return nil
	}
	if len(pos) > 0 {
		return diag.Errorf(diag.Usage, "unexpected argument %q (usage: narwhal bench [--sizes 1M,5M,25M] [--runs KERNEL:CMD,...] [--dir DIR] [--keep] [--no-phases])", pos[0])
	}
	var counts []int64
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseCount(strings.TrimSpace(s))
		if err != nil {
			return diag.Wrap(diag.Usage, fmt.Errorf("--sizes: %w", err))
		}
		counts = append(counts, n)
	}
	var selected []benchRun
	for _, r := range strings.Split(*runsFlag, ",") {
		kernel, key, _ := strings.Cut(strings.TrimSpace(r), ":")
		if _, ok := benchKernels[kernel]; !ok {
			return diag.Errorf(diag.Usage, "--runs %q: unknown kernel %q (want tensor_add or matmul)", r, kernel)
		}
		found := false
		for _, c := range benchCommands {
			if c.key == key {
				selected, found = append(selected, benchRun{kernel, c}), true
			}
		}
		if !found {
			return diag.Errorf(diag.Usage, "--runs %q: unknown command %q (want full-unroll.bir, full-unroll.json or compile)", r, key)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this binary to run its commands: %w", err)
	}
	outDir := *dir
	if outDir == "" {
		if outDir, err = os.MkdirTemp("", "narwhal-bench-"); err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(outDir)
		}
	} else if err := os.MkdirAll(outDir, 0o755); err != nil {
		return diag.Wrap(diag.Output, fmt.Errorf("--dir: %w", err))
	}

	fmt.Fprintf(stdout, "narwhal bench: %s; default pipeline: %s\n", versionString(), strings.Join(defaultPassNames(), ", "))
	fmt.Fprintf(stdout, "machine: %d CPUs; load average at start %s\n\n", numCPU(), loadAverage())
	fmt.Fprintln(stdout, "| instructions | kernel | command | output | wall | CPU (user+sys) | peak RSS | RSS / inst | CPU / inst | output size |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|")
	var phaseTables []string
	perInst := map[string]float64{} // peak RSS per instruction of the last size run, per run
	for _, n := range counts {
		for _, run := range selected {
			c := run.cmd
			spec, insts := benchKernels[run.kernel](n)
			out := filepath.Join(outDir, fmt.Sprintf("out-%d%s", n, c.ext))
			key := run.kernel + ":" + c.key
			if b, ok := perInst[key]; ok && !*force {
				// Do not take the machine down: skip a run whose peak,
				// projected linearly from the previous size, exceeds the
				// memory available now.
				need, avail := int64(b*float64(insts)*1.1), availableMemory()
				if avail > 0 && need > avail {
					fmt.Fprintf(stdout, "| %s | %s | %s | %s | skipped: projected peak %s (%.0f B / inst at the previous size) exceeds the %s available (--force runs it) | | | | | |\n",
						commas(insts), run.kernel, strings.SplitN(c.key, ".", 2)[0], c.ext, fmtBytes(need), b, fmtBytes(avail))
					continue
				}
			}
			args := c.args(spec, out)
			if c.key == "compile" {
				args = append(args, compileArgs...)
			}
			r, err := benchChild(self, args, out, "", stderr)
			if err != nil {
				return fmt.Errorf("%s: %w", strings.Join(c.args(spec, out), " "), err)
			}
			if !*keep {
				os.Remove(out)
			}
			perInst[key] = float64(r.peakRSS) / float64(insts)
			fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s | %s | %s | %d B | %s | %s |\n",
				commas(insts), run.kernel, strings.SplitN(c.key, ".", 2)[0], c.ext, fmtSec(r.wall), fmtSec(r.cpu), fmtBytes(r.peakRSS),
				r.peakRSS/insts, fmtNs(r.cpu, insts), fmtBytes(r.outBytes))
			if *noPhases {
				continue
			}
			statsFile := filepath.Join(outDir, "stats.json")
			rs, err := benchChild(self, append(args, "--stats", statsFile), out, statsFile, stderr)
			if err != nil {
				return fmt.Errorf("%s --stats: %w", strings.Join(c.args(spec, out), " "), err)
			}
			os.Remove(out)
			os.Remove(statsFile)
			phaseTables = append(phaseTables, phaseTable(fmt.Sprintf("%s, %s instructions, %s -o %s", run.kernel, commas(rs.stats.Insts), c.args(spec, out)[0], c.ext), rs.stats))
		}
	}
	fmt.Fprintf(stdout, "\nload average at end %s\n", loadAverage())
	for _, t := range phaseTables {
		fmt.Fprintf(stdout, "\n%s", t)
	}
	return nil
}

// benchChild runs this binary with args and measures it.
func benchChild(self string, args []string, out, statsFile string, stderr io.Writer) (childRun, error) {
	var errBuf strings.Builder
	cmd := exec.Command(self, args...)
	cmd.Stdout = io.Discard
	cmd.Stderr = &errBuf
	t0 := time.Now()
	err := cmd.Run()
	r := childRun{wall: time.Since(t0)}
	if err != nil {
		return r, fmt.Errorf("%v: %s", err, strings.TrimSpace(errBuf.String()))
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.peakRSS = childPeakRSS(cmd.ProcessState)
	if st, err := os.Stat(out); err == nil {
		r.outBytes = st.Size()
	}
	if statsFile != "" {
		data, err := os.ReadFile(statsFile)
		if err != nil {
			return r, err
		}
		r.stats = &cmdStats{}
		if err := json.Unmarshal(data, r.stats); err != nil {
			return r, fmt.Errorf("%s: %w", statsFile, err)
		}
	}
	return r, nil
}

// phaseTable renders one --stats run as a Markdown table.
func phaseTable(title string, s *cmdStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (per instruction: of the final count, %s)\n\n", title, commas(s.Insts))
	fmt.Fprintln(&b, "| phase | wall | CPU | CPU / inst | allocated / inst | peak live heap / inst | peak heap in use / inst | live heap after / inst |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	n := max(s.Insts, 1)
	var wall, cpu int64
	var alloc uint64
	for _, p := range s.Phases {
		live := "-"
		if p.LiveHeap > 0 {
			live = fmt.Sprintf("%d B", p.LiveHeap/uint64(n))
		}
		peakLive, peakHeap := "-", "-"
		if p.PeakHeap > 0 {
			peakLive, peakHeap = fmt.Sprintf("%d B", p.PeakLive/uint64(n)), fmt.Sprintf("%d B", p.PeakHeap/uint64(n))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d B | %s | %s | %s |\n", p.Name, fmtSec(time.Duration(p.WallNS)), fmtSec(time.Duration(p.CPUNS)),
			fmtNs(time.Duration(p.CPUNS), n), p.Alloc/uint64(n), peakLive, peakHeap, live)
		wall += p.WallNS
		cpu += p.CPUNS
		alloc += p.Alloc
	}
	fmt.Fprintf(&b, "| all phases | %s | %s | %s | %d B | | | peak RSS %s (%d B / inst) |\n", fmtSec(time.Duration(wall)), fmtSec(time.Duration(cpu)),
		fmtNs(time.Duration(cpu), n), alloc/uint64(n), fmtBytes(s.PeakRSS), s.PeakRSS/n)
	return b.String()
}

// defaultPassNames lists the passes the default pipeline runs.
func defaultPassNames() []string {
	var out []string
	for _, p := range pipeline.Table.Passes {
		if p.Default {
			name := p.Name
			if p.Gate != "" {
				name += " (gated: --" + p.Gate + ")"
			}
			out = append(out, name)
		}
	}
	return out
}

// availableMemory returns MemAvailable from /proc/meminfo in bytes (0 when
// unknown).
func availableMemory() int64 { return memInfo("MemAvailable:") }

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func fmtSec(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func fmtNs(d time.Duration, n int64) string {
	return fmt.Sprintf("%.0f ns", float64(d.Nanoseconds())/float64(max(n, 1)))
}

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d B", b)
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
