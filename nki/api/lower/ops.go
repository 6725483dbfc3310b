package lower

// The NKI operations and the BIR instructions they become. Engines follow
// the NKI documentation (nki.isa: nc_matmul and nc_transpose on the Tensor
// engine, activation on the Scalar engine, tensor_tensor, tensor_scalar,
// tensor_reduce, memset, bn_stats, bn_aggr on the Vector engine, iota and
// affine_select on GpSimd, tensor_tensor with power on GpSimd, DMAs on the
// DMA queues); where the documentation lets the compiler choose (engine=
// unknown_engine: tensor_copy, reciprocal, nc_transpose of small tiles),
// the caller passes the engine (the binding's defaults, docs/nki.md).
//
// Every operation checks the tile rules the NKI documentation states
// (partitions <= nl.tile_size.pmax, matmul sizes, memories each engine may
// read and write) and raises an NKIError naming the operation, the tile
// and the numbers.

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Scalar is a per-partition operand of tensor_scalar and activation: a
// constant, a [P, 1] tile (one value per partition), or none.
type Scalar struct {
	Tile  *Access
	Value float64
	None  bool
}

// Const returns the constant scalar v.
func Const(v float64) Scalar { return Scalar{Value: v} }

// NoScalar is the absent scalar (op1=None).
var NoScalar = Scalar{None: true}

func (k *Kernel) checkOnChip(what string, a Access) error {
	if !a.T.IsOnChip() {
		return k.Errorf(KindNKI, "%s takes tiles in SBUF or PSUM; %s is in HBM (load it with nl.load)", what, a.T.Describe())
	}
	if p := a.Partitions(); p > PMax {
		return k.Errorf(KindNKI, "partition dimension %d of %s exceeds %d (nl.tile_size.pmax)", p, a.T.Describe(), PMax)
	}
	return nil
}

func (k *Kernel) checkNotBothPSUM(what string, a, b Access) error {
	if a.T.Mem == PSUM && b.T.Mem == PSUM {
		return k.Errorf(KindNKI, "%s: the inputs %s and %s cannot both be in PSUM", what, a.T.Describe(), b.T.Describe())
	}
	return nil
}

func (k *Kernel) checkEngineMem(what string, eng bir.Engine, as ...Access) error {
	if eng != bir.EngPool {
		return nil
	}
	for _, a := range as {
		if a.T.Mem == PSUM {
			return k.Errorf(KindNKI, "%s runs on the GpSimd engine, which cannot access PSUM (%s)", what, a.T.Describe())
		}
	}
	return nil
}

func tileShapeOf(a Access) []int64 {
	s := a.Shape()
	if len(s) == 0 {
		return []int64{1}
	}
	return s
}

// Load is nl.load: a DMA from an HBM region into a new SBUF tile of
// dtype dt.
func (k *Kernel) Load(src Access, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if src.T.IsOnChip() {
		return nil, k.Errorf(KindNKI, "nl.load reads HBM; %s is in %s (use nl.copy)", src.T.Describe(), src.T.Mem)
	}
	shape := tileShapeOf(src)
	if shape[0] > PMax {
		return nil, k.Errorf(KindNKI, "partition dimension %d of the tile nl.load makes from %s exceeds %d (nl.tile_size.pmax)", shape[0], src.T.Describe(), PMax)
	}
	s := &spec{op: bir.OpLoad, eng: bir.EngUnassigned, base: "load", what: "nl.load", ins: []Opd{AccOpd(src)}, mask: mask}
	return k.newResult(s, dt, shape, SBUF, axesOf(src))
}

// LoadTranspose2D is nl.load_transpose2d: a DMA of a 2-D HBM region
// [P, F] into a new SBUF tile [F, P] (the DMA walks the source
// column-major).
func (k *Kernel) LoadTranspose2D(src Access, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if src.T.IsOnChip() || len(src.Dims) != 2 {
		return nil, k.Errorf(KindNKI, "nl.load_transpose2d reads a 2-D HBM region; have %s", src.Describe())
	}
	t := src.clone()
	t.Dims[0], t.Dims[1] = t.Dims[1], t.Dims[0]
	if t.Dims[0].Num > PMax {
		return nil, k.Errorf(KindNKI, "partition dimension %d of the tile nl.load_transpose2d makes exceeds %d (nl.tile_size.pmax)", t.Dims[0].Num, PMax)
	}
	s := &spec{op: bir.OpLoad, eng: bir.EngUnassigned, base: "load_transpose2d", what: "nl.load_transpose2d", ins: []Opd{AccOpd(t)}, mask: mask}
	return k.newResult(s, dt, t.Shape(), SBUF, axesOf(t))
}

// Store is nl.store: a DMA from a tile to an HBM region. A PSUM tile is
// copied to SBUF first (the DMA does not read PSUM), as the NKI
// documentation says.
func (k *Kernel) Store(dst, src Access, mask Mask) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if dst.T.IsOnChip() {
		return k.Errorf(KindNKI, "nl.store writes HBM; %s is in %s", dst.T.Describe(), dst.T.Mem)
	}
	if !src.T.IsOnChip() {
		return k.DMA(dst, src, mask)
	}
	if dst.Elems() != src.Elems() {
		return k.Errorf(KindNKI, "nl.store: %s has shape %s, the value %s has shape %s", dst.T.Describe(), shapeString(dst.Shape()), src.T.Describe(), shapeString(src.Shape()))
	}
	if src.T.Mem == PSUM {
		r, err := k.Copy(src, bir.EngDVE, src.Dtype, Mask{})
		if err != nil {
			return err
		}
		if src, err = r.Access(); err != nil {
			return err
		}
	}
	s := &spec{op: bir.OpSave, eng: bir.EngUnassigned, base: "store", what: "nl.store", ins: []Opd{AccOpd(src)}, out: &dst, mask: mask, pos: k.pos}
	_, err := k.emit(s)
	return err
}

// DMA is nisa.dma_copy (and an HBM-to-HBM assignment): Load, Save or
// DMACopy by the memories (PSUM is not a DMA endpoint).
func (k *Kernel) DMA(dst, src Access, mask Mask) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if dst.T.Mem == PSUM || src.T.Mem == PSUM {
		return k.Errorf(KindNKI, "nisa.dma_copy cannot access PSUM (%s -> %s)", src.T.Describe(), dst.T.Describe())
	}
	if dst.Elems() != src.Elems() {
		return k.Errorf(KindNKI, "nisa.dma_copy: %s has %d elements, %s has %d", src.T.Describe(), src.Elems(), dst.T.Describe(), dst.Elems())
	}
	s := &spec{eng: bir.EngUnassigned, ins: []Opd{AccOpd(src)}, out: &dst, mask: mask, pos: k.pos, what: "nisa.dma_copy"}
	switch {
	case !src.T.IsOnChip() && dst.T.IsOnChip():
		s.op, s.base = bir.OpLoad, "dma_load"
	case src.T.IsOnChip() && !dst.T.IsOnChip():
		s.op, s.base = bir.OpSave, "dma_store"
	default:
		s.op, s.base, s.attrs = bir.OpDMACopy, "dma_copy", bir.Attrs("mode", "Copy")
	}
	_, err := k.emit(s)
	return err
}

// DMATranspose is nisa.dma_transpose of a 2-D tile or HBM region: a DMA in
// transpose mode into a new SBUF tile (2-byte dtypes).
func (k *Kernel) DMATranspose(src Access, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if len(src.Dims) != 2 || src.T.Mem == PSUM {
		return nil, k.Errorf(KindNotSupported, "nisa.dma_transpose of %s: narwhal transposes 2-D tiles in HBM or SBUF", src.Describe())
	}
	shape := []int64{src.Dims[1].Num, src.Dims[0].Num}
	if shape[0] > PMax {
		return nil, k.Errorf(KindNKI, "partition dimension %d of the tile nisa.dma_transpose makes exceeds %d (nl.tile_size.pmax)", shape[0], PMax)
	}
	ax := axesOf(src)
	ref := [][]GridAxis{ax[1], ax[0]}
	if src.Dtype.Size() == 2 {
		// The DMA engine's transpose (2-byte elements).
		s := &spec{op: bir.OpDMACopy, eng: bir.EngUnassigned, base: "dma_transpose", what: "nisa.dma_transpose", ins: []Opd{AccOpd(src)}, attrs: bir.Attrs("mode", "Transpose"), mask: mask}
		return k.newResult(s, src.Dtype, shape, SBUF, ref)
	}
	// Other element sizes (the legacy reference names no dtype limit): a
	// copy DMA whose source walks the region column-major, the same
	// permutation.
	t := src.clone()
	t.Dims[0], t.Dims[1] = t.Dims[1], t.Dims[0]
	s := &spec{eng: bir.EngUnassigned, base: "dma_transpose", what: "nisa.dma_transpose", ins: []Opd{AccOpd(t)}, mask: mask}
	if src.T.IsOnChip() {
		s.op, s.attrs = bir.OpDMACopy, bir.Attrs("mode", "Copy")
	} else {
		s.op = bir.OpLoad
	}
	return k.newResult(s, src.Dtype, shape, SBUF, axesOf(t))
}

// Copy is nl.copy / nisa.tensor_copy: a TensorCopy into a new SBUF tile.
func (k *Kernel) Copy(src Access, eng bir.Engine, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip("nisa.tensor_copy", src); err != nil {
		return nil, err
	}
	if err := k.checkEngineMem("nisa.tensor_copy", eng, src); err != nil {
		return nil, err
	}
	s := &spec{op: bir.OpTensorCopy, eng: eng, base: "copy", what: "nl.copy", ins: []Opd{AccOpd(src)}, mask: mask}
	return k.newResult(s, dt, tileShapeOf(src), SBUF, axesOf(src))
}

// TensorTensor is dst = x op y elementwise (nl.add, nisa.tensor_tensor,
// tile operators) into a new SBUF tile of dtype dt.
func (k *Kernel) TensorTensor(what, op string, x, y Access, eng bir.Engine, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	for _, a := range []Access{x, y} {
		if err := k.checkOnChip(what, a); err != nil {
			return nil, err
		}
	}
	if !sameLayout(x, y) {
		return nil, k.Errorf(KindNKI, "%s: the shapes of %s %s and %s %s differ", what, x.T.Describe(), shapeString(x.Shape()), y.T.Describe(), shapeString(y.Shape()))
	}
	if err := k.checkNotBothPSUM(what, x, y); err != nil {
		return nil, err
	}
	if err := k.checkEngineMem(what, eng, x, y); err != nil {
		return nil, err
	}
	s := &spec{op: bir.OpTensorTensor, eng: eng, base: baseName(what), what: what, ins: []Opd{AccOpd(x), AccOpd(y)},
		attrs: bir.Attrs("op", op, "acc", "Idle"), mask: mask}
	return k.newResult(s, dt, tileShapeOf(x), SBUF, mergeAxes(axesOf(x), axesOf(y)))
}

// mergeAxes unions the grid axes of two operands' dimensions by position.
func mergeAxes(a, b [][]GridAxis) [][]GridAxis {
	if len(a) != len(b) {
		return a
	}
	out := make([][]GridAxis, len(a))
	for i := range a {
		out[i] = slices.Clone(a[i])
		for _, g := range b[i] {
			if !slices.Contains(out[i], g) {
				out[i] = append(out[i], g)
			}
		}
	}
	return out
}

func baseName(what string) string {
	for i := len(what) - 1; i >= 0; i-- {
		if what[i] == '.' {
			return what[i+1:]
		}
	}
	return what
}

func (k *Kernel) scalarOpd(what string, x Access, s Scalar) (Opd, bool, error) {
	if s.Tile == nil {
		return ImmOpd(s.Value), false, nil
	}
	t := *s.Tile
	if err := k.checkOnChip(what, t); err != nil {
		return Opd{}, false, err
	}
	if t.Partitions() != x.Partitions() || t.FreeElems() != 1 {
		return Opd{}, false, k.Errorf(KindNKI, "%s: the scalar operand %s must have one element per partition and %d partitions (shape (%d, 1)), have shape %s", what, t.T.Describe(), x.Partitions(), x.Partitions(), shapeString(t.Shape()))
	}
	return AccOpd(t), true, nil
}

// TensorScalar is dst = (x op0 s0) op1 s1 with constants or [P, 1] tiles
// (nisa.tensor_scalar, and the tile-with-scalar forms of nl.add ...):
// TensorScalar with immediates, TensorScalarPtr when a scalar is a tile.
func (k *Kernel) TensorScalar(what string, x Access, op0 string, s0 Scalar, rev0 bool, op1 string, s1 Scalar, rev1 bool, eng bir.Engine, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return nil, err
	}
	o0, ptr0, err := k.scalarOpd(what, x, s0)
	if err != nil {
		return nil, err
	}
	if op1 == "" || s1.None {
		op1, s1 = "bypass", Const(0)
	}
	o1, ptr1, err := k.scalarOpd(what, x, s1)
	if err != nil {
		return nil, err
	}
	s := &spec{eng: eng, base: baseName(what), what: what, mask: mask}
	if ptr0 || ptr1 {
		s.op = bir.OpTensorScalarPtr
		s.ins = []Opd{AccOpd(x), o0, o1}
		s.attrs = bir.Attrs("op0", op0, "reverse0", rev0, "op1", op1, "reverse1", rev1)
	} else {
		s.op = bir.OpTensorScalar
		s.ins = []Opd{AccOpd(x)}
		s.attrs = bir.Attrs("op0", op0, "const0", bir.Float(s0.Value), "reverse0", rev0, "op1", op1, "const1", bir.Float(s1.Value), "reverse1", rev1)
	}
	return k.newResult(s, dt, tileShapeOf(x), SBUF, axesOf(x))
}

// Activation is nisa.activation and the nl activation functions:
// dst = fn(x * scale + bias) on the Scalar engine. bias is a [P, 1] tile
// or nil; scale a constant or a [P, 1] tile.
func (k *Kernel) Activation(what, fn string, x Access, bias *Access, scale Scalar, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return nil, err
	}
	ins := []Opd{AccOpd(x)}
	if bias != nil {
		b, _, err := k.scalarOpd(what, x, Scalar{Tile: bias})
		if err != nil {
			return nil, err
		}
		ins = append(ins, b)
	}
	attrs := bir.Attrs("func", fn, "alpha", bir.Float(0), "acc", "Idle")
	if scale.Tile != nil {
		sc, _, err := k.scalarOpd(what, x, scale)
		if err != nil {
			return nil, err
		}
		if bias == nil {
			ins = append(ins, ImmOpd(0))
		}
		ins = append(ins, sc)
	} else {
		attrs = append(attrs, bir.Field{Key: "scale", Val: bir.Float(scale.Value)})
	}
	s := &spec{op: bir.OpActivation, eng: bir.EngAct, base: baseName(what), what: what, ins: ins, attrs: attrs, mask: mask}
	return k.newResult(s, dt, tileShapeOf(x), SBUF, axesOf(x))
}

// Reduce is dst = op over the free axes axes of x (nl.sum, nl.max, ...,
// nisa.tensor_reduce) on the Vector engine. axes must be the last
// dimensions of the tile (NKI: "can only be the last contiguous dim(s) of
// the tile"). keepdims keeps them with size 1.
func (k *Kernel) Reduce(what, op string, x Access, axes []int, keepdims, negate bool, eng bir.Engine, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return nil, err
	}
	nd := len(x.Dims)
	ax := slices.Clone(axes)
	for i, a := range ax {
		if a < 0 {
			ax[i] = a + nd
		}
	}
	slices.Sort(ax)
	ax = slices.Compact(ax)
	m := len(ax)
	ok := m >= 1 && m <= 4 && nd-m >= 1
	for i, a := range ax {
		ok = ok && a == nd-m+i
	}
	if !ok {
		return nil, k.Errorf(KindNKI, "%s: axis=%v of a tile of shape %s: the reduction axes must be the last free dimensions (the partition dimension 0 is not reducible)", what, axes, shapeString(x.Shape()))
	}
	axisName := []string{"X", "XY", "XYZ", "XYZW"}[m-1]
	var shape []int64
	var ref [][]GridAxis
	for i, d := range x.Dims {
		switch {
		case i < nd-m:
			shape = append(shape, d.Num)
			ref = append(ref, slices.Clone(d.Axes))
		case keepdims:
			shape = append(shape, 1)
			ref = append(ref, nil)
		}
	}
	s := &spec{op: bir.OpTensorReduce, eng: eng, base: baseName(what), what: what, ins: []Opd{AccOpd(x)},
		attrs: bir.Attrs("op", op, "axis", axisName, "negate", negate), mask: mask}
	return k.newResult(s, dt, shape, SBUF, ref)
}

// Matmul is nisa.nc_matmul: stationary[K, M]^T @ moving[K, N] on the
// Tensor engine into a new float32 PSUM tile [M, N]. Accumulation (+=)
// and the start/stop flags: accum.go.
func (k *Kernel) Matmul(what string, stationary, moving Access, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	for _, a := range []Access{stationary, moving} {
		if err := k.checkOnChip(what, a); err != nil {
			return nil, err
		}
		if a.T.Mem == PSUM {
			return nil, k.Errorf(KindNKI, "%s reads its inputs from SBUF; %s is in PSUM (copy it to SBUF first)", what, a.T.Describe())
		}
	}
	K1, K2 := stationary.Partitions(), moving.Partitions()
	if K1 != K2 {
		return nil, k.Errorf(KindNKI, "%s: contraction sizes differ: the stationary operand %s has %d partitions, the moving operand %s %d", what, stationary.T.Describe(), K1, moving.T.Describe(), K2)
	}
	M, N := stationary.FreeElems(), moving.FreeElems()
	if M > GemmStationaryFMax {
		return nil, k.Errorf(KindNKI, "%s: the stationary operand %s has %d columns, more than %d (nl.tile_size.gemm_stationary_fmax)", what, stationary.T.Describe(), M, GemmStationaryFMax)
	}
	if N > GemmMovingFMax {
		return nil, k.Errorf(KindNKI, "%s: the moving operand %s has %d columns, more than %d (nl.tile_size.gemm_moving_fmax)", what, moving.T.Describe(), N, GemmMovingFMax)
	}
	s := &spec{op: bir.OpMatmult, eng: bir.EngPE, base: "matmul", what: what, ins: []Opd{AccOpd(stationary), AccOpd(moving)},
		attrs: bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", true), mask: mask}
	var ref [][]GridAxis
	sa, ma := axesOf(stationary), axesOf(moving)
	if len(sa) == 2 && len(ma) == 2 {
		ref = [][]GridAxis{sa[1], ma[1]}
	}
	r, err := k.newResult(s, bir.Float32, []int64{M, N}, PSUM, ref)
	if r != nil {
		r.matmul = true
	}
	return r, err
}

// Transpose is nisa.nc_transpose: x[P, F] to a new tile [F, P], on the
// Tensor engine (SBUF to PSUM, up to 128 x 128) or the Vector engine (up
// to 32 x 32, SBUF or PSUM).
func (k *Kernel) Transpose(what string, x Access, eng bir.Engine, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return nil, err
	}
	P, F := x.Partitions(), x.FreeElems()
	mem := SBUF
	switch eng {
	case bir.EngPE:
		if x.T.Mem == PSUM {
			return nil, k.Errorf(KindNKI, "%s on the Tensor engine reads SBUF; %s is in PSUM", what, x.T.Describe())
		}
		if F > PMax {
			return nil, k.Errorf(KindNKI, "%s: %s has %d elements per partition; the Tensor engine transposes up to 128 x 128", what, x.T.Describe(), F)
		}
		mem = PSUM
	case bir.EngDVE:
		if P > 32 || F > 32 {
			return nil, k.Errorf(KindNKI, "%s on the Vector engine transposes up to 32 x 32; %s is %d x %d", what, x.T.Describe(), P, F)
		}
	default:
		return nil, k.Errorf(KindNKI, "%s runs on the Tensor or the Vector engine", what)
	}
	s := &spec{op: bir.OpTranspose, eng: eng, base: "transpose", what: what, ins: []Opd{AccOpd(x)}, mask: mask}
	var ref [][]GridAxis
	if ax := axesOf(x); len(ax) == 2 {
		ref = [][]GridAxis{ax[1], ax[0]}
	}
	return k.newResult(s, x.Dtype, []int64{F, P}, mem, ref)
}

// Memset fills dst with value (nisa.memset into a region, a number
// assigned to a tile).
func (k *Kernel) Memset(dst Access, value float64, eng bir.Engine, mask Mask) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if err := k.checkOnChip("nisa.memset", dst); err != nil {
		return err
	}
	if err := k.checkEngineMem("nisa.memset", eng, dst); err != nil {
		return err
	}
	s := &spec{op: bir.OpMemset, eng: eng, base: "memset", what: "nisa.memset", attrs: bir.Attrs("mode", "Const", "constant", bir.Float(value)), mask: mask}
	r, err := k.newResult(s, dst.Dtype, dst.Shape(), dst.T.Mem, axesOf(dst))
	if err != nil {
		return err
	}
	k.pending = nil
	return r.place(dst, false)
}

// NewMemset is nisa.memset(shape, value, dtype): a new SBUF tile filled
// with value.
func (k *Kernel) NewMemset(shape []int64, value float64, dt bir.Dtype, eng bir.Engine, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if len(shape) == 0 || shape[0] > PMax {
		return nil, k.Errorf(KindNKI, "nisa.memset: the partition dimension of shape %v exceeds %d (nl.tile_size.pmax)", shape, PMax)
	}
	s := &spec{op: bir.OpMemset, eng: eng, base: "memset", what: "nisa.memset", attrs: bir.Attrs("mode", "Const", "constant", bir.Float(value)), mask: mask}
	return k.newResult(s, dt, shape, SBUF, nil)
}

// Fill makes an on-chip tensor filled with value (nl.zeros, nl.ones,
// nl.full): one Memset per tile; a tensor with several logical blocks is
// filled by a loop over them.
func (k *Kernel) Fill(name string, mem Memory, dt bir.Dtype, shape []int64, parDim int, places []Place, value float64) (*Tensor, error) {
	t, err := k.NewTile(name, mem, dt, shape, parDim, places)
	if err != nil {
		return nil, err
	}
	nb := elemsOf(t.blockDims)
	if nb == 1 {
		a := t.tileAccess(affine.Const(0))
		if err := k.Memset(a, value, bir.EngDVE, Mask{}); err != nil {
			return nil, err
		}
		return t, nil
	}
	l, err := k.BeginLoop("block", 0, nb, 1)
	if err != nil {
		return nil, err
	}
	a := t.tileAccess(affine.Var(l.Axis))
	s := &spec{op: bir.OpMemset, eng: bir.EngDVE, base: "memset", what: "nl.zeros", ins: nil, out: &a,
		attrs: bir.Attrs("mode", "Const", "constant", bir.Float(value)), pos: k.pos}
	if _, err := k.emit(s); err != nil {
		return nil, err
	}
	if err := k.EndLoop(l); err != nil {
		return nil, err
	}
	if mem == PSUM {
		if value == 0 {
			k.noteZero(t, bir.NoInst, false)
		} else {
			k.noteWrite(t, "nl.full")
		}
	}
	return t, nil
}

// tileAccess is the whole tile of logical block b (linear) of t in the
// current iteration.
func (t *Tensor) tileAccess(b affine.Expr) Access {
	a := Access{T: t, Dtype: t.Dtype, Offset: affine.Const(0)}
	block := b
	if len(t.iters) > 0 {
		block = affine.Add(block, affine.Scale(iterLinear(t.iters), elemsOf(t.blockDims)))
	}
	if pb, err := t.physBlock(block); err == nil {
		block = pb
	}
	a.Block = block
	st := rowMajorStrides(t.tile)
	for i, n := range t.tile {
		a.Dims = append(a.Dims, Dim{Step: st[i], Num: n})
	}
	return a
}

// Iota is nisa.iota: a new SBUF tile of dtype dt holding the values of
// the affine grid expression expr (GpSimd). expr's partition grid (tile
// dimension 0) gives the channel multiplier, the other grid dimensions the
// pattern, its constant the base.
func (k *Kernel) Iota(expr Index, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	attrs, shape, ref, err := k.iotaAttrs("nisa.iota", expr)
	if err != nil {
		return nil, err
	}
	s := &spec{op: bir.OpIota, eng: bir.EngPool, base: "iota", what: "nisa.iota", attrs: attrs, mask: mask}
	return k.newResult(s, dt, shape, SBUF, ref)
}

func (k *Kernel) iotaAttrs(what string, expr Index) (bir.AttrSet, []int64, [][]GridAxis, error) {
	shape, err := expr.Shape()
	if err != nil {
		return nil, nil, nil, k.at(err)
	}
	if len(shape) == 0 {
		shape = []int64{1}
	}
	if len(shape) > 5 {
		return nil, nil, nil, k.Errorf(KindNotSupported, "%s of a %d-dimensional grid: the pattern has up to 4 free dimensions", what, len(shape))
	}
	if !expr.Sym.IsConst() {
		return nil, nil, nil, k.needConcrete(expr.Sym.Axes(nil), "the base of "+what, expr.Format(k.axisName))
	}
	R := len(shape)
	coef := make([]int64, R)
	ref := make([][]GridAxis, R)
	for _, t := range expr.Terms {
		p := t.Axis.Pos + R - t.Axis.Rank
		coef[p] += t.Coef
		ref[p] = append(ref[p], t.Axis)
	}
	var pat []bir.Value
	for p := 1; p < R; p++ {
		pat = append(pat, bir.Object(bir.Field{Key: "step", Val: bir.Int(coef[p])}, bir.Field{Key: "num", Val: bir.Int(shape[p])}))
	}
	if len(pat) == 0 {
		pat = append(pat, bir.Object(bir.Field{Key: "step", Val: bir.Int(0)}, bir.Field{Key: "num", Val: bir.Int(1)}))
	}
	attrs := bir.Attrs("base", bir.Int(expr.Sym.Const), "pattern", bir.List(pat...), "channel_multiplier", bir.Int(coef[0]))
	if shape[0] > PMax {
		return nil, nil, nil, k.Errorf(KindNKI, "%s: partition dimension %d exceeds %d (nl.tile_size.pmax)", what, shape[0], PMax)
	}
	return attrs, shape, ref, nil
}

// AffineSelect is nisa.affine_select: out = (pred(i) > 0) ? onTrue : fill
// with pred an affine grid expression (GpSimd, SBUF). cmp is the
// comparison of pred against 0 (is_gt for NKI's "pred > 0").
func (k *Kernel) AffineSelect(pred Index, cmp string, onTrue Access, fill float64, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if onTrue.T.Mem != SBUF {
		return nil, k.Errorf(KindNKI, "nisa.affine_select runs on the GpSimd engine, which reads SBUF; %s is in %s", onTrue.T.Describe(), onTrue.T.Mem)
	}
	attrs, shape, _, err := k.iotaAttrs("nisa.affine_select", pred)
	if err != nil {
		return nil, err
	}
	if elemsOf(shape) != onTrue.Elems() || shape[0] != onTrue.Partitions() {
		return nil, k.Errorf(KindNKI, "nisa.affine_select: the predicate has shape %s, the tile %s", shapeString(shape), shapeString(onTrue.Shape()))
	}
	attrs = append(attrs, bir.Field{Key: "compare_op", Val: bir.String(cmp)}, bir.Field{Key: "fill_value", Val: bir.Float(fill)})
	s := &spec{op: bir.OpTensorScalarAffineSelect, eng: bir.EngPool, base: "affine_select", what: "nisa.affine_select", ins: []Opd{AccOpd(onTrue)}, attrs: attrs, mask: mask}
	return k.newResult(s, dt, tileShapeOf(onTrue), SBUF, axesOf(onTrue))
}

// BNStats is nisa.bn_stats: six statistics per partition (Vector engine).
func (k *Kernel) BNStats(x Access, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip("nisa.bn_stats", x); err != nil {
		return nil, err
	}
	if x.FreeElems() > BNStatsFMax {
		return nil, k.Errorf(KindNKI, "nisa.bn_stats: %s has %d elements per partition, more than %d (nl.tile_size.bn_stats_fmax)", x.T.Describe(), x.FreeElems(), BNStatsFMax)
	}
	s := &spec{op: bir.OpBNStats, eng: bir.EngDVE, base: "bn_stats", what: "nisa.bn_stats", ins: []Opd{AccOpd(x)}, mask: mask}
	return k.newResult(s, dt, []int64{x.Partitions(), 6}, SBUF, nil)
}

// BNAggr is nisa.bn_aggr: mean and variance per partition from bn_stats
// outputs (Vector engine).
func (k *Kernel) BNAggr(x Access, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip("nisa.bn_aggr", x); err != nil {
		return nil, err
	}
	if x.FreeElems()%3 != 0 {
		return nil, k.Errorf(KindNKI, "nisa.bn_aggr: %s has %d elements per partition, not a multiple of 3 (count, mean, variance*count triples)", x.T.Describe(), x.FreeElems())
	}
	s := &spec{op: bir.OpBNStatsAggregate, eng: bir.EngDVE, base: "bn_aggr", what: "nisa.bn_aggr", ins: []Opd{AccOpd(x)}, mask: mask}
	return k.newResult(s, dt, []int64{x.Partitions(), 2}, SBUF, nil)
}

// Reciprocal is nisa.reciprocal / nl.reciprocal: 1/x elementwise.
func (k *Kernel) Reciprocal(what string, x Access, eng bir.Engine, dt bir.Dtype, mask Mask) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return nil, err
	}
	if eng == bir.EngAct {
		return k.Activation(what, "Reciprocal", x, nil, Const(1), dt, mask)
	}
	s := &spec{op: bir.OpReciprocal, eng: eng, base: "reciprocal", what: what, ins: []Opd{AccOpd(x)}, mask: mask}
	return k.newResult(s, dt, tileShapeOf(x), SBUF, axesOf(x))
}

// Broadcast is tile.broadcast_to / nl.broadcast_to along the partition
// dimension: a one-partition tile or HBM row [1, F] repeated onto P
// partitions of a new SBUF tile, by a DMA whose source walks partitions
// with step 0.
func (k *Kernel) Broadcast(src Access, shape []int64) (*Result, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if src.T.Mem == PSUM {
		return nil, k.Errorf(KindNotSupported, "broadcasting %s in PSUM: copy it to SBUF first", src.T.Describe())
	}
	sh := src.Shape()
	if len(sh) != len(shape) || len(sh) == 0 {
		return nil, k.Errorf(KindNKI, "cannot broadcast %s of shape %s to %s", src.T.Describe(), shapeString(sh), shapeString(shape))
	}
	for i := 1; i < len(sh); i++ {
		if sh[i] != shape[i] {
			return nil, k.Errorf(KindNotSupported, "broadcasting %s of shape %s to %s: narwhal broadcasts along the partition dimension only", src.T.Describe(), shapeString(sh), shapeString(shape))
		}
	}
	if sh[0] != 1 {
		return nil, k.Errorf(KindNKI, "cannot broadcast %s of shape %s to %s: the partition dimension must be 1", src.T.Describe(), shapeString(sh), shapeString(shape))
	}
	if shape[0] > PMax {
		return nil, k.Errorf(KindNKI, "broadcast to partition dimension %d exceeds %d (nl.tile_size.pmax)", shape[0], PMax)
	}
	b := src.clone()
	b.Dims[0] = Dim{Step: 0, Num: shape[0]}
	s := &spec{eng: bir.EngUnassigned, base: "broadcast", what: "broadcast_to", ins: []Opd{AccOpd(b)}, mask: Mask{}}
	if src.T.IsOnChip() {
		s.op, s.attrs = bir.OpDMACopy, bir.Attrs("mode", "Copy")
	} else {
		s.op = bir.OpLoad
	}
	return k.newResult(s, src.Dtype, shape, SBUF, axesOf(b))
}

// AugAssign is dst = dst op v in place (dst[...] += v, t -= 1, ...): a
// TensorTensor with a tile, a TensorScalar with a constant.
func (k *Kernel) AugAssign(dst Access, op string, v Opd, mask Mask) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if !dst.T.IsOnChip() {
		return k.Errorf(KindNotSupported, "an in-place operator on %s in HBM: compute on tiles and nl.store the result", dst.T.Describe())
	}
	var r *Result
	var err error
	what := fmt.Sprintf("in-place %s", op)
	if v.Acc == nil {
		r, err = k.TensorScalar(what, dst, op, Const(v.Imm.ImmFloat()), false, "", NoScalar, false, bir.EngDVE, dst.Dtype, mask)
	} else {
		x := *v.Acc
		if x.T.Mem == HBM {
			return k.Errorf(KindNKI, "an in-place operator on %s with %s in HBM: load it first", dst.T.Describe(), x.T.Describe())
		}
		if x.FreeElems() == 1 && dst.FreeElems() != 1 && x.Partitions() == dst.Partitions() {
			r, err = k.TensorScalar(what, dst, op, Scalar{Tile: &x}, false, "", NoScalar, false, bir.EngDVE, dst.Dtype, mask)
		} else {
			r, err = k.TensorTensor(what, op, dst, x, bir.EngDVE, dst.Dtype, mask)
		}
	}
	if err != nil {
		return err
	}
	k.pending = nil
	if err := r.checkInto(dst); err != nil {
		return err
	}
	return r.place(r.withAxes(dst), false)
}

// Where is nl.where(cond, x, y): a new SBUF tile of dtype dt holding x
// where cond is non-zero and y elsewhere: a copy of y (a Memset for a
// constant y), then a CopyPredicated of x under cond (Vector engine).
func (k *Kernel) Where(cond Access, x Access, y Opd, dt bir.Dtype, mask Mask) (Access, error) {
	if err := k.flushErr(); err != nil {
		return Access{}, err
	}
	for _, a := range []Access{cond, x} {
		if err := k.checkOnChip("nl.where", a); err != nil {
			return Access{}, err
		}
	}
	if !sameLayout(cond, x) {
		return Access{}, k.Errorf(KindNKI, "nl.where: the condition %s has shape %s, the values %s %s", cond.T.Describe(), shapeString(cond.Shape()), x.T.Describe(), shapeString(x.Shape()))
	}
	t, err := k.NewTile("where", SBUF, dt, tileShapeOf(x), 0, nil)
	if err != nil {
		return Access{}, err
	}
	out, err := t.Whole()
	if err != nil {
		return Access{}, err
	}
	for i := range out.Dims {
		if i < len(x.Dims) {
			out.Dims[i].Axes = slices.Clone(x.Dims[i].Axes)
		}
	}
	if y.Acc == nil {
		if err := k.Memset(out, y.Imm.ImmFloat(), bir.EngDVE, mask); err != nil {
			return Access{}, err
		}
	} else if err := k.Assign(out, y); err != nil {
		return Access{}, err
	}
	src := x
	if x.Dtype != dt {
		r, err := k.Copy(x, bir.EngDVE, dt, mask)
		if err != nil {
			return Access{}, err
		}
		if src, err = r.Access(); err != nil {
			return Access{}, err
		}
	}
	s := &spec{op: bir.OpCopyPredicated, eng: bir.EngDVE, base: "where", what: "nl.where", ins: []Opd{AccOpd(src), AccOpd(cond)}, out: &out, mask: mask, pos: k.pos}
	if _, err := k.emit(s); err != nil {
		return Access{}, err
	}
	return out, nil
}

// TensorTensorScan is nisa.tensor_tensor_scan: per partition, state =
// initial, then along the free elements t = data0 op0 state (reverse0:
// state op0 data0), state = t op1 data1 (reverse1: data1 op1 t), written
// to a new SBUF tile (Vector engine; bir.Builder.TensorTensorScan's
// encoding: TensorScalarPtr with is_tensor_tensor_scan).
func (k *Kernel) TensorTensorScan(data0, data1 Access, initial Scalar, op0, op1 string, rev0, rev1 bool, dt bir.Dtype, mask Mask) (*Result, error) {
	const what = "nisa.tensor_tensor_scan"
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	for _, a := range []Access{data0, data1} {
		if err := k.checkOnChip(what, a); err != nil {
			return nil, err
		}
	}
	if !sameLayout(data0, data1) {
		return nil, k.Errorf(KindNKI, "%s: data0 %s and data1 %s differ in shape", what, shapeString(data0.Shape()), shapeString(data1.Shape()))
	}
	if err := k.checkNotBothPSUM(what, data0, data1); err != nil {
		return nil, err
	}
	init, _, err := k.scalarOpd(what, data0, initial)
	if err != nil {
		return nil, err
	}
	s := &spec{op: bir.OpTensorScalarPtr, eng: bir.EngDVE, base: "tensor_tensor_scan", what: what,
		ins: []Opd{AccOpd(data0), init, AccOpd(data1)}, mask: mask,
		attrs: bir.Attrs("op0", op0, "reverse0", rev0, "op1", op1, "reverse1", rev1, bir.AttrTensorTensorScan, true, "acc", "Idle")}
	return k.newResult(s, dt, tileShapeOf(data0), SBUF, mergeAxes(axesOf(data0), axesOf(data1)))
}

// TensorPartitionReduce is nisa.tensor_partition_reduce: dst[0, j] = op
// over the partitions of data[:, j], a new [1, F...] SBUF tile (GpSimd;
// TensorReduce over axis C).
func (k *Kernel) TensorPartitionReduce(op string, data Access, dt bir.Dtype, mask Mask) (*Result, error) {
	const what = "nisa.tensor_partition_reduce"
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	if err := k.checkOnChip(what, data); err != nil {
		return nil, err
	}
	if err := k.checkEngineMem(what, bir.EngPool, data); err != nil {
		return nil, err
	}
	shape := tileShapeOf(data)
	shape[0] = 1
	ref := axesOf(data)
	ref[0] = nil
	s := &spec{op: bir.OpTensorReduce, eng: bir.EngPool, base: "tensor_partition_reduce", what: what, ins: []Opd{AccOpd(data)},
		attrs: bir.Attrs("op", op, "axis", bir.AxisPartition, "negate", false), mask: mask}
	return k.newResult(s, dt, shape, SBUF, ref)
}

// ScalarTensorTensor is nisa.scalar_tensor_tensor: (data op0 operand0)
// op1 operand1 with operand0 a constant or [P, 1] tile and operand1 a tile
// of data's shape (Vector engine; TensorScalarPtr with
// is_scalar_tensor_tensor).
func (k *Kernel) ScalarTensorTensor(data Access, op0 string, operand0 Scalar, rev0 bool, op1 string, operand1 Access, rev1 bool, dt bir.Dtype, mask Mask) (*Result, error) {
	const what = "nisa.scalar_tensor_tensor"
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	for _, a := range []Access{data, operand1} {
		if err := k.checkOnChip(what, a); err != nil {
			return nil, err
		}
	}
	if !sameLayout(data, operand1) {
		return nil, k.Errorf(KindNKI, "%s: operand1 %s must have data's shape %s", what, shapeString(operand1.Shape()), shapeString(data.Shape()))
	}
	if err := k.checkNotBothPSUM(what, data, operand1); err != nil {
		return nil, err
	}
	o0, _, err := k.scalarOpd(what, data, operand0)
	if err != nil {
		return nil, err
	}
	s := &spec{op: bir.OpTensorScalarPtr, eng: bir.EngDVE, base: "scalar_tensor_tensor", what: what,
		ins: []Opd{AccOpd(data), o0, AccOpd(operand1)}, mask: mask,
		attrs: bir.Attrs("op0", op0, "reverse0", rev0, "op1", op1, "reverse1", rev1, bir.AttrScalarTensorTensor, true, "acc", "Idle")}
	return k.newResult(s, dt, tileShapeOf(data), SBUF, mergeAxes(axesOf(data), axesOf(operand1)))
}

// ActivationReduce is nisa.activation_reduce: the activation (as
// Activation) into a new SBUF tile, reduced along the free dimension with
// reduceOp into reduceRes ([P, 1]): an Activation accumulating in the
// Scalar engine's registers (acc ZeroAccumulate) and a
// ReadActivationAccumulator into reduceRes (bir.Builder.ActivationReduce).
//
// dst, when not nil, is the activation's destination (the current API's
// dst=), else a new SBUF tile.
func (k *Kernel) ActivationReduce(fn string, x Access, bias *Access, scale float64, reduceOp string, reduceRes Access, dt bir.Dtype, mask Mask, dst *Access) (Access, error) {
	const what = "nisa.activation_reduce"
	if err := k.flushErr(); err != nil {
		return Access{}, err
	}
	if err := k.checkOnChip(what, x); err != nil {
		return Access{}, err
	}
	if err := k.checkOnChip(what, reduceRes); err != nil {
		return Access{}, err
	}
	if reduceRes.Partitions() != x.Partitions() || reduceRes.FreeElems() != 1 {
		return Access{}, k.Errorf(KindNKI, "%s: reduce_res must have shape (%d, 1), have %s", what, x.Partitions(), shapeString(reduceRes.Shape()))
	}
	ins := []Opd{AccOpd(x)}
	if bias != nil {
		b, _, err := k.scalarOpd(what, x, Scalar{Tile: bias})
		if err != nil {
			return Access{}, err
		}
		ins = append(ins, b)
	}
	s := &spec{op: bir.OpActivation, eng: bir.EngAct, base: "activation_reduce", what: what, ins: ins, mask: mask,
		attrs: bir.Attrs("func", fn, "scale", bir.Float(scale), "alpha", bir.Float(0), "acc", "ZeroAccumulate", "reduce_op", reduceOp)}
	r, err := k.newResult(s, dt, tileShapeOf(x), SBUF, axesOf(x))
	if err != nil {
		return Access{}, err
	}
	var out Access
	if dst != nil {
		if err := r.Write(*dst); err != nil {
			return Access{}, err
		}
		out = *dst
	} else if out, err = r.Access(); err != nil {
		return Access{}, err
	}
	rd := &spec{op: bir.OpReadActivationAccumulator, eng: bir.EngAct, base: "activation_reduce_res", what: what, out: &reduceRes, pos: k.pos}
	if _, err := k.emit(rd); err != nil {
		return Access{}, err
	}
	if reduceRes.T.Mem == PSUM {
		k.noteWrite(reduceRes.T, what)
	}
	return out, nil
}
