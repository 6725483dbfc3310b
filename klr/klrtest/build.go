package klrtest

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/klr"
)

// Builders of small KLR kernels for tests (with Encode, a test writes a
// kernel as a .klr file).

// Dtype returns the KLR dtype named name ("float32", "bfloat16", ...).
func Dtype(name string) klr.Dtype {
	for i := 0; i < 20; i++ {
		if klr.Dtype(i).String() == name {
			return klr.Dtype(i)
		}
	}
	panic("klrtest: unknown KLR dtype " + name)
}

// AluOp returns the KLR ALU operation named name ("add", "mult", ...).
func AluOp(name string) klr.AluOp {
	for i := 0; i < 29; i++ {
		if klr.AluOp(i).String() == name {
			return klr.AluOp(i)
		}
	}
	panic("klrtest: unknown ALU operation " + name)
}

func dtypeSize(name string) uint64 {
	d, err := bir.ParseDtype(name)
	if err != nil {
		panic(fmt.Sprintf("klrtest: %v", err))
	}
	return uint64(d.Size())
}

// HBM is an HBM tensor [par, free] of dtype dt.
func HBM(name, dt string, par, free uint64) klr.TensorName {
	return klr.TensorName{Name: name, Dtype: Dtype(dt), Shape: klr.Shape{ParDim: par, FreeDims: []uint64{free}},
		Address:      klr.Address{Name: name, Memory: klr.MemHBM, ParSize: par, FreeSize: free * dtypeSize(dt)},
		FreeElements: free}
}

// OnChip is an allocated SBUF or PSUM tensor [par, free] of dtype dt at
// partition parOff, byte freeOff.
func OnChip(name, dt string, mem klr.Memory, par, free, parOff, freeOff uint64) klr.TensorName {
	t := HBM(name, dt, par, free)
	t.Address.Memory = mem
	t.Address.ParOffset, t.Address.FreeOffset = klr.Some(parOff), klr.Some(freeOff)
	return t
}

// Tile is the birPattern access of rows p0..p0+np-1, columns f0..f0+nf-1.
func Tile(t klr.TensorName, p0, np, f0, nf uint64) klr.TensorRef {
	row := t.FreeElements
	return klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindBirPattern, Bir: &klr.BirAccessPattern{
		Tensor: t, Offset: int64(p0*row + f0),
		Pattern: []klr.APPair{{Step: int64(row), Num: np, Offset: int64(p0)}, {Step: 1, Num: nf, Offset: int64(f0)}}}}}
}

// Whole is the access of all of t.
func Whole(t klr.TensorName) klr.TensorRef { return Tile(t, 0, t.Shape.ParDim, 0, t.FreeElements) }

// Stmts wraps operators as statements at lines 10, 11, ... column 4 of
// k.py.
func Stmts(ops ...klr.Operator) []klr.Stmt {
	out := make([]klr.Stmt, len(ops))
	for i, op := range ops {
		out[i] = klr.Stmt{Op: op, Pos: klr.Pos{Line: uint64(10 + i), Column: 4, Filename: klr.Some("k.py")}}
	}
	return out
}

// Kernel is a one-core kernel of one block holding ops (Stmts).
func Kernel(name string, ins, outs []klr.TensorName, ops ...klr.Operator) *klr.LncKernel {
	return &klr.LncKernel{Name: name, Inputs: ins, Outputs: outs,
		Bodies: [][]klr.Block{{{Label: "main.1", Body: Stmts(ops...)}}}}
}

// DMA is an ncDmaCopy dst <- src that errors out of bounds.
func DMA(dst, src klr.TensorRef) klr.Operator {
	return &klr.NcDmaCopy{Dst: dst, Src: src, OobMode: klr.DmaBounds{Kind: klr.BoundsError}}
}

// FloatImm is a float immediate operand.
func FloatImm(v float32) klr.Operand {
	return klr.Operand{Kind: klr.OperandImm, Imm: klr.Immediate{Kind: klr.ImmFloat, Float: v}}
}
