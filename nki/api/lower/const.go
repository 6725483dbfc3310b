package lower

// Constant tensors from host data (the current API's nl.shared_constant,
// nl.shared_identity_matrix).
//
// BIR's way to hand a kernel host data is a Const DRAM tensor backed by a
// file (passes/translate stages the files of KLR's sharedConstants); the
// interpreter has no file-backed memory, so a kernel traced here builds
// each constant itself, with instructions the interpreter runs and whose
// results are the constant's exact values:
//
//   - values affine in the partition and the (flattened) free index,
//     v = c0 + cp*p + cf*f with integer c0, cp, cf within 2^24: one Iota
//     (GpSimd, integer arithmetic, cast to the dtype) per 128-row chunk;
//   - v = c0 + u*(a*p + b*f) with integer a, b: an Iota of a*p + b*f into
//     int32 and a TensorScalar (mult u, add c0) into the dtype, used only
//     when that fp32 arithmetic reproduces every value exactly (checked
//     here, value by value);
//   - anything else: row by row, one Memset per run of equal values into a
//     one-partition tile at partition 0 (an access of one partition starts
//     at a quadrant: the verifier's partition-start rule) and a Save of
//     the row, up to maxConstRuns instructions (a larger irregular
//     constant is a NotSupported error: narwhal would need file-backed
//     constants).
//
// A shared constant is an HBM tensor (shared_hbm: the constant is the
// same for every program), filled from SBUF staging tiles by Save DMAs
// where the call is. The identity matrix is an SBUF tile (NKI 0.3:
// "Create an identity matrix in SBUF"): an Iota of p - f and a
// TensorScalar is_equal 0.

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// maxConstRuns bounds the Memsets of an irregular constant.
const maxConstRuns = 4096

// ConstHBM makes an HBM tensor of shape holding values (row-major, as
// float64, each exactly representable in dt).
func (k *Kernel) ConstHBM(name string, dt bir.Dtype, shape []int64, values []float64) (*Tensor, error) {
	if err := checkShape("nl.shared_constant", shape); err != nil {
		return nil, k.at(err)
	}
	if int64(len(values)) != elemsOf(shape) {
		return nil, k.Errorf(KindNKI, "nl.shared_constant: %d values for shape %s", len(values), shapeString(shape))
	}
	t, err := k.NewHBM(name, HBMShared, dt, shape)
	if err != nil {
		return nil, err
	}
	rows := shape[0]
	free := elemsOf(shape[1:])
	runs := 0
	for r0 := int64(0); r0 < rows; r0 += PMax {
		n := min(PMax, rows-r0)
		stage, err := k.NewTile(name+"_stage", SBUF, dt, []int64{n, free}, 0, nil)
		if err != nil {
			return nil, err
		}
		a, err := stage.Whole()
		if err != nil {
			return nil, err
		}
		vals := values[r0*free : (r0+n)*free]
		done, err := k.fillAffine(a, dt, vals, n, free)
		if err != nil {
			return nil, err
		}
		if done {
			dst := Access{T: t, Block: affine.Const(0), Offset: affine.Const(r0 * free), Dims: []Dim{{Step: free, Num: n}, {Step: 1, Num: free}}, Dtype: dt}
			if err := k.Store(dst, a, Mask{}); err != nil {
				return nil, err
			}
			continue
		}
		// Row by row: Memsets of runs of equal values into a one-partition
		// tile at partition 0 (an access of one partition starts at a
		// quadrant), stored to the row.
		for p := int64(0); p < n; p++ {
			row, err := k.NewTile(name+"_row", SBUF, dt, []int64{1, free}, 0, nil)
			if err != nil {
				return nil, err
			}
			ra, err := row.Whole()
			if err != nil {
				return nil, err
			}
			if err := k.fillRuns(ra, vals[p*free:(p+1)*free], &runs); err != nil {
				return nil, err
			}
			dst := Access{T: t, Block: affine.Const(0), Offset: affine.Const((r0 + p) * free), Dims: []Dim{{Step: free, Num: 1}, {Step: 1, Num: free}}, Dtype: dt}
			if err := k.Store(dst, ra, Mask{}); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// fillAffine writes vals ([n, free], row-major) into the SBUF access a
// when they are affine (one Iota, or an Iota and a TensorScalar), and
// reports whether it did.
func (k *Kernel) fillAffine(a Access, dt bir.Dtype, vals []float64, n, free int64) (bool, error) {
	at := func(p, f int64) float64 { return vals[p*free+f] }
	c0 := at(0, 0)
	cp, cf := 0.0, 0.0
	if n > 1 {
		cp = at(1, 0) - c0
	}
	if free > 1 {
		cf = at(0, 1) - c0
	}
	affineFits := func(f func(p, f int64) float64) bool {
		for p := int64(0); p < n; p++ {
			for j := int64(0); j < free; j++ {
				if f(p, j) != at(p, j) {
					return false
				}
			}
		}
		return true
	}
	integral := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<24 }
	pattern := [][2]int64{{0, free}}
	// One Iota: integer affine values.
	if integral(c0) && integral(cp) && integral(cf) {
		icp, icf := int64(cp), int64(cf)
		pattern[0][0] = icf
		if affineFits(func(p, f int64) float64 {
			v := float64(int64(c0) + icp*p + icf*f)
			if math.Abs(v) >= 1<<24 {
				return math.NaN()
			}
			return v
		}) {
			return true, k.IotaPattern(a, pattern, int64(c0), icp)
		}
	}
	// An Iota of a*p + b*f and a TensorScalar (x * u + c0), fp32 exact.
	if u, ia, ib, ok := commonUnit(cp, cf); ok {
		u32, c032 := float32(u), float32(c0)
		if affineFits(func(p, f int64) float64 {
			x := float32(ia*p + ib*f)
			y := x*u32 + c032
			return roundTo(dt, float64(y))
		}) {
			idx, err := k.NewTile("const_index", SBUF, bir.Int32, []int64{n, free}, 0, nil)
			if err != nil {
				return false, err
			}
			ia2, err := idx.Whole()
			if err != nil {
				return false, err
			}
			pattern[0][0] = ib
			if err := k.IotaPattern(ia2, pattern, 0, ia); err != nil {
				return false, err
			}
			r, err := k.TensorScalar("nl.shared_constant", ia2, "mult", Const(u), false, "add", Const(c0), false, bir.EngDVE, dt, Mask{})
			if err != nil {
				return false, err
			}
			return true, r.Write(a)
		}
	}
	return false, nil
}

// fillRuns writes one row of values into the one-partition access a: a
// Memset per run of equal values.
func (k *Kernel) fillRuns(a Access, vals []float64, runs *int) error {
	free := int64(len(vals))
	for j := int64(0); j < free; {
		e := j + 1
		for e < free && vals[e] == vals[j] {
			e++
		}
		*runs++
		if *runs > maxConstRuns {
			return k.Errorf(KindNotSupported, "nl.shared_constant: the constant is not affine and needs more than %d Memsets (runs of equal values, row stores); narwhal builds constants on chip (the interpreter has no file-backed constant tensors)", maxConstRuns)
		}
		run := Access{T: a.T, Block: a.Block, Offset: affine.AddConst(a.Offset, j), Dims: []Dim{{Step: a.Dims[0].Step, Num: 1}, {Step: 1, Num: e - j}}, Dtype: a.Dtype}
		if err := k.Memset(run, vals[j], bir.EngDVE, Mask{}); err != nil {
			return err
		}
		j = e
	}
	*runs++
	return nil
}

// commonUnit finds u and integers a, b with cp = a*u, cf = b*u.
func commonUnit(cp, cf float64) (u float64, a, b int64, ok bool) {
	switch {
	case cp == 0 && cf == 0:
		return 0, 0, 0, false
	case cf != 0 && cp/cf == math.Trunc(cp/cf):
		return cf, int64(cp / cf), 1, true
	case cp != 0 && cf/cp == math.Trunc(cf/cp):
		return cp, 1, int64(cf / cp), true
	}
	return 0, 0, 0, false
}

// roundTo rounds v to dt's values (the cast an instruction's write does).
func roundTo(dt bir.Dtype, v float64) float64 {
	if !dt.IsFloat() {
		return v
	}
	bits, ok := numeric.FromFloat32(dt, float32(v))
	if !ok {
		return math.NaN()
	}
	f, ok := numeric.ToFloat32(dt, bits)
	if !ok {
		return math.NaN()
	}
	return float64(f)
}

// Identity makes an [n, n] SBUF tile of dtype dt holding the identity
// matrix: an Iota of p - f (int32) and a TensorScalar is_equal 0.
func (k *Kernel) Identity(name string, n int64, dt bir.Dtype) (*Tensor, error) {
	if n <= 0 || n > PMax {
		return nil, k.Errorf(KindNKI, "nl.shared_identity_matrix(%d): an SBUF identity has 1 to %d rows (nl.tile_size.pmax)", n, PMax)
	}
	idx, err := k.NewTile(name+"_index", SBUF, bir.Int32, []int64{n, n}, 0, nil)
	if err != nil {
		return nil, err
	}
	ia, err := idx.Whole()
	if err != nil {
		return nil, err
	}
	if err := k.IotaPattern(ia, [][2]int64{{-1, n}}, 0, 1); err != nil {
		return nil, err
	}
	t, err := k.NewTile(name, SBUF, dt, []int64{n, n}, 0, nil)
	if err != nil {
		return nil, err
	}
	a, err := t.Whole()
	if err != nil {
		return nil, err
	}
	r, err := k.TensorScalar("nl.shared_identity_matrix", ia, "is_equal", Const(0), false, "", NoScalar, false, bir.EngDVE, dt, Mask{})
	if err != nil {
		return nil, err
	}
	return t, r.Write(a)
}
