package api

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocs_StatusTable: docs/nki.md lists every nl and nisa function of
// the binding, and its status column agrees with the binding (supported:
// the function lowers; not supported: it raises NotSupported).
func TestDocs_StatusTable(t *testing.T) {
	data, err := os.ReadFile("../../docs/nki.md")
	if err != nil {
		t.Fatal(err)
	}
	section := ""
	status := map[string]string{} // "nl.add" -> "supported"
	name := regexp.MustCompile("`([a-z_0-9.]+)`")
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "### nki.language"):
			section = "nl."
		case strings.HasPrefix(line, "### nki.isa"):
			section = "nisa."
		case strings.HasPrefix(line, "### "):
			section = ""
		}
		if section == "" || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			status[section+m[1]] = strings.TrimSpace(cells[2])
		}
	}
	if len(status) < 150 {
		t.Fatalf("read %d names from the tables of docs/nki.md", len(status))
	}
	for n, o := range registry {
		if !strings.HasPrefix(n, "nl.") && !strings.HasPrefix(n, "nisa.") {
			continue
		}
		st, ok := status[n]
		if !ok {
			t.Errorf("%s is not listed in docs/nki.md", n)
			continue
		}
		if want := map[bool]string{true: "supported", false: "not supported"}[o.fn != nil]; st != want {
			t.Errorf("docs/nki.md says %s is %q; the binding: %q", n, st, want)
		}
	}
	for n, st := range status {
		if _, ok := registry[n]; !ok && st != "supported" {
			t.Errorf("docs/nki.md lists %s (%s), which the binding does not define", n, st)
		}
	}
}
