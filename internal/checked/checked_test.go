package checked

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exact reports the big-integer value of x and whether it fits in int64.
func fits(x *big.Int) (int64, bool) {
	if !x.IsInt64() {
		return 0, false
	}
	return x.Int64(), true
}

var edge = []int64{0, 1, -1, 2, -2, 3, 1 << 31, -(1 << 31), 1 << 32, 1 << 62, -(1 << 62), 3037000499, 3037000500, -3037000500,
	math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, 4611686018427387904}

func pairs() [][2]int64 {
	var out [][2]int64
	for _, a := range edge {
		for _, b := range edge {
			out = append(out, [2]int64{a, b})
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		out = append(out, [2]int64{int64(r.Uint64()) >> r.IntN(64), int64(r.Uint64()) >> r.IntN(64)})
	}
	return out
}

func TestMul_AgainstBigInt(t *testing.T) {
	for _, p := range pairs() {
		want, wantOK := fits(new(big.Int).Mul(big.NewInt(p[0]), big.NewInt(p[1])))
		got, ok := Mul(p[0], p[1])
		if ok != wantOK || (ok && got != want) {
			t.Errorf("Mul(%d, %d) = %d, %v; want %d, %v", p[0], p[1], got, ok, want, wantOK)
		}
	}
}

func TestAddSub_AgainstBigInt(t *testing.T) {
	for _, p := range pairs() {
		want, wantOK := fits(new(big.Int).Add(big.NewInt(p[0]), big.NewInt(p[1])))
		if got, ok := Add(p[0], p[1]); ok != wantOK || (ok && got != want) {
			t.Errorf("Add(%d, %d) = %d, %v; want %d, %v", p[0], p[1], got, ok, want, wantOK)
		}
		want, wantOK = fits(new(big.Int).Sub(big.NewInt(p[0]), big.NewInt(p[1])))
		if got, ok := Sub(p[0], p[1]); ok != wantOK || (ok && got != want) {
			t.Errorf("Sub(%d, %d) = %d, %v; want %d, %v", p[0], p[1], got, ok, want, wantOK)
		}
	}
}

func TestProduct_Table(t *testing.T) {
	tests := []struct {
		xs   []int64
		want int64
		ok   bool
	}{
		{nil, 1, true},
		{[]int64{128, 16}, 2048, true},
		{[]int64{1 << 20, 1 << 20, 4}, 1 << 42, true},
		{[]int64{4611686018427387904, 16}, 0, false},
		{[]int64{1 << 40, 1 << 40, 0}, 0, true}, // a zero factor wins
		{[]int64{-3, 5}, -15, true},
	}
	for _, tt := range tests {
		got, ok := Product(tt.xs...)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Product(%v) = %d, %v; want %d, %v", tt.xs, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSatMulSatAdd_Saturate(t *testing.T) {
	tests := []struct {
		name      string
		got, want int64
	}{
		{"mul small", SatMul(3, 4), 12},
		{"mul zero", SatMul(0, math.MaxInt64), 0},
		{"mul negative", SatMul(-1, 5), 0},
		{"mul overflow", SatMul(1<<40, 1<<40), math.MaxInt64},
		{"add small", SatAdd(3, 4), 7},
		{"add overflow", SatAdd(math.MaxInt64, 1), math.MaxInt64},
		{"add negative", SatAdd(-5, 2), 2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

// tripsBig is the reference trip count: ceil((ub-lb)/stride) in big
// integers, 0 when the loop does not run.
func tripsBig(lb, ub, stride int64) int64 {
	if stride == 0 {
		return 0
	}
	d := new(big.Int).Sub(big.NewInt(ub), big.NewInt(lb))
	s := big.NewInt(stride)
	if d.Sign() == 0 || d.Sign() != s.Sign() {
		return 0
	}
	d.Abs(d)
	s.Abs(s)
	n := new(big.Int).Add(d, new(big.Int).Sub(s, big.NewInt(1)))
	n.Quo(n, s)
	if !n.IsInt64() {
		return math.MaxInt64
	}
	return n.Int64()
}

func TestTripCount_AgainstBigInt(t *testing.T) {
	tests := []struct{ lb, ub, stride, want int64 }{
		{0, 4, 1, 4},
		{0, 4, 3, 2},
		{0, math.MaxInt64, 1 << 62, 2}, // the two-iteration loop
		{math.MinInt64, math.MaxInt64, 1, math.MaxInt64},
		{5, 5, 1, 0},
		{6, 5, 1, 0},
		{5, 0, -2, 3},
		{0, 10, 0, 0},
		{math.MaxInt64, math.MinInt64, math.MinInt64, 2},
	}
	for _, tt := range tests {
		if got := TripCount(tt.lb, tt.ub, tt.stride); got != tt.want {
			t.Errorf("TripCount(%d, %d, %d) = %d, want %d", tt.lb, tt.ub, tt.stride, got, tt.want)
		}
	}
	for _, p := range pairs() {
		for _, s := range edge {
			if got, want := TripCount(p[0], p[1], s), tripsBig(p[0], p[1], s); got != want {
				t.Fatalf("TripCount(%d, %d, %d) = %d, want %d", p[0], p[1], s, got, want)
			}
		}
	}
}

func TestLast_StaysInRange(t *testing.T) {
	for _, p := range pairs() {
		for _, s := range edge {
			n := TripCount(p[0], p[1], s)
			if n == 0 || n == math.MaxInt64 {
				continue
			}
			v, ok := Last(p[0], s, n)
			if !ok {
				t.Fatalf("Last(%d, %d, %d): overflow for a trip count from TripCount", p[0], s, n)
			}
			if (s > 0 && (v < p[0] || v >= p[1])) || (s < 0 && (v > p[0] || v <= p[1])) {
				t.Fatalf("Last(%d, %d, %d) = %d, outside the loop's range to %d", p[0], s, n, v, p[1])
			}
		}
	}
}

func TestIteration_Table(t *testing.T) {
	tests := []struct{ v, lb, stride, want int64 }{
		{6, 0, 3, 2},
		{4611686018427387904, 0, 1 << 62, 1},
		{math.MaxInt64 - 1, math.MinInt64, 1 << 62, 3},
		{5, 5, 7, 0},
	}
	for _, tt := range tests {
		if got := Iteration(tt.v, tt.lb, tt.stride); got != tt.want {
			t.Errorf("Iteration(%d, %d, %d) = %d, want %d", tt.v, tt.lb, tt.stride, got, tt.want)
		}
	}
}
