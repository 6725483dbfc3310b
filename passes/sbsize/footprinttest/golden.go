// Package footprinttest holds the test support shared by the footprint
// passes (sb_size_legalization, vn_splitter, shrink_ml): the golden-file
// runner each package's TestGolden calls, and the 1,000,000-instruction
// benchmark workloads and per-instruction reporting of their benchmarks.
// Only tests import it.
package footprinttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/shrink"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// goldenPasses are the passes a "// run:" line may name.
var goldenPasses = map[string]pass.Pass{
	"sb_size_legalization": sbsize.SBSizeLegalizationPass,
	"full_unroll":          unroll.FullUnrollPass,
	"vn_splitter":          vnsplit.VNSplitterPass,
	"shrink_ml":            shrink.ShrinkMLPass,
}

// footprint are the passes whose log lines the golden files keep (the
// unroller's carry wall-clock times).
var footprint = map[string]bool{"sb_size_legalization": true, "vn_splitter": true, "shrink_ml": true}

type goldenCase struct {
	table   pass.Table
	opts    map[string]map[string]string
	arch    map[string]string
	wantErr string
}

func parseHeader(src []byte) (*goldenCase, error) {
	gc := &goldenCase{opts: map[string]map[string]string{}, arch: map[string]string{}}
	run := false
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "// run:"):
			run = true
			for _, part := range strings.Split(strings.TrimPrefix(line, "// run:"), ";") {
				fs := strings.Fields(part)
				if len(fs) == 0 {
					continue
				}
				p, ok := goldenPasses[fs[0]]
				if !ok {
					return nil, fmt.Errorf("run line: unknown pass %q", fs[0])
				}
				gc.table.Passes = append(gc.table.Passes, p)
				for _, kv := range fs[1:] {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return nil, fmt.Errorf("run line: option %q: want key=value", kv)
					}
					if gc.opts[fs[0]] == nil {
						gc.opts[fs[0]] = map[string]string{}
					}
					gc.opts[fs[0]][k] = v
				}
			}
		case strings.HasPrefix(line, "// arch:"):
			for _, kv := range strings.Fields(strings.TrimPrefix(line, "// arch:")) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, fmt.Errorf("arch line: %q: want key=value", kv)
				}
				gc.arch[k] = v
			}
		case strings.HasPrefix(line, "// error:"):
			gc.wantErr = strings.TrimSpace(strings.TrimPrefix(line, "// error:"))
		}
	}
	if !run {
		return nil, fmt.Errorf("no \"// run:\" line")
	}
	return gc, nil
}

// Golden runs the golden cases of the calling package: each
// testdata/golden/*.bir is a module in the text form with a "// run:" line
// naming the passes to run in order (with options, "pass key=value ..."),
// optional "// arch: key=value" overrides of the machine model and an
// optional "// error: text" the run must fail with. The passes run through
// a pass.Table (verifier after each), the interpreter checks that the
// outputs are bit-identical (translation validation, when no error is
// expected), and the log lines, counters and report blocks of the
// footprint passes plus the printed module are compared with
// <name>.golden. With update set, the golden files are rewritten; pkg
// (e.g. "./passes/vnsplit") names the package in their header line.
func Golden(t *testing.T, pkg string, update bool) {
	files, err := filepath.Glob("testdata/golden/*.bir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".bir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			gc, err := parseHeader(src)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			m, err := bir.Parse(in, src)
			if err != nil {
				t.Fatalf("parsing %s: %v", in, err)
			}
			model, err := arch.ForModule(m)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range gc.arch {
				if err := model.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			cfg := pass.Config{Arch: model, Passes: gc.table.Names(), Options: gc.opts, VerifyEach: true}
			var rep *pass.Report
			var runErr error
			run := func(m *bir.Module) error {
				rep, runErr = gc.table.Run(m, cfg)
				return runErr
			}
			if gc.wantErr == "" {
				passtest.Check(t, m, run, passtest.Arch(model))
			} else {
				run(m)
				if runErr == nil || !strings.Contains(runErr.Error(), gc.wantErr) {
					t.Fatalf("want an error containing %q, have %v", gc.wantErr, runErr)
				}
			}
			var got bytes.Buffer
			got.WriteString("// Golden output of " + filepath.Base(in) + " (go test " + pkg + " -run TestGolden -update).\n")
			for _, p := range rep.Passes {
				if !footprint[p.Name] {
					continue
				}
				for _, l := range p.Log {
					fmt.Fprintf(&got, "// log [%s]: %s\n", p.Name, l)
				}
				for _, c := range p.Counters {
					fmt.Fprintf(&got, "// counter [%s]: %s = %d\n", p.Name, c.Name, c.Value)
				}
				for _, b := range p.Blocks {
					fmt.Fprintf(&got, "// report [%s]: %s\n", p.Name, b.Title)
					for _, l := range strings.Split(strings.TrimRight(b.Text, "\n"), "\n") {
						fmt.Fprintf(&got, "// report [%s]: %s\n", p.Name, l)
					}
				}
			}
			if runErr != nil {
				fmt.Fprintf(&got, "// error: %s\n", runErr)
			}
			if err := bir.Print(&got, m); err != nil {
				t.Fatal(err)
			}
			gold := strings.TrimSuffix(in, ".bir") + ".golden"
			if update {
				if err := os.WriteFile(gold, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gold)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from the output (run with -update after checking):\n%s", gold, passtest.LineDiff(string(want), got.String()))
			}
		})
	}
}
