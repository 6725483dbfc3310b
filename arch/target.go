package arch

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
)

// Targets are neuronx-cc's --target names (instance families) and the
// machine model each compiles for: Trn1, Trn1n and Inf2 share the
// NeuronCore-v2, Trn2 has NC-v3, Trn3 NC-v4 (hardware.md, "Generations").
var Targets = []struct{ Name, Arch string }{
	{"trn1", "trn1"},
	{"trn1n", "trn1"},
	{"inf2", "trn1"},
	{"trn2", "trn2"},
	{"trn3", "trn3"},
}

// TargetArch returns the model name of a --target (case-insensitive).
// The command line passes it to Retarget as --arch would be, so --target
// composes with --option arch.NAME=VALUE and the module's arch options
// exactly as --arch does; --arch given too must name the same model.
func TargetArch(target, archName string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(target))
	for _, x := range Targets {
		if x.Name == t {
			if archName != "" {
				m, err := Lookup(archName)
				if err != nil {
					return "", fmt.Errorf("--arch: %w", err)
				}
				if m.Name != x.Arch {
					return "", diag.Errorf(diag.UnknownArch, "--target %s compiles for %s, --arch %s names %s: give one of them", target, x.Arch, archName, m.Name)
				}
			}
			return x.Arch, nil
		}
	}
	names := make([]string, len(Targets))
	for i, x := range Targets {
		names[i] = x.Name
	}
	return "", diag.Errorf(diag.UnknownArch, "unknown target %q (want one of %s; --arch takes narwhal's model names)", target, strings.Join(names, ", "))
}
