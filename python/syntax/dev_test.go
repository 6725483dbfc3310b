package syntax

import (
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
