package arch

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/diag"
)

func TestTargetArch(t *testing.T) {
	for _, tc := range []struct{ target, arch, want, err string }{
		{"trn1", "", "trn1", ""},
		{"TRN1N", "", "trn1", ""},
		{"inf2", "", "trn1", ""},
		{"trn2", "", "trn2", ""},
		{"trn3", "", "trn3", ""},
		{"trn2", "gen3", "trn2", ""},
		{"trn2", "trn1", "", "--target trn2 compiles for trn2, --arch trn1 names trn1"},
		{"trn9", "", "", `unknown target "trn9"`},
	} {
		got, err := TargetArch(tc.target, tc.arch)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || diag.CodeOf(err) != diag.UnknownArch {
				t.Errorf("TargetArch(%q, %q): %v, want %q with code %s", tc.target, tc.arch, err, tc.err, diag.UnknownArch)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("TargetArch(%q, %q) = %q, %v; want %q", tc.target, tc.arch, got, err, tc.want)
		}
		if _, err := Lookup(got); err != nil {
			t.Errorf("target %s maps to %q, which is no model: %v", tc.target, got, err)
		}
	}
}
