// Path B: a kernel delivered as BIR-JSON (the seed's lowerFromBirJson).
//
// The file is a BIR-JSON module whose "functions" array holds one function
// per logical neuron core; function c is core c's kernel. The file is read
// with bir/birjson (the two-pass createFromJson/createFromJsonPass2 load),
// the LNC rules pick the function (translate.go), and bir.CopyFunction moves
// it into the module being compiled under its own name (made unique), with
// the NKI kind. The function's inputs and outputs are its tensors of input
// and output kind (or with locations typed Input/Output), named as the
// interpreter names them; the placeholder's arguments bind them by name
// (FunctionArgumentMap::createMappingFromNames).
//
// The seed's log lines: "BIR JSON file has been loaded from disk: <path>"
// and "Creating NKI function from BIR JSON: <name> and core id: <id>".
//
// Decisions: the file's arch and neuron_core_id attributes are ignored (the
// module being compiled decides); a file whose "functions" is missing or
// empty is an error.
package translate

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
)

func (tr *translator) lowerFromBirJSON(f *bir.Function, i bir.InstID, path string) (*kernelFunc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// The function list, in file order, without building the module yet.
	var top struct {
		Functions []struct {
			Name *string `json:"name"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not a BIR-JSON module object: %w", path, err)
	}
	tr.ctx.Logf("BIR JSON file has been loaded from disk: %s", path)
	if len(top.Functions) == 0 {
		return nil, fmt.Errorf("%s: the BIR-JSON module has no functions (want one per logical neuron core)", path)
	}
	core, ok, err := tr.selectCore(len(top.Functions))
	if err != nil || !ok {
		return nil, err
	}
	if top.Functions[core].Name == nil {
		return nil, fmt.Errorf("%s: function #%d (core %d) has no \"name\"", path, core, core)
	}
	name := *top.Functions[core].Name
	tr.ctx.Logf("Creating NKI function from BIR JSON: %s and core id: %d", name, core)
	src, err := birjson.Decode(data, path)
	if err != nil {
		return nil, err
	}
	sf := src.Func(name)
	if sf == nil {
		return nil, fmt.Errorf("%s: function %s (core %d) not found after loading", path, name, core)
	}
	fn, err := bir.CopyFunction(tr.m, sf, uniqueFuncName(tr.m, name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fn.Kind = bir.FuncNKI
	return &kernelFunc{fn: fn, inputs: ioParams(fn, false), outputs: ioParams(fn, true)}, nil
}
