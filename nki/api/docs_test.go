package api

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docTables reads the status tables of docs/nki.md: per table (its
// heading), name -> status.
func docTables(t *testing.T) map[string]map[string]string {
	data, err := os.ReadFile("../../docs/nki.md")
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]map[string]string{}
	section := ""
	name := regexp.MustCompile("`([A-Za-z_0-9.]+)`")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "### ") {
			section = strings.TrimPrefix(line, "### ")
			continue
		}
		if strings.HasPrefix(line, "## ") {
			section = ""
		}
		if section == "" || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		if tables[section] == nil {
			tables[section] = map[string]string{}
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			tables[section][m[1]] = strings.TrimSpace(cells[2])
		}
	}
	return tables
}

func statusOf(o *Op) string {
	if o.fn != nil {
		return "supported"
	}
	return "not supported"
}

// TestDocs_StatusTable: docs/nki.md lists every nl and nisa function of
// the legacy binding, and its status column agrees with the binding
// (supported: the function lowers; not supported: it raises
// NotSupported).
func TestDocs_StatusTable(t *testing.T) {
	tables := docTables(t)
	status := map[string]string{}
	for prefix, sec := range map[string]string{"nl.": "nki.language", "nisa.": "nki.isa"} {
		for n, s := range tables[sec] {
			status[prefix+n] = s
		}
	}
	if len(status) < 150 {
		t.Fatalf("read %d names from the legacy tables of docs/nki.md", len(status))
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
		if want := statusOf(o); st != want {
			t.Errorf("docs/nki.md says %s is %q; the binding: %q", n, st, want)
		}
	}
	counts := map[string]int{}
	for n, st := range status {
		if _, ok := registry[n]; !ok && st != "supported" {
			t.Errorf("docs/nki.md lists %s (%s), which the binding does not define", n, st)
		}
		counts[st]++
	}
	t.Logf("legacy nl and nisa: %d names, %d supported, %d not supported", len(status), counts["supported"], counts["not supported"])
}

// TestDocs_CurrentStatusTable: the current API's tables list every name of
// nki.language, nki.isa and nki.collectives with the binding's status, and
// name nothing the modules lack. It logs the counts docs/nki.md quotes.
func TestDocs_CurrentStatusTable(t *testing.T) {
	tables := docTables(t)
	mods := currentModules()
	total := map[string]int{}
	for _, c := range []struct{ section, module string }{
		{"nki.language (current)", "nki.language"},
		{"nki.isa (current)", "nki.isa"},
		{"nki.collectives (current)", "nki.collectives"},
	} {
		tab := tables[c.section]
		if len(tab) == 0 {
			t.Fatalf("docs/nki.md has no table %q", c.section)
		}
		m := mods[c.module]
		counts := map[string]int{}
		for _, n := range m.Names() {
			if n == "__name__" {
				continue
			}
			v, _ := m.Get(n)
			want := "supported"
			if o, ok := v.(*Op); ok {
				want = statusOf(o)
			}
			st, ok := tab[n]
			switch {
			case !ok:
				t.Errorf("%s.%s is not listed in docs/nki.md's table %q", c.module, n, c.section)
			case st != want:
				t.Errorf("docs/nki.md says %s.%s is %q; the binding: %q", c.module, n, st, want)
			}
			counts[want]++
		}
		for n := range tab {
			if _, ok := m.Get(n); !ok {
				t.Errorf("docs/nki.md's table %q lists %s, which %s does not define", c.section, n, c.module)
			}
		}
		t.Logf("%s: %d names, %d supported, %d not supported", c.module, counts["supported"]+counts["not supported"], counts["supported"], counts["not supported"])
		total["supported"] += counts["supported"]
		total["not supported"] += counts["not supported"]
	}
	var names []string
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("current API: %d supported, %d not supported (modules %s)", total["supported"], total["not supported"], strings.Join(names, ", "))
}
