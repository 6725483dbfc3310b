package pipeline

// End-to-end tests of the Vector accumulator instructions (docs/isa.md):
// each module keeps accumulator state across instructions, so a pass
// that reordered them, split one along its free axis or dropped one would
// change the outputs (translation validation catches it at the pass).

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
)

// TestISA_TensorScalarReduce: RMSNorm's statistics in two column tiles:
// x*x with the row sums of squares accumulated across the tiles
// (reset_reduce, then reduce), read out after the second; and a load_reduce
// of row maxima from a per-partition start.
func TestISA_TensorScalarReduce(t *testing.T) {
	const P, F = 128, 256
	checkISAPipeline(t, isaCase{
		name: "tensor_scalar_reduce",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			m0 := b.Input("m0", bir.Float32, P, 1)
			sq := b.Output("sq", bir.BFloat16, P, F)
			ss := b.Output("ss", bir.Float32, P, 1)
			mx := b.Output("mx", bir.Float32, P, 1)
			xs, ms := b.SBUF("xs", bir.Float32, P, F), b.SBUF("ms", bir.Float32, P, 1)
			sqs, sss, mxs := b.SBUF("sqs", bir.BFloat16, P, F), b.SBUF("sss", bir.Float32, P, 1), b.SBUF("mxs", bir.Float32, P, 1)
			junk := b.SBUF("junk", bir.Float32, P, F)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldm", ms.All(), m0.All())
			b.TensorScalarReduce("sq0", sqs.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, 1), "mult", false, "add", bir.Operand{}, "reset_reduce", bir.Operand{})
			b.TensorScalarReduce("sq1", sqs.Tile(0, P, F/2, F/2), xs.Tile(0, P, F/2, F/2), xs.Tile(0, P, 0, 1), "mult", false, "add", sss.All(), "reduce", bir.Operand{})
			b.TensorScalarReduce("max", junk.All(), xs.All(), bir.Imm(3), "subtract", true, "max", mxs.All(), "load_reduce", ms.All())
			b.Save("st1", sq.All(), sqs.All())
			b.Save("st2", ss.All(), sss.All())
			b.Save("st3", mx.All(), mxs.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, m0 := floats(in["x"]), floats(in["m0"])
			sq, ss, mx := make([]float32, P*F), make([]float32, P), make([]float32, P)
			for p := 0; p < P; p++ {
				s0 := x[p*F]
				mx[p] = m0[p]
				for j := 0; j < F; j++ {
					v := float32(x[p*F+j] * s0)
					sq[p*F+j] = v
					ss[p] = float32(ss[p] + v)
					mx[p] = float32(math.Max(float64(mx[p]), float64(float32(3-x[p*F+j]))))
				}
			}
			return map[string]*interp.Tensor{
				"sq": tensorF("sq", bir.BFloat16, []int64{P, F}, sq),
				"ss": tensorF("ss", bir.Float32, []int64{P, 1}, ss),
				"mx": tensorF("mx", bir.Float32, []int64{P, 1}, mx),
			}
		},
	})
}

// TestISA_TensorScalarCumulative: a prefix sum over a row split in two
// tiles (reset_reduce, then reduce continuing the register), and a
// running max from a loaded start.
func TestISA_TensorScalarCumulative(t *testing.T) {
	const P, F = 128, 128
	checkISAPipeline(t, isaCase{
		name: "tensor_scalar_cumulative",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			st := b.Input("start", bir.Float32, P, 1)
			cs := b.Output("cs", bir.Float32, P, F)
			rm := b.Output("rm", bir.BFloat16, P, F)
			xs, sts := b.SBUF("xs", bir.Float32, P, F), b.SBUF("sts", bir.Float32, P, 1)
			css, rms := b.SBUF("css", bir.Float32, P, F), b.SBUF("rms", bir.BFloat16, P, F)
			b.Load("ldx", xs.All(), x.All())
			b.Load("lds", sts.All(), st.All())
			b.TensorScalarCumulative("c0", css.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, F/2), "mult", bir.Imm(2), "add", bir.Operand{}, "reset_reduce", false)
			b.TensorScalarCumulative("c1", css.Tile(0, P, F/2, F/2), xs.Tile(0, P, F/2, F/2), "mult", bir.Imm(2), "add", bir.Operand{}, "reduce", false)
			b.TensorScalarCumulative("runmax", rms.All(), xs.All(), "subtract", sts.All(), "max", sts.All(), "load_reduce", true)
			b.Save("st1", cs.All(), css.All())
			b.Save("st2", rm.All(), rms.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, s := floats(in["x"]), floats(in["start"])
			cs, rm := make([]float32, P*F), make([]float32, P*F)
			for p := 0; p < P; p++ {
				var acc float32
				reg := s[p]
				for j := 0; j < F; j++ {
					acc = float32(float32(x[p*F+j]*2) + acc)
					cs[p*F+j] = acc
					reg = float32(math.Max(float64(float32(s[p]-x[p*F+j])), float64(reg)))
					rm[p*F+j] = reg
				}
			}
			return map[string]*interp.Tensor{
				"cs": tensorF("cs", bir.Float32, []int64{P, F}, cs),
				"rm": tensorF("rm", bir.BFloat16, []int64{P, F}, rm),
			}
		},
	})
}

// TestISA_RangeSelectSelectReduce: a causal attention mask and its row
// maxima (range_select: keep key j <= query p, fill FP32_MIN, max into
// the accumulator) continued by a select_reduce over a padding mask
// (reduce), the maxima read out after both.
func TestISA_RangeSelectSelectReduce(t *testing.T) {
	const P, F = 128, 192
	checkISAPipeline(t, isaCase{
		name: "range_select",
		build: func(b *bir.Builder) {
			s := b.Input("scores", bir.Float32, P, F)
			q := b.Input("qpos", bir.Float32, P, 1)
			pm := b.Input("pad", bir.Uint8, P, F)
			masked := b.Output("masked", bir.Float32, P, F)
			sel := b.Output("sel", bir.BFloat16, P, F)
			rmax := b.Output("rmax", bir.Float32, P, 1)
			ss, qs, ps := b.SBUF("ss", bir.Float32, P, F), b.SBUF("qs", bir.Float32, P, 1), b.SBUF("ps", bir.Uint8, P, F)
			ms, se, rs := b.SBUF("ms", bir.Float32, P, F), b.SBUF("se", bir.BFloat16, P, F), b.SBUF("rs", bir.Float32, P, 1)
			b.Load("lds", ss.All(), s.All())
			b.Load("ldq", qs.All(), q.All())
			b.Load("ldp", ps.All(), pm.All())
			b.RangeSelect("causal", ms.All(), ss.All(), "is_ge", "is_le", bir.Imm(0), qs.All(), "reset_reduce", bir.Operand{}, "max", 0, -math.MaxFloat32)
			b.SelectReduce("pad", se.All(), ps.All(), ss.All(), bir.Imm(-1e30), rs.All(), "reduce", "max", true)
			b.Save("st1", masked.All(), ms.All())
			b.Save("st2", sel.All(), se.All())
			b.Save("st3", rmax.All(), rs.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			qp, pad := make([]float32, P), make([]int64, P*F)
			for p := range qp {
				qp[p] = float32(p + 32)
			}
			for k := range pad {
				pad[k] = int64((k*31)%5) / 4 // 1 where padding (reverse_pred: keep where 0)
			}
			in["qpos"] = tensorF("qpos", bir.Float32, []int64{P, 1}, qp)
			in["pad"] = tensorI("pad", bir.Uint8, []int64{P, F}, pad)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			s, q, pad := floats(in["scores"]), floats(in["qpos"]), ints(in["pad"])
			ms, se, rm := make([]float32, P*F), make([]float32, P*F), make([]float32, P)
			for p := 0; p < P; p++ {
				r := float32(math.Inf(-1))
				for j := 0; j < F; j++ {
					k := p*F + j
					ms[k] = -math.MaxFloat32
					if float32(j) >= 0 && float32(j) <= q[p] {
						ms[k] = s[k]
					}
					r = float32(math.Max(float64(r), float64(ms[k])))
				}
				for j := 0; j < F; j++ {
					k := p*F + j
					se[k] = -1e30
					if pad[k] == 0 {
						se[k] = s[k]
					}
					r = float32(math.Max(float64(r), float64(se[k])))
				}
				rm[p] = r
			}
			return map[string]*interp.Tensor{
				"masked": tensorF("masked", bir.Float32, []int64{P, F}, ms),
				"sel":    tensorF("sel", bir.BFloat16, []int64{P, F}, se),
				"rmax":   tensorF("rmax", bir.Float32, []int64{P, 1}, rm),
			}
		},
	})
}

// TestISA_Exponential: softmax's numerator and denominator on NC-v4:
// exp(x - max) with the row sums over two column tiles (reset_reduce,
// then reduce), read out after the second.
func TestISA_Exponential(t *testing.T) {
	const P, F = 128, 128
	checkISAPipeline(t, isaCase{
		name: "exponential",
		arch: "trn3",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			mx := b.Input("mx", bir.Float32, P, 1)
			e := b.Output("e", bir.BFloat16, P, F)
			s := b.Output("s", bir.Float32, P, 1)
			xs, ms := b.SBUF("xs", bir.Float32, P, F), b.SBUF("ms", bir.Float32, P, 1)
			es, ss := b.SBUF("es", bir.BFloat16, P, F), b.SBUF("ss", bir.Float32, P, 1)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldm", ms.All(), mx.All())
			b.Exponential("e0", es.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, F/2), ms.All(), bir.Operand{}, "reset_reduce", 0)
			b.Exponential("e1", es.Tile(0, P, F/2, F/2), xs.Tile(0, P, F/2, F/2), ms.All(), ss.All(), "reduce", 0)
			b.Save("st1", e.All(), es.All())
			b.Save("st2", s.All(), ss.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, mx := floats(in["x"]), floats(in["mx"])
			e, s := make([]float32, P*F), make([]float32, P)
			for p := 0; p < P; p++ {
				for j := 0; j < F; j++ {
					v := float32(math.Exp(float64(float32(x[p*F+j] - mx[p]))))
					e[p*F+j] = v
					s[p] = float32(s[p] + v)
				}
			}
			return map[string]*interp.Tensor{
				"e": tensorF("e", bir.BFloat16, []int64{P, F}, e),
				"s": tensorF("s", bir.Float32, []int64{P, 1}, s),
			}
		},
	})
}

// TestISA_Activate2: gelu((x * s[p]) + 0.5) with the row sums over two
// tiles in the Scalar engine's accumulator (reset_reduce, then reduce and
// the readout), on NC-v4.
func TestISA_Activate2(t *testing.T) {
	const P, F = 128, 128
	checkISAPipeline(t, isaCase{
		name: "activate2",
		arch: "trn3",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			sc := b.Input("sc", bir.Float32, P, 1)
			y := b.Output("y", bir.Float32, P, F)
			s := b.Output("s", bir.Float32, P, 1)
			xs, scs, ys, ss := b.SBUF("xs", bir.Float32, P, F), b.SBUF("scs", bir.Float32, P, 1), b.SBUF("ys", bir.Float32, P, F), b.SBUF("ss", bir.Float32, P, 1)
			b.Load("ldx", xs.All(), x.All())
			b.Load("lds", scs.All(), sc.All())
			b.Activate2("a0", "Relu", ys.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, F/2), scs.All(), bir.Imm(0.5), "mult", "add", 0, false, false, "add", bir.Operand{}, "reset_reduce")
			b.Activate2("a1", "Relu", ys.Tile(0, P, F/2, F/2), xs.Tile(0, P, F/2, F/2), scs.All(), bir.Imm(0.5), "mult", "add", 0, false, false, "add", ss.All(), "reduce")
			b.Save("st1", y.All(), ys.All())
			b.Save("st2", s.All(), ss.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, sc := floats(in["x"]), floats(in["sc"])
			y, s := make([]float32, P*F), make([]float32, P)
			for p := 0; p < P; p++ {
				var r0, r1 float32
				for j := 0; j < F; j++ {
					v := float32(float32(x[p*F+j]*sc[p]) + 0.5)
					if v < 0 {
						v = 0
					}
					y[p*F+j] = v
					if j < F/2 {
						if j == 0 {
							r0 = v
						} else {
							r0 = float32(r0 + v)
						}
					} else if j == F/2 {
						r1 = v
					} else {
						r1 = float32(r1 + v)
					}
				}
				s[p] = float32(r0 + r1)
			}
			return map[string]*interp.Tensor{
				"y": tensorF("y", bir.Float32, []int64{P, F}, y),
				"s": tensorF("s", bir.Float32, []int64{P, 1}, s),
			}
		},
	})
}

// TestISA_ActivationForms: nki.isa.activation's current forms: an
// immediate bias with a per-partition scale, the accumulator reset by one
// instruction and continued (reduce) by another that reads it out.
func TestISA_ActivationForms(t *testing.T) {
	const P, F = 128, 96
	checkISAPipeline(t, isaCase{
		name: "activation",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			sc := b.Input("sc", bir.Float32, P, 1)
			y := b.Output("y", bir.Float32, P, F)
			s := b.Output("s", bir.Float32, P, 1)
			xs, scs, ys, ss := b.SBUF("xs", bir.Float32, P, F), b.SBUF("scs", bir.Float32, P, 1), b.SBUF("ys", bir.Float32, P, F), b.SBUF("ss", bir.Float32, P, 1)
			b.Load("ldx", xs.All(), x.All())
			b.Load("lds", scs.All(), sc.All())
			b.ActivationISA("a0", "Exp", ys.Tile(0, P, 0, F/2), xs.Tile(0, P, 0, F/2), bir.Imm(-0.25), scs.All(), "add", bir.Operand{}, "reset_reduce")
			b.ActivationISA("a1", "Exp", ys.Tile(0, P, F/2, F/2), xs.Tile(0, P, F/2, F/2), bir.Imm(-0.25), bir.Imm(2), "add", ss.All(), "reduce")
			b.Save("st1", y.All(), ys.All())
			b.Save("st2", s.All(), ss.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, sc := floats(in["x"]), floats(in["sc"])
			y, s := make([]float32, P*F), make([]float32, P)
			for p := 0; p < P; p++ {
				var r [2]float32
				for j := 0; j < F; j++ {
					m := sc[p]
					if j >= F/2 {
						m = 2
					}
					v := float32(math.Exp(float64(float32(float32(x[p*F+j]*m) + -0.25))))
					y[p*F+j] = v
					h := j / (F / 2)
					if j%(F/2) == 0 {
						r[h] = v
					} else {
						r[h] = float32(r[h] + v)
					}
				}
				s[p] = float32(r[0] + r[1])
			}
			return map[string]*interp.Tensor{
				"y": tensorF("y", bir.Float32, []int64{P, F}, y),
				"s": tensorF("s", bir.Float32, []int64{P, 1}, s),
			}
		},
	})
}
