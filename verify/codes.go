package verify

import "github.com/narwhal-compiler/narwhal/diag"

// ruleCodes maps each rule to the error code of its kind of mistake
// (package diag, docs/errors.md). Every rule of the package comment's
// table has one (TestRuleCodes).
var ruleCodes = map[string]string{
	"ref": diag.Structure, "name-unique": diag.Structure, "tables": diag.Structure,
	"block": diag.Structure, "loop": diag.Structure, "dep": diag.Structure,
	"opcode": diag.Structure, "sym-axis-unbound": diag.Structure, "schedule": diag.Structure,
	"module-arch": diag.UnknownArch,
	"tensor":      diag.Declaration, "loc": diag.Declaration, "dtype": diag.Declaration,
	"arity": diag.OperandShape, "elem-count": diag.OperandShape, "cce-shape": diag.OperandShape, "operand-dtype": diag.OperandShape,
	"ap-shape": diag.OutOfBounds, "ap-bounds": diag.OutOfBounds,
	"engine": diag.EngineOpcode, "act-reduce": diag.EngineOpcode, "nc-version": diag.EngineOpcode,
	"onchip-operand": diag.WrongMemory, "gpsimd-psum": diag.WrongMemory, "customop-memory": diag.WrongMemory,
	"pe-memory": diag.WrongMemory, "dma-psum": diag.WrongMemory, "tt-psum": diag.WrongMemory,
	"engine-ap": diag.EngineAP, "partition-stride": diag.EngineAP, "free-size": diag.EngineAP,
	"matmul-limits": diag.MatmulLimit, "matmul-dtype": diag.MatmulLimit, "tile-size": diag.MatmulLimit, "tile-position": diag.MatmulLimit,
	"attr": diag.BadField, "semaphore": diag.BadField, "sync": diag.BadField,
	"indirect-shape": diag.IndirectShape, "tensor-indirection": diag.IndirectShape,
	"partition-start": diag.PartStart,
	"psum-bank":       diag.PSUMBank, "psum-tile": diag.PSUMBank,
	"overlap": diag.Overlap,
	// An allocated NKI kernel (translate verifies it at StageAllocated)
	// whose tile lies outside the usable memory does not fit.
	"sb-fit": diag.DoesNotFit, "allocated": diag.DoesNotFit,
	// The other stage rules: a stage the module claims (a function
	// attribute such as stage_legalize_cce_dma_completed) or that a pass
	// run alone requires. After a pass of a run, the pass manager reports a
	// violation as the pass's fault (pass.VerifierError, diag.Internal).
	"unrolled": diag.Stage, "indirect-lowered": diag.Stage, "cce-sources": diag.Stage,
	"engine-assigned": diag.Stage, "strided-load": diag.Stage, "scheduled": diag.Stage,
	"tile-partitions": diag.Stage, "synchronized": diag.Stage, "core-barrier": diag.BadField,
}

// RuleCode returns the error code of rule ("" for an unknown rule).
func RuleCode(rule string) string { return ruleCodes[rule] }

// Code returns the error code of the diagnostic's rule.
func (d Diag) Code() string { return ruleCodes[d.Rule] }

// ErrorCode returns the code of the first diagnostic (diag.Coder).
func (e *Error) ErrorCode() string {
	if len(e.diags) == 0 {
		return ""
	}
	return e.diags[0].Code()
}
