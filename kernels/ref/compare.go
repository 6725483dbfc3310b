package ref

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/narwhal-compiler/narwhal/interp"
)

// Tolerance is how far a result may be from the expected value: element i
// matches when |got - want| <= Abs + Rel*|want|. The zero Tolerance means
// bit for bit. In tolerance mode two NaNs match whatever their payload, an
// infinity matches only the same infinity, and dtypes that cannot be
// decoded are still compared bit for bit.
type Tolerance struct {
	Abs, Rel float64
	// Why says where the bound comes from (printed with a mismatch).
	Why string
}

// Exact is the bit-for-bit tolerance.
var Exact = Tolerance{}

// IsExact reports whether t asks for bit equality.
func (t Tolerance) IsExact() bool { return t.Abs == 0 && t.Rel == 0 }

func (t Tolerance) String() string {
	if t.IsExact() {
		return "bit-exact"
	}
	s := fmt.Sprintf("|got-want| <= %.3g + %.3g*|want|", t.Abs, t.Rel)
	if t.Why != "" {
		s += " (" + t.Why + ")"
	}
	return s
}

// Mismatch describes the first differing element of two tensors.
type Mismatch struct {
	Tensor    string
	Index     int64   // flat row-major element index (-1 for a header mismatch)
	Coord     []int64 // the index in the tensor's shape
	Got, Want string  // both values, decoded and as raw bits
	Detail    string  // a dtype/shape/size mismatch, when Index is -1
	Tolerance Tolerance
	// Count is the number of mismatching elements; MaxErr the largest
	// |got-want| among decodable elements (0 when none or not decodable).
	Count  int64
	MaxErr float64
}

func (m *Mismatch) Error() string {
	if m.Index < 0 {
		return fmt.Sprintf("tensor %s: %s", m.Tensor, m.Detail)
	}
	return fmt.Sprintf("tensor %s: element %d %v: got %s, want %s", m.Tensor, m.Index, m.Coord, m.Got, m.Want) + m.Extent("error")
}

// Extent describes how far the mismatch goes: " (N elements differ, max
// |what| E)" when more than one element differs, then "; tolerance T"
// unless the comparison was bit-exact ("" for one bit-exact element).
func (m *Mismatch) Extent(what string) string {
	s := ""
	if m.Count > 1 {
		s += fmt.Sprintf(" (%d elements differ", m.Count)
		if m.MaxErr > 0 {
			s += fmt.Sprintf(", max |%s| %.3g", what, m.MaxErr)
		}
		s += ")"
	}
	if !m.Tolerance.IsExact() {
		s += "; tolerance " + m.Tolerance.String()
	}
	return s
}

// Coord converts a flat row-major index to a multi-index in shape.
func Coord(shape []int64, flat int64) []int64 {
	c := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			c[d] = flat % shape[d]
			flat /= shape[d]
		}
	}
	return c
}

// FormatElem renders one element: its decoded value and its raw bits,
// e.g. "0.5 (0x3f000000)".
func FormatElem(t *interp.Tensor, i int64) string {
	sz := t.Dtype.Size()
	if sz == 0 || (i+1)*sz > int64(len(t.Data)) {
		return "<out of range>"
	}
	b := t.Data[i*sz : (i+1)*sz]
	var bits strings.Builder
	bits.WriteString("0x")
	for k := len(b) - 1; k >= 0; k-- {
		fmt.Fprintf(&bits, "%02x", b[k])
	}
	if v, ok := Float(t.Dtype, b); ok {
		return fmt.Sprintf("%.9g (%s)", v, bits.String())
	}
	return bits.String()
}

// Compare checks got against want. It returns nil when they match, else a
// *Mismatch naming the first differing element.
func Compare(got, want *interp.Tensor, tol Tolerance) *Mismatch {
	name := want.Name
	if name == "" {
		name = got.Name
	}
	if got.Dtype != want.Dtype {
		return &Mismatch{Tensor: name, Index: -1, Detail: fmt.Sprintf("dtype %s, want %s", got.Dtype, want.Dtype)}
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return &Mismatch{Tensor: name, Index: -1, Detail: fmt.Sprintf("shape %v, want %v", got.Shape, want.Shape)}
	}
	if len(got.Data) != len(want.Data) {
		return &Mismatch{Tensor: name, Index: -1, Detail: fmt.Sprintf("%d data bytes, want %d", len(got.Data), len(want.Data))}
	}
	if bytes.Equal(got.Data, want.Data) {
		return nil
	}
	sz := want.Dtype.Size()
	if sz == 0 {
		return &Mismatch{Tensor: name, Index: -1, Detail: "invalid dtype"}
	}
	n := int64(len(want.Data)) / sz
	decode := Decodable(want.Dtype)
	var first *Mismatch
	for i := int64(0); i < n; i++ {
		g := got.Data[i*sz : (i+1)*sz]
		w := want.Data[i*sz : (i+1)*sz]
		if bytes.Equal(g, w) {
			continue
		}
		var errAbs float64
		if decode {
			gv, _ := Float(want.Dtype, g)
			wv, _ := Float(want.Dtype, w)
			if !tol.IsExact() && within(gv, wv, tol) {
				continue
			}
			errAbs = math.Abs(gv - wv)
		}
		if first == nil {
			first = &Mismatch{Tensor: name, Index: i, Coord: Coord(want.Shape, i),
				Got: FormatElem(got, i), Want: FormatElem(want, i), Tolerance: tol}
		}
		first.Count++
		if !math.IsNaN(errAbs) && errAbs > first.MaxErr {
			first.MaxErr = errAbs
		}
	}
	return first
}

func within(g, w float64, tol Tolerance) bool {
	switch {
	case math.IsNaN(g) || math.IsNaN(w):
		return math.IsNaN(g) && math.IsNaN(w)
	case math.IsInf(g, 0) || math.IsInf(w, 0):
		return g == w
	}
	return math.Abs(g-w) <= tol.Abs+tol.Rel*math.Abs(w)
}

// MaxError returns the largest |got - want| over the decodable elements of
// two same-shaped tensors (0 when equal or not decodable); NaN-vs-number
// pairs count as +Inf.
func MaxError(got, want *interp.Tensor) float64 {
	if got.Dtype != want.Dtype || len(got.Data) != len(want.Data) || !Decodable(want.Dtype) {
		return 0
	}
	sz := want.Dtype.Size()
	var m float64
	for i := int64(0); i*sz < int64(len(want.Data)); i++ {
		gv, _ := Float(want.Dtype, got.Data[i*sz:])
		wv, _ := Float(want.Dtype, want.Data[i*sz:])
		var e float64
		switch {
		case math.IsNaN(gv) && math.IsNaN(wv):
		case math.IsNaN(gv) || math.IsNaN(wv):
			e = math.Inf(1)
		case gv == wv:
		default:
			e = math.Abs(gv - wv)
		}
		if e > m {
			m = e
		}
	}
	return m
}

// CompareSets checks that got holds exactly the tensors of want (by name)
// and that each matches; tol gives the tolerance per tensor name (a missing
// entry means bit-exact). It returns the first problem in name order.
func CompareSets(got, want map[string]*interp.Tensor, tol map[string]Tolerance) error {
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for n := range got {
		if _, ok := want[n]; !ok {
			return fmt.Errorf("unexpected output tensor %s (want only %s)", n, strings.Join(names, ", "))
		}
	}
	for _, n := range names {
		g, ok := got[n]
		if !ok {
			return fmt.Errorf("output tensor %s is missing", n)
		}
		if m := Compare(g, want[n], tol[n]); m != nil {
			return m
		}
	}
	return nil
}
