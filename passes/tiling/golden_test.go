package tiling_test

// Golden tests: every testdata/golden/*.bir runs through sunda_size_tiling
// (with the options of its "// options:" line) under translation
// validation (bit-exact, or within a "// tolerance: TENSOR ABS" bound for
// a K split), must verify at stage tiled afterwards, and its log lines,
// counters and resulting module are compared with <name>.golden.
// go test ./passes/tiling -run TestSundaSizeTiling_Golden -update rewrites
// the golden files.

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden")

// Every mechanism acts in some golden case (its counter is non-zero),
// under the translation validation above (checked by execution).
var mechanisms = []string{"rate_matched", "boundary_tensors", "psum_splits", "replicated", "reloaded", "simd_macros", "simd_unchanged"}

func TestSundaSizeTiling_Golden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.bir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	acted := map[string]bool{}
	defer func() {
		for _, c := range mechanisms {
			if !acted[c] {
				t.Errorf("sunda_size_tiling.%s is 0 in every golden case: the mechanism is not exercised", c)
			}
		}
	}()
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".bir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := bir.Parse(file, src)
			if err != nil {
				t.Fatal(err)
			}
			opts := map[string]string{}
			check := []passtest.Option{passtest.InterpOptions(interp.Options{Macro: true}), passtest.Stage(verify.StageTiled)}
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(line, "// options:"); ok {
					for _, kv := range strings.Fields(rest) {
						k, v, _ := strings.Cut(kv, "=")
						opts[k] = v
					}
				}
				if rest, ok := strings.CutPrefix(line, "// tolerance:"); ok {
					f := strings.Fields(rest)
					abs, err := strconv.ParseFloat(f[1], 64)
					if err != nil {
						t.Fatalf("tolerance line %q: %v", line, err)
					}
					check = append(check, passtest.TensorTolerance(f[0], abs, 0, strings.Join(f[2:], " ")))
				}
			}
			var rep *pass.Report
			passtest.Check(t, m, func(m *bir.Module) error {
				tbl := pass.Table{Passes: []pass.Pass{tiling.Pass}}
				var err error
				rep, err = tbl.Run(m, pass.Config{Options: map[string]map[string]string{"sunda_size_tiling": opts}})
				return err
			}, check...)
			res := rep.Result("sunda_size_tiling")
			if res.Counter("sunda_size_tiling.tiled") == 0 {
				t.Errorf("the pass did not act (sunda_size_tiling.tiled = 0)")
			}
			var sb strings.Builder
			for _, l := range res.Log {
				sb.WriteString("// " + l + "\n")
			}
			for _, c := range res.Counters {
				sb.WriteString("// " + c.Name + " = " + strconv.FormatInt(c.Value, 10) + "\n")
				if c.Value > 0 {
					acted[strings.TrimPrefix(c.Name, "sunda_size_tiling.")] = true
				}
			}
			sb.WriteString(bir.Format(m))
			got := sb.String()
			gfile := strings.TrimSuffix(file, ".bir") + ".golden"
			if *update {
				if err := os.WriteFile(gfile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gfile)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(want) != got {
				t.Errorf("%s differs (run with -update to accept):\n%s", gfile, passtest.LineDiff(string(want), got))
			}
		})
	}
}

// TestSundaSizeTiling_SIMDCountsWhatActs: simd_macros counts the groups
// the SIMD-macro path changes. On [200 x 64] it re-views the group (the
// tiled module differs from the one the path off gives: simd_macros = 1);
// on [256 x 64] the rows fill the cores already and the module is
// byte-identical with the path off (simd_macros = 0, simd_unchanged = 1).
func TestSundaSizeTiling_SIMDCountsWhatActs(t *testing.T) {
	for _, tc := range []struct {
		file         string
		macros, same int64
	}{
		{"simd.bir", 1, 0},
		{"simd_full.bir", 0, 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "golden", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var text [2]string
			var res [2]*pass.PassResult
			for k, on := range []string{"true", "false"} {
				m, err := bir.Parse(tc.file, src)
				if err != nil {
					t.Fatal(err)
				}
				tbl := pass.Table{Passes: []pass.Pass{tiling.Pass}}
				rep, err := tbl.Run(m, pass.Config{Options: map[string]map[string]string{"sunda_size_tiling": {"simd_macro": on}}})
				if err != nil {
					t.Fatal(err)
				}
				text[k], res[k] = bir.Format(m), rep.Result("sunda_size_tiling")
			}
			macros, same := res[0].Counter("sunda_size_tiling.simd_macros"), res[0].Counter("sunda_size_tiling.simd_unchanged")
			if macros != tc.macros || same != tc.same {
				t.Errorf("simd_macros = %d, simd_unchanged = %d; want %d and %d", macros, same, tc.macros, tc.same)
			}
			if changed := text[0] != text[1]; changed != (macros > 0) {
				t.Errorf("the path changed the module: %v; simd_macros = %d", changed, macros)
			}
		})
	}
}
