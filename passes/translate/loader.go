// The KLR loader: `narwhal compile FILE.klr` and `narwhal run FILE.klr`
// accept a lone NKI kernel file. driver.Load detects KLR by its first bytes
// and calls driver.KLRLoader, which this package sets: the kernel is wrapped
// in a module whose function "main" declares one DRAM tensor per kernel
// input (kind Input) and output (kind Output), named, typed and shaped as
// the kernel's parameters, and holds a single NKIKLIRKernel placeholder
// binding them by name. translate_nki_ast_to_bir then expands it, so the
// interpreter runs main, which calls the kernel.
//
// Decisions: the placeholder's path is the absolute path of the file (the
// module does not depend on the working directory); the module's arch is
// "trn2" (the CLI's --arch overrides it); the neuron core id stays unset,
// so an LNC > 1 kernel asks for one (the LNC rules in translate.go); the
// placeholder is named after the kernel.
package translate

import (
	"fmt"
	"path/filepath"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/klr"
)

// DefaultArch is the arch of modules the KLR loader builds.
const DefaultArch = "trn2"

func init() {
	driver.KLRLoader = LoadKLR
}

// LoadKLR wraps the KLR kernel file path (contents data) in a module with
// one placeholder; see the file comment.
func LoadKLR(path string, data []byte) (*bir.Module, error) {
	file, err := klr.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	k := file.Contents.AsLnc()
	m := bir.NewModule(DefaultArch)
	b := bir.NewBuilder(m, "main")
	seen := map[string]bool{}
	param := func(t *klr.TensorName, mt bir.MemoryType, kind bir.TensorKind, what string) (bir.Operand, error) {
		if seen[t.Name] {
			return bir.Operand{}, fmt.Errorf("%s: kernel %s: %s %s: the name is used twice among the kernel's inputs and outputs", path, k.Name, what, t.Name)
		}
		seen[t.Name] = true
		dt, err := bir.ParseDtype(t.Dtype.String())
		if err != nil {
			return bir.Operand{}, fmt.Errorf("%s: kernel %s: %s %s: %w", path, k.Name, what, t.Name, err)
		}
		var shape []int64
		total, ok := shapeElems(t.Shape.Dims())
		if !ok || total == 0 {
			return bir.Operand{}, fmt.Errorf("%s: kernel %s: %s %s: unsupported shape %v", path, k.Name, what, t.Name, t.Shape.Dims())
		}
		for _, d := range t.Shape.Dims() {
			shape = append(shape, int64(d))
		}
		h := b.Tensor(t.Name, mt, kind, dt, shape...)
		if err := b.Err(); err != nil {
			return bir.Operand{}, fmt.Errorf("%s: kernel %s: %w", path, k.Name, err)
		}
		return h.All(), nil
	}
	var ins, outs []bir.Operand
	var inNames, outNames []string
	for i := range k.Inputs {
		o, err := param(&k.Inputs[i], bir.MemInput, bir.KindInput, "input")
		if err != nil {
			return nil, err
		}
		ins, inNames = append(ins, o), append(inNames, k.Inputs[i].Name)
	}
	for i := range k.Outputs {
		o, err := param(&k.Outputs[i], bir.MemOutput, bir.KindOutput, "output")
		if err != nil {
			return nil, err
		}
		outs, outNames = append(outs, o), append(outNames, k.Outputs[i].Name)
	}
	if inNames == nil {
		inNames = []string{}
	}
	if outNames == nil {
		outNames = []string{}
	}
	name := k.Name
	if name == "" {
		name = "nki_kernel"
	}
	AddPlaceholder(b.F, b.Block(), name, abs, FormatKLR, ins, inNames, outs, outNames)
	return m, nil
}
