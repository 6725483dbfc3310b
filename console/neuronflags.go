package console

import (
	"flag"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
)

// EnvFlags is the environment variable neuronx-cc's frameworks pass
// compiler flags through; `narwhal compile` reads it too.
const EnvFlags = "NEURON_CC_FLAGS"

// NeuronOnlyFlags are neuronx-cc compile flags narwhal has no equivalent
// for: found in NEURON_CC_FLAGS they are dropped with a warning, so that
// a framework's setting (--model-type=transformer, --auto-cast none,
// --retry_failed_compilation, ...) does not stop the compile. true: the
// flag takes a value.
var NeuronOnlyFlags = map[string]bool{
	"framework": true, "model-type": true, "auto-cast": true, "auto-cast-type": true,
	"distribution-strategy": true, "distribution_strategy": true, "logical-nc-config": true, "lnc": true,
	"cache_dir": true, "output": true, "pipeline": true, "internal-tensorizer-opt-level": true,
	"internal-backend-options": true, "internal-hlo2tensorizer-options": true, "internal-compiler-debug-mode": true,
	"enable-mixed-precision-accumulation": false, "enable-saturate-infinity": false,
	"enable-fast-context-switch": false, "enable-fast-loading-neuron-binaries": false,
	"enable-experimental-O1": false, "retry_failed_compilation": false, "enable-experimental-spmd": false,
}

// SplitFlags splits a flags string as a POSIX shell would split words:
// white space separates, single quotes keep everything, double quotes
// keep everything but \" and \\, a backslash outside quotes escapes the
// next byte.
func SplitFlags(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, diag.Errorf(diag.Usage, "%s: unterminated ' quote", EnvFlags)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, diag.Errorf(diag.Usage, "%s: unterminated \" quote", EnvFlags)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// FilterFlags drops the neuronx-cc-only flags (NeuronOnlyFlags) from
// args, keeping the rest for fs, and returns what it dropped. Positional
// arguments are refused: NEURON_CC_FLAGS carries flags only.
func FilterFlags(fs *flag.FlagSet, args []string) (keep, dropped []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, nil, diag.Errorf(diag.Usage, "%s: %q is not a flag (the variable carries flags only)", EnvFlags, a)
		}
		name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		// A value flag at the end of the variable has no value in it: the
		// command line's first word would become its value (--logfile
		// taking the input file as the log to write), so it is refused.
		lastNeedsValue := func() error {
			if !hasVal && i+1 >= len(args) {
				return diag.Errorf(diag.Usage, "%s: %s needs a value in the variable (%s=VALUE): the variable carries flags only, and its last flag cannot take the command line's first argument", EnvFlags, a, a)
			}
			return nil
		}
		if f := fs.Lookup(name); f != nil {
			keep = append(keep, a)
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasVal && !(ok && bf.IsBoolFlag()) {
				if err := lastNeedsValue(); err != nil {
					return nil, nil, err
				}
				i++
				keep = append(keep, args[i])
			}
			continue
		}
		takesValue, known := NeuronOnlyFlags[name]
		if !known {
			keep = append(keep, a) // the flag parser reports it
			continue
		}
		dropped = append(dropped, a)
		if takesValue && !hasVal {
			if err := lastNeedsValue(); err != nil {
				return nil, nil, err
			}
			i++
			dropped[len(dropped)-1] += " " + args[i]
		}
	}
	return keep, dropped, nil
}
