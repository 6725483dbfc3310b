package verify

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRuleCodes: every rule the package comment's table lists has an
// error code, and the map names no rule the table lacks.
func TestRuleCodes(t *testing.T) {
	src, err := os.ReadFile("verify.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "//\trule ")
	end := strings.Index(doc, "// # Decisions")
	if start < 0 || end < start {
		t.Fatal("the rule table is not where the test expects it in verify.go")
	}
	re := regexp.MustCompile(`(?m)^//\t([a-z][a-z-]+) +(always|Stage)`)
	listed := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(doc[start:end], -1) {
		listed[m[1]] = true
	}
	if len(listed) < 30 {
		t.Fatalf("found only %d rules in the table: the pattern is broken", len(listed))
	}
	for r := range listed {
		if RuleCode(r) == "" {
			t.Errorf("rule %s has no error code (verify/codes.go)", r)
		}
	}
	for r := range ruleCodes {
		if !listed[r] {
			t.Errorf("verify/codes.go maps rule %q, which the package comment's table does not list", r)
		}
	}
}
