// The corpus comparison without CPython: testdata/corpus/cpython-3.11.sha256
// holds the SHA-256 of CPython 3.11's dump (testdata/dump.py) of each file
// of the grammar corpus, so that `go test` checks the parser against
// CPython's trees even where no python3 is installed. `go test -update`
// rewrites it from CPython (it needs 3.11; the hashes are never computed
// from narwhal's own dumps).

package syntax

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/cpython-3.11.sha256 from CPython 3.11")

const goldenHashes = "testdata/corpus/cpython-3.11.sha256"

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestParse_CorpusMatchesCPythonGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if *update {
		py, why := findPython311()
		if py == "" {
			t.Fatal("-update needs CPython 3.11: " + why)
		}
		var jobs []dumpJob
		for _, f := range files {
			jobs = append(jobs, dumpJob{Name: f, Path: f})
		}
		results := runDumpScript(t, py, jobs)
		var b strings.Builder
		for _, f := range files {
			r := results[f]
			if r.Error != nil {
				t.Fatalf("%s: CPython cannot parse it: %+v", f, *r.Error)
			}
			fmt.Fprintf(&b, "%s  %s\n", sha(r.Dump), filepath.Base(f))
		}
		if err := os.WriteFile(goldenHashes, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{}
	fh, err := os.Open(goldenHashes)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), "  ")
		if ok {
			want[name] = hash
		}
	}
	for _, f := range files {
		name := filepath.Base(f)
		h, ok := want[name]
		if !ok {
			t.Errorf("%s has no CPython hash in %s (run go test -update with CPython 3.11)", name, goldenHashes)
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := Parse(f, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := sha(DumpFile(tree)); got != h {
			t.Errorf("%s: the dump differs from CPython 3.11's (TestParse_MatchesCPython shows where, with python3)", name)
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("%s lists %s, which is not in the corpus", goldenHashes, name)
	}
}
