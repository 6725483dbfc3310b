package kernels

import (
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// exchange is a two-core kernel in miniature (an LNC=2 NKI kernel's
// shape: each core computes half, the halves meet in shared HBM): x has
// two halves of `rows` rows; every half h is doubled into the shared
// buffer s, and each half of the output adds its own doubled half to the
// other's, read back from s:
//
//	phase 1, for each half h:  s[h]   = 2 * x[h]                 (load, Vector, save)
//	phase 2, for each half h:  out[h] = 2 * x[h] + s[1-h]         (load s[1-h], Vector, save)
//
// With cores=1 one program does both halves. With cores=2 the module is
// core `core`'s program (its neuron core id, the module option narwhal.lnc
// = 2): it does half h = core only, and its phase 2 reads what the other
// core wrote in its phase 1, so the two cores must meet at a CoreBarrier
// between the phases (insert_core_barrier puts it there: a read of the
// shared tensor s after writes to it) and at the end (insertCoreBarrierOnIO,
// with a PTCOM per output before it). The two cores' programs run together
// (interp.RunCores) give the single-core result.
func init() {
	Register(&Kernel{
		Name: "exchange",
		Doc:  "out[h] = 2x[h] + s[1-h] with s = 2x through shared HBM; cores=2 gives core `core`'s half (an LNC=2 kernel: CoreBarrier, PTCOM)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows of each half (multiple of 128)"},
			{Name: "cols", Default: "512", Doc: "columns"},
			{Name: "cores", Default: "1", Doc: "1: one program does both halves; 2: the program of one core"},
			{Name: "core", Default: "0", Doc: "with cores=2: this program's core (its half)"},
			archParam,
		},
		Build:     buildExchange,
		Reference: refExchange,
		Tests:     []string{"rows=128,cols=64", "rows=256,cols=32"},
	})
}

func buildExchange(p Params) (*bir.Module, error) {
	v, err := intParams(p, "rows", "cols", "cores", "core")
	if err != nil {
		return nil, err
	}
	rows, cols, cores, core := v[0], v[1], v[2], v[3]
	if err := multipleOf("rows", rows, pmax); err != nil {
		return nil, err
	}
	if cols <= 0 {
		return nil, fmt.Errorf("cols=%d: want a positive number", cols)
	}
	if cores != 1 && cores != 2 {
		return nil, fmt.Errorf("cores=%d: want 1 or 2", cores)
	}
	if core < 0 || core >= cores {
		return nil, fmt.Errorf("core=%d: want 0..%d", core, cores-1)
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	halves := []int64{0, 1}
	if cores == 2 {
		halves = []int64{core}
		m.Config.Options[bir.OptionLNC] = strconv.FormatInt(cores, 10)
		m.NeuronCoreID, m.HasCoreID = core, true
	}
	const P = pmax
	tiles := rows / P
	dt := bir.Float32
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, 2*rows, cols)
	s := b.Output("s", dt, 2*rows, cols)
	out := b.Output("out", dt, 2*rows, cols)
	tile := [][2]int64{{cols, P}, {1, cols}}
	zero := affine.Const(0)
	type sb struct{ x, d, u, o bir.T }
	tiles2 := map[int64]sb{}
	for _, h := range halves {
		n := func(k string) string { return fmt.Sprintf("%s%d", k, h) }
		tiles2[h] = sb{
			x: b.BlockTensor(n("x_tile"), bir.MemSB, dt, tiles, P, cols),
			d: b.BlockTensor(n("d_tile"), bir.MemSB, dt, tiles, P, cols),
			u: b.BlockTensor(n("u_tile"), bir.MemSB, dt, tiles, P, cols),
			o: b.BlockTensor(n("o_tile"), bir.MemSB, dt, tiles, P, cols),
		}
	}
	for _, h := range halves {
		t := tiles2[h]
		b.Loop(fmt.Sprintf("i%d", h), 0, tiles, 1, func(i affine.Expr) {
			row := affine.Add(affine.Const(h*rows*cols), affine.Scale(i, P*cols))
			b.Load(fmt.Sprintf("load_x%d", h), t.x.Sym(i, zero, tile...), x.Sym(zero, row, tile...))
			b.TensorScalar(fmt.Sprintf("double%d", h), bir.EngDVE, t.d.Sym(i, zero, tile...), t.x.Sym(i, zero, tile...), "mult", 2, "bypass", 0)
			b.Save(fmt.Sprintf("save_s%d", h), s.Sym(zero, row, tile...), t.d.Sym(i, zero, tile...))
		})
	}
	for _, h := range halves {
		t := tiles2[h]
		b.Loop(fmt.Sprintf("j%d", h), 0, tiles, 1, func(i affine.Expr) {
			row := affine.Add(affine.Const(h*rows*cols), affine.Scale(i, P*cols))
			other := affine.Add(affine.Const((1-h)*rows*cols), affine.Scale(i, P*cols))
			b.Load(fmt.Sprintf("load_s%d", 1-h), t.u.Sym(i, zero, tile...), s.Sym(zero, other, tile...))
			b.TensorTensor(fmt.Sprintf("add%d", h), bir.EngDVE, "add", t.o.Sym(i, zero, tile...), t.d.Sym(i, zero, tile...), t.u.Sym(i, zero, tile...))
			b.Save(fmt.Sprintf("save_out%d", h), out.Sym(zero, row, tile...), t.o.Sym(i, zero, tile...))
		})
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// refExchange is exchange's reference for the whole kernel (both halves,
// whatever cores says): s = 2x, out[h] = s[h] + s[1-h], each one fp32
// operation (bit-exact).
func refExchange(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return nil, nil, err
	}
	rows, cols := v[0], v[1]
	x, err := refInput(in, "x", bir.Float32, 2*rows, cols)
	if err != nil {
		return nil, nil, err
	}
	half := rows * cols
	s := make([]float32, len(x))
	for i := range s {
		s[i] = x[i] * 2
	}
	out := make([]float32, len(x))
	for i := range out {
		o := i + int(half)
		if int64(i) >= half {
			o = i - int(half)
		}
		out[i] = s[i] + s[o]
	}
	st, err := ref.FromFloat32s("s", bir.Float32, []int64{2 * rows, cols}, s)
	if err != nil {
		return nil, nil, err
	}
	ot, err := ref.FromFloat32s("out", bir.Float32, []int64{2 * rows, cols}, out)
	if err != nil {
		return nil, nil, err
	}
	return map[string]*interp.Tensor{"s": st, "out": ot}, nil, nil
}
