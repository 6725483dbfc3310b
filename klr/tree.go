// The decode tree: a JSON rendering of a decoded file in the shape of the
// fixtures' NAME.decoded.json (structures as objects with "_type",
// constructors with "_ctor", enum-like values as "Type.ctor", Option as
// null or {"some": v}, proof fields omitted). It serves two purposes: the
// reader's golden tests compare it with the fixtures, and users can dump a
// kernel to see exactly what narwhal read (narwhal's `klr` tooling and
// error reports).
//
// Items kept raw (unknown operators, TensorSram/TensorHbm views,
// AccessPattern.fixedAxis, NcDmaCopy.priority) render generically: a
// constructor as {"_type": name-or-"tag<N>", "_ctor": index, "args": [...]},
// Option as null / {"some": v}, other CBOR items as their JSON values.
package klr

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Obj is a JSON object that keeps its key order.
type Obj struct {
	keys []string
	vals []any
}

func obj(kv ...any) *Obj {
	o := &Obj{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.keys = append(o.keys, kv[i].(string))
		o.vals = append(o.vals, kv[i+1])
	}
	return o
}

func (o *Obj) add(k string, v any) *Obj {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	return o
}

// MarshalJSON writes the object with its keys in order.
func (o *Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Tree returns the decode tree of f; json.Marshal renders it.
func (f *File) Tree() any {
	c := obj("_type", "Contents", "_ctor", f.Contents.CtorName())
	if f.Contents.Lnc != nil {
		c.add("kernel", treeLnc(f.Contents.Lnc))
	} else if f.Contents.Kernel != nil {
		c.add("kernel", treeKernel(f.Contents.Kernel))
	}
	return obj(
		"header", obj("_type", "KLRFile", "major", f.Header.Major, "minor", f.Header.Minor, "patch", f.Header.Patch),
		"metadata", obj("_type", "KLRMetaData", "format", f.Metadata.Format),
		"contents", c,
	)
}

// MarshalTree returns the indented JSON decode tree.
func (f *File) MarshalTree() ([]byte, error) { return json.MarshalIndent(f.Tree(), "", " ") }

func enumStr(typ string, names []string, v int) string { return typ + "." + enumName(names, v) }

func optTree[T any](o Opt[T], f func(T) any) any {
	if !o.Valid {
		return nil
	}
	return obj("some", f(o.V))
}

func list[T any](xs []T, f func(*T) any) []any {
	out := make([]any, len(xs))
	for i := range xs {
		out[i] = f(&xs[i])
	}
	return out
}

func natList(xs []uint64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func treeTensorNames(ts []TensorName) []any { return list(ts, treeTensorName) }

func treeKernel(k *Kernel) any {
	return obj("_type", "Kernel", "name", k.Name, "inputs", treeTensorNames(k.Inputs),
		"outputs", treeTensorNames(k.Outputs), "body", list(k.Body, treeBlock))
}

func treeLnc(k *LncKernel) any {
	bodies := make([]any, len(k.Bodies))
	for i, b := range k.Bodies {
		bodies[i] = list(b, treeBlock)
	}
	return obj("_type", "LncKernel", "name", k.Name, "inputs", treeTensorNames(k.Inputs),
		"outputs", treeTensorNames(k.Outputs), "bodies", bodies,
		"sharedConstants", list(k.SharedConstants, func(s *SharedConstantFile) any {
			return obj("_type", "SharedConstantFile", "name", s.Name, "fileName", s.FileName)
		}),
		"sharedBuffers", treeTensorNames(k.SharedBuffers),
		"edges", list(k.Edges, func(e *Edge) any {
			to := make([]any, len(e.ToEdges))
			for i, s := range e.ToEdges {
				to[i] = s
			}
			return obj("_type", "Edge", "fromEdge", e.FromEdge, "toEdges", to)
		}))
}

func treeBlock(b *Block) any {
	return obj("_type", "Block", "label", b.Label, "noReorder", b.NoReorder, "body", list(b.Body, treeStmt))
}

func treeStmt(s *Stmt) any {
	return obj("_type", "Stmt", "_ctor", "oper", "op", treeOperator(s.Op),
		"name", optTree(s.Name, func(v string) any { return v }), "pos", treePos(&s.Pos))
}

func treePos(p *Pos) any {
	nat := func(v uint64) any { return v }
	return obj("_type", "Pos", "line", p.Line, "column", p.Column,
		"lineEnd", optTree(p.LineEnd, nat), "columnEnd", optTree(p.ColumnEnd, nat),
		"filename", optTree(p.Filename, func(v string) any { return v }))
}

func treeDtype(d Dtype) any { return enumStr("Dtype", dtypeNames, int(d)) }

func treeTensorName(t *TensorName) any {
	a := &t.Address
	nat := func(v uint64) any { return v }
	return obj("_type", "TensorName", "name", t.Name, "dtype", treeDtype(t.Dtype),
		"shape", obj("_type", "Shape", "parDim", t.Shape.ParDim, "freeDims", natList(t.Shape.FreeDims)),
		"address", obj("_type", "Address", "name", a.Name, "memory", enumStr("Memory", memoryNames, int(a.Memory)),
			"parSize", a.ParSize, "freeSize", a.FreeSize,
			"parOffset", optTree(a.ParOffset, nat), "freeOffset", optTree(a.FreeOffset, nat),
			"isShared", a.IsShared),
		"freeElements", t.FreeElements, "addressRotation", t.AddressRotation)
}

func treeAPPair(p *APPair) any {
	return obj("_type", "APPair", "step", p.Step, "num", p.Num, "offset", p.Offset)
}

func treeAccess(a *Access) any {
	o := obj("_type", "Access", "_ctor", a.KindName())
	switch a.Kind {
	case AccessKindSimple:
		o.add("tensor", treeTensorName(a.Simple))
	case AccessKindBasic:
		b := a.Basic
		o.add("access", obj("_type", "AccessBasic", "tensor", treeTensorName(&b.Tensor),
			"indexes", list(b.Indexes, func(x *Index) any {
				if x.Kind == IndexCoord {
					return obj("_type", "Index", "_ctor", "coord", "e", x.Coord)
				}
				return obj("_type", "Index", "_ctor", "slice", "slice",
					obj("_type", "Slice", "l", x.Slice.L, "u", x.Slice.U, "step", x.Slice.Step))
			})))
	case AccessKindPattern:
		p := a.Pattern
		o.add("access", obj("_type", "AccessPattern", "tensor", treeTensorName(&p.Tensor), "parNum", p.ParNum,
			"pattern", list(p.Pattern, treeAPPair), "parOffset", p.ParOffset, "freeOffset", p.FreeOffset,
			"fixedAxis", treeRaw(&p.FixedAxis)))
	default:
		b := a.Bir
		o.add("access", obj("_type", "BirAccessPattern", "tensor", treeTensorName(&b.Tensor), "offset", b.Offset,
			"pattern", list(b.Pattern, treeAPPair),
			"scalarOffset", optTree(b.ScalarOffset, func(s ScalarOffset) any {
				if s.Kind == ScalarOffsetReg {
					return obj("_type", "ScalarOffset", "_ctor", "reg", "r", s.Reg)
				}
				return obj("_type", "ScalarOffset", "_ctor", "acc", "a", treeAccess(s.Acc))
			}),
			"vectorOffset", optTree(b.VectorOffset, func(v *Access) any { return treeAccess(v) }),
			"indirectDim", b.IndirectDim,
			"dtypeOverride", optTree(b.DtypeOverride, treeDtype)))
	}
	return o
}

func treeRef(r *TensorRef) any {
	o := obj("_type", "TensorRef", "_ctor", r.KindName())
	switch r.Kind {
	case RefAbstract:
		o.add("access", treeAccess(r.Access))
	case RefRegister:
		o.add("reg", r.Reg)
	default:
		o.add("view", treeRaw(&r.View))
	}
	return o
}

func treeFloat(f float32) any {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return v
}

func treeImm(x *Immediate) any {
	o := obj("_type", "Immediate", "_ctor", x.KindName())
	switch x.Kind {
	case ImmRegister:
		o.add("reg", x.Reg)
	case ImmInt:
		o.add("i", x.Int)
	case ImmFloat:
		o.add("f", treeFloat(x.Float))
	}
	return o
}

func treeOperand(x *Operand) any {
	if x.Kind == OperandImm {
		return obj("_type", "Operand", "_ctor", "imm", "i", treeImm(&x.Imm))
	}
	return obj("_type", "Operand", "_ctor", "tile", "t", treeRef(x.Tile))
}

func treeBounds(b DmaBounds) any {
	o := obj("_type", "DmaBounds", "_ctor", b.KindName())
	if b.Kind == BoundsReg {
		o.add("reg", b.Reg)
	}
	return o
}

func treeEngine(e Engine) any { return enumStr("Engine", engineNames, int(e)) }
func treeAlu(a AluOp) any     { return enumStr("AluOp", aluOpNames, int(a)) }
func treeOptDtype(d Opt[Dtype]) any {
	return optTree(d, treeDtype)
}
func treeOptRef(r Opt[TensorRef]) any {
	return optTree(r, func(v TensorRef) any { return treeRef(&v) })
}

func treeOperator(op Operator) any {
	var payload any
	switch o := op.(type) {
	case *Activate:
		payload = obj("_type", "Activate", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"accumulatorCmd", enumStr("AccumCmd", accumCmdNames, int(o.AccumulatorCmd)),
			"activationFunc", enumStr("ActivationFunc", activationFuncNames, int(o.ActivationFunc)),
			"scale", treeImm(&o.Scale), "bias", treeImm(&o.Bias), "imm", treeImm(&o.Imm))
	case *NcActivate:
		payload = obj("_type", "NcActivate", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"accumulatorCmd", enumStr("AccumCmd", accumCmdNames, int(o.AccumulatorCmd)),
			"activationFunc", enumStr("ActivationFunc", activationFuncNames, int(o.ActivationFunc)),
			"scale", treeOperand(&o.Scale), "bias", treeOptRef(o.Bias),
			"reduceOp", optTree(o.ReduceOp, treeAlu), "reduceRes", treeOptRef(o.ReduceRes),
			"dtype", treeOptDtype(o.Dtype))
	case *Copy:
		payload = obj("_type", "Copy", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"opDim", optTree(o.OpDim, func(v TensorSubDim) any { return enumStr("TensorSubDim", tensorSubDimNames, int(v)) }))
	case *NcCopy:
		payload = obj("_type", "NcCopy", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"dtype", treeOptDtype(o.Dtype), "engine", treeEngine(o.Engine))
	case *DmaCopy:
		payload = obj("_type", "DmaCopy", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"compute_op", enumStr("DgeComputeOp", dgeComputeOpNames, int(o.ComputeOp)),
			"dstBoundsCheck", treeBounds(o.DstBoundsCheck), "srcBoundsCheck", treeBounds(o.SrcBoundsCheck))
	case *NcDmaCopy:
		payload = obj("_type", "NcDmaCopy", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"compute_op", enumStr("DgeComputeOp", dgeComputeOpNames, int(o.ComputeOp)),
			"oobMode", treeBounds(o.OobMode), "dgeMode", o.DgeMode, "uniqueIndices", o.UniqueIndices,
			"priority", optTree(o.Priority, func(r Raw) any { return treeRaw(&r) }),
			"engine", treeEngine(o.Engine))
	case *Iota:
		payload = obj("_type", "Iota", "dst", treeRef(&o.Dst),
			"pattern", obj("_type", "DataPattern", "offset", o.Pattern.Offset,
				"pattern", list(o.Pattern.Pattern, treeAPPair), "channelMultiplier", o.Pattern.ChannelMultiplier),
			"dtype", treeOptDtype(o.Dtype))
	case *LoadStationary:
		payload = obj("_type", "LoadStationary", "src", treeRef(&o.Src), "isTranspose", o.IsTranspose)
	case *MatMul:
		payload = obj("_type", "MatMul", "dst", treeRef(&o.Dst), "moving", treeRef(&o.Moving))
	case *NcMatMul:
		payload = obj("_type", "NcMatMul", "dst", treeRef(&o.Dst), "stationary", treeRef(&o.Stationary),
			"moving", treeRef(&o.Moving), "isStationaryOneZero", o.IsStationaryOneZero,
			"isMovingZero", o.IsMovingZero, "isTranspose", o.IsTranspose,
			"tilePosition", natList(o.TilePosition), "tileSize", natList(o.TileSize),
			"perfMode", enumStr("MatmulPerfMode", matmulPerfModeNames, int(o.PerfMode)))
	case *MemSet:
		payload = obj("_type", "MemSet", "dst", treeRef(&o.Dst), "value", treeImm(&o.Value),
			"dtype", treeDtype(o.Dtype), "engine", treeEngine(o.Engine))
	case *TensorReduce:
		payload = obj("_type", "TensorReduce", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"op", treeAlu(o.Op), "opDim", enumStr("TensorSubDim", tensorSubDimNames, int(o.OpDim)),
			"negated", o.Negated, "dtype", treeOptDtype(o.Dtype), "keepdims", o.Keepdims)
	case *TensorScalar:
		payload = obj("_type", "TensorScalar", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"imm0", treeOperand(&o.Imm0), "op0", treeAlu(o.Op0),
			"imm1", optTree(o.Imm1, func(v Operand) any { return treeOperand(&v) }),
			"op1", optTree(o.Op1, treeAlu),
			"reverse", enumStr("TensorScalarReverseOps", reverseOpsNames, int(o.Reverse)),
			"engine", treeEngine(o.Engine), "dtype", treeOptDtype(o.Dtype))
	case *TensorTensor:
		payload = obj("_type", "TensorTensor", "dst", treeRef(&o.Dst), "src0", treeRef(&o.Src0),
			"src1", treeRef(&o.Src1), "op", treeAlu(o.Op), "dtype", treeOptDtype(o.Dtype),
			"engine", treeEngine(o.Engine))
	case *Transpose:
		payload = obj("_type", "Transpose", "dst", treeRef(&o.Dst), "src", treeRef(&o.Src),
			"dtype", treeOptDtype(o.Dtype), "engine", treeEngine(o.Engine))
	case *UnknownOperator:
		args := list(o.Args, treeRaw)
		if len(args) == 1 {
			payload = args[0]
		} else {
			payload = args
		}
	}
	return obj("_type", "Operator", "_ctor", op.Name(), "op", payload)
}

// treeRaw renders a generically decoded item.
func treeRaw(r *Raw) any {
	switch r.Kind {
	case RawUint:
		return r.Uint
	case RawNegInt:
		if r.Uint <= math.MaxInt64 {
			return -1 - int64(r.Uint)
		}
		return "-1-" + strconv.FormatUint(r.Uint, 10)
	case RawText, RawBytes:
		return r.Str
	case RawArray, RawMap:
		return list(r.Items, treeRaw)
	case RawBool:
		return r.Bool
	case RawNull, RawUndefined:
		return nil
	case RawFloat:
		if math.IsNaN(r.Float) || math.IsInf(r.Float, 0) {
			return treeFloat(float32(r.Float))
		}
		return r.Float
	case RawSimple:
		return obj("_simple", r.Uint)
	case RawTag:
		return obj("_tag", r.TagNum, "value", list(r.Items, treeRaw))
	}
	// RawCtor.
	if r.Type == 0xff {
		if r.Ctor == 0 || len(r.Items) == 0 {
			return nil
		}
		return obj("some", treeRaw(&r.Items[0]))
	}
	name, ok := typeNames[r.Type]
	if !ok {
		name = "tag" + strconv.Itoa(int(r.Type))
	}
	return obj("_type", name, "_ctor", int(r.Ctor), "args", list(r.Items, treeRaw))
}
