package syntax

import (
	"fmt"
	"os"
	"testing"
)

// TestDev compares the files named by NARWHAL_DEV_FILES (colon-separated).
func TestDev(t *testing.T) {
	files := os.Getenv("NARWHAL_DEV_FILES")
	if files == "" {
		t.Skip()
	}
	py, _ := findPython311()
	var jobs []dumpJob
	for _, f := range splitList(files) {
		jobs = append(jobs, dumpJob{Name: f, Path: f})
	}
	res := runDumpScript(t, py, jobs)
	for _, j := range jobs {
		src, _ := os.ReadFile(j.Path)
		r := res[j.Name]
		f, err := Parse(j.Name, src)
		if r.Error != nil || err != nil {
			t.Errorf("%s: cpython %+v narwhal %v", j.Name, r.Error, err)
			continue
		}
		if got := DumpFile(f); got != r.Dump {
			t.Errorf("%s: %s", j.Name, firstDiff(r.Dump, got))
		}
	}
}

func splitList(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ':' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// TestDevWriteGenerated writes the generated programs to NARWHAL_DEV_GEN.
func TestDevWriteGenerated(t *testing.T) {
	dir := os.Getenv("NARWHAL_DEV_GEN")
	if dir == "" {
		t.Skip()
	}
	os.MkdirAll(dir, 0o755)
	for i, p := range generatePrograms(genCount, genSeed) {
		os.WriteFile(fmt.Sprintf("%s/%03d.py", dir, i), []byte(p), 0o644)
	}
}

// TestDevParseDir prints narwhal's errors for the files of NARWHAL_DEV_DIR.
func TestDevParseDir(t *testing.T) {
	dir := os.Getenv("NARWHAL_DEV_DIR")
	if dir == "" {
		t.Skip()
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		src, _ := os.ReadFile(dir + "/" + e.Name())
		if _, err := Parse(e.Name(), src); err != nil {
			fmt.Println(err)
		}
	}
}
