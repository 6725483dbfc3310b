// Package frontend turns an NKI kernel's Python source into a BIR module:
// it parses the file (python/syntax), runs its top level in the tracer
// (nki/tracer) with the NKI modules of package nki/api importable, picks
// the kernel function, binds its parameters (tensors from their shapes and
// dtypes, other parameters from --arg expressions or their defaults),
// traces it on the SPMD grid and returns the traced module, ready for the
// default pipeline. It is the one entry point the CLI, the tests and other
// tools use (the interface contract of ../shared/docs/nki-frontend.md).
package frontend

import (
	"io"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Options are a trace's inputs besides the source.
type Options struct {
	// Kernel names the function to trace; "" picks the file's only
	// @nki.jit (or nki.jit(...)-wrapped) function, else it is an error
	// listing the candidates.
	Kernel string
	// Tensors gives every tensor parameter its dtype and shape (from
	// --inputs FILE.npz or --input NAME=DTYPE[D0,...]).
	Tensors []TensorSpec
	// Args gives other parameters as Python expression source (--arg
	// NAME=EXPR): a literal or a dotted name resolved in the kernel
	// file's module namespace. Parameters absent here take their
	// defaults.
	Args []Arg
	// Grid is the SPMD launch grid (--grid A,B); nil for no grid.
	Grid []int64
	// Arch is the target machine ("trn1", "trn2", ...; "" for the default).
	Arch string
	// Path lists extra directories searched for imported Python modules
	// (--path), after the kernel file's directory.
	Path []string
	// Log receives the kernel's print() output (nil drops it).
	Log io.Writer
	// OpenPlacements traces the kernel with its direct allocations
	// (address=, ncc.sbuf/psum.mod_alloc) ignored, every tile left to the
	// memory planner (--open-placements): compiling a kernel both ways
	// compares its placements with the planner's.
	OpenPlacements bool
}

// TensorSpec is one tensor parameter's dtype and shape.
type TensorSpec struct {
	Name  string
	Dtype bir.Dtype
	Shape []int64
	// FromArchive marks a spec read from --inputs: an array that names no
	// parameter is ignored (an archive may hold more), where an --input
	// naming no parameter is an error.
	FromArchive bool
}

// Arg is one --arg NAME=EXPR.
type Arg struct {
	Name string
	Expr string
}

// Kernel describes what was traced, for the CLI to bind inputs and name
// outputs.
type Kernel struct {
	// Name is the kernel function's name.
	Name string
	// File is the kernel file as given.
	File string
	// Params lists the kernel's parameters in order.
	Params []Param
	// Returns maps each returned tensor to its output key: "return" for a
	// single returned tensor, "return0", "return1", ... for a tuple; the
	// value is the module's I/O tensor name (interp's input/output key).
	Returns []Output
	// Written lists the tensor parameters the kernel wrote, keyed by the
	// parameter name.
	Written []Output
}

// Param is one kernel parameter.
type Param struct {
	Name string
	// Tensor is true for a parameter bound to an HBM tensor.
	Tensor bool
	// Value is the bound Python value's repr for the others ("3", "(3, 4)").
	Value string
}

// Output names one output of a run: Key is the .npz key (`return`,
// `return0`, or a parameter name), Tensor the module's I/O tensor name.
type Output struct {
	Key    string
	Tensor string
}
