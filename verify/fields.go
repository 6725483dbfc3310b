package verify

// Opcode fields the interpreter needs and the verifier checks, so that a
// module the verifier accepts runs (issue 27 item 11: a Memset with no
// constant passed verify and compile, then faulted in run).

import "github.com/narwhal-compiler/narwhal/bir"

// memset: mode Const (the default) or Random; a Const memset carries its
// value, constant or constant_bits (interp/ops_misc.go memsetBits).
func (c *checker) memset(i bir.InstID, attrs bir.AttrSet) {
	switch mode := attrs.Str("mode", "Const"); mode {
	case "Random":
	case "Const":
		for _, k := range []string{"constant_bits", "constant"} {
			if v, ok := attrs.Get(k); ok && v.Kind != bir.ValNull {
				if k == "constant_bits" {
					if _, isInt := v.AsInt(); !isInt {
						c.instDiag(i, "attr", "constant_bits=%s: want an integer", v.JSON())
					}
				}
				return
			}
		}
		c.instDiag(i, "attr", "a Const Memset has no value: want constant or constant_bits")
	default:
		c.instDiag(i, "attr", "mode %q: want Const or Random", mode)
	}
}
