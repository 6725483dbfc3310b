package unroll

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// fixedNow stamps the seed's "<ctime>" log lines in golden output.
func fixedNow() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }

// goldenStep is one step of a golden case's "// run:" line.
type goldenStep struct {
	pass string
	opts map[string]string
}

// parseRun reads the "// run: a k=v; b k=v" header of a golden input.
func parseRun(src []byte) ([]goldenStep, error) {
	for _, line := range strings.Split(string(src), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "// run:")
		if !ok {
			continue
		}
		var steps []goldenStep
		for _, part := range strings.Split(rest, ";") {
			fs := strings.Fields(part)
			if len(fs) == 0 {
				continue
			}
			st := goldenStep{pass: fs[0], opts: map[string]string{}}
			for _, kv := range fs[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, fmt.Errorf("run line: option %q: want key=value", kv)
				}
				st.opts[k] = v
			}
			steps = append(steps, st)
		}
		return steps, nil
	}
	return nil, fmt.Errorf("no \"// run:\" line")
}

func runSteps(m *bir.Module, steps []goldenStep, log *[]string) (verify.Stage, error) {
	logf := func(format string, a ...any) { *log = append(*log, fmt.Sprintf(format, a...)) }
	var stage verify.Stage
	for _, s := range steps {
		var err error
		switch s.pass {
		case "unroll":
			limit, _ := strconv.ParseInt(s.opts["max_instruction_limit"], 10, 64)
			_, err = Unroll(m, UnrollOptions{MaxInstructionLimit: limit, Logf: logf, Now: fixedNow})
			if countLoops(m) == 0 {
				stage |= verify.StageUnrolled
			}
		case "full_unroll":
			level, perr := strconv.Atoi(s.opts["level"])
			if perr != nil {
				return 0, fmt.Errorf("full_unroll: level=%q", s.opts["level"])
			}
			_, err = FullUnroll(m, FullUnrollOptions{Level: level, Logf: logf, Now: fixedNow})
			if level == 2 {
				stage |= verify.StageUnrolled
			}
		case "heuristic_unroll":
			_, err = HeuristicUnroll(m, HeuristicOptions{Enabled: true, MaxHU: s.opts["maxhu"], Logf: logf})
		default:
			return 0, fmt.Errorf("unknown step %q", s.pass)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.pass, err)
		}
	}
	return stage, nil
}

// TestGolden runs each testdata/golden/*.bir through the steps of its
// "// run:" line, checks translation validation (verifier before and after,
// interpreter outputs bit-identical) and compares the printed result and
// the log lines with <name>.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
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
			steps, err := parseRun(src)
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			m, err := bir.Parse(in, src)
			if err != nil {
				t.Fatalf("parsing %s: %v", in, err)
			}
			var log []string
			var stage verify.Stage
			passtest.Check(t, m, func(m *bir.Module) error {
				var err error
				stage, err = runSteps(m, steps, &log)
				return err
			})
			if err := verify.Module(m, verify.Options{Stage: stage}); err != nil {
				t.Fatalf("verify after (stage %v): %v", stage, err)
			}
			var got bytes.Buffer
			got.WriteString("// Golden output of " + filepath.Base(in) + " (go test ./passes/unroll -run TestGolden -update).\n")
			for _, l := range log {
				got.WriteString("// log: " + l + "\n")
			}
			if err := bir.Print(&got, m); err != nil {
				t.Fatal(err)
			}
			// The output must read back to the same text.
			m2, err := bir.Parse(name+".golden", got.Bytes())
			if err != nil {
				t.Fatalf("the output does not parse back: %v", err)
			}
			if a, b := bir.Format(m), bir.Format(m2); a != b {
				t.Fatalf("the output does not round-trip through the text form")
			}
			gold := strings.TrimSuffix(in, ".bir") + ".golden"
			if *update {
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
