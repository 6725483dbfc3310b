package pipeline

// End-to-end tests of the NKI ISA instructions of bir/builder_isa.go
// (docs/isa.md): a small module per instruction, built with the Builder,
// compiled pass by pass through the default pipeline (each pass between
// two verifications at the stages reached so far and two interpreter runs
// whose outputs must be bit-identical: passtest.CheckPass), then run
// sequentially and compared with a Go reference written here, then run
// concurrently (interp.RunConcurrent, three interleavings) race-free with
// the same outputs. The module's text and BIR-JSON forms round-trip as
// built and as compiled (checkRoundTrip).

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/numeric"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// isaCase is one end-to-end module: build declares it with the Builder,
// reference computes its outputs from its inputs in Go.
type isaCase struct {
	name      string
	arch      string // "" is trn2
	build     func(b *bir.Builder)
	inputs    func(m *bir.Module) map[string]*interp.Tensor // nil: interp.RandomInputs(m, 7)
	reference func(in map[string]*interp.Tensor) map[string]*interp.Tensor
}

// checkISAPipeline runs the default pipeline (gates off) on c's module pass
// by pass under passtest.CheckPass, then checks the result against the
// reference sequentially and concurrently.
func checkISAPipeline(t *testing.T, c isaCase) {
	t.Helper()
	arch := c.arch
	if arch == "" {
		arch = "trn2"
	}
	m := bir.NewModule(arch)
	b := bir.NewBuilder(m, "main")
	c.build(b)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	in := interp.RandomInputs(m, 7)
	if c.inputs != nil {
		in = c.inputs(m)
	}
	want := c.reference(clone(in))
	checkRoundTrip(t, "built", m)
	var stage verify.Stage
	ran := 0
	for k := range Table.Passes {
		p := &Table.Passes[k]
		if !p.Default || p.Gate != "" {
			continue
		}
		passtest.CheckPass(t, m, p, passtest.StageBefore(stage), passtest.Stage(stage|p.Produces), passtest.Inputs(clone(in)))
		stage |= p.Produces
		ran++
	}
	if err := verify.Module(m, verify.Options{Stage: stage}); err != nil {
		t.Fatalf("after the pipeline (stage %v): %v", stage, err)
	}
	checkRoundTrip(t, "after the default pipeline", m)
	got, err := interp.Run(m, clone(in), interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.CompareSets(got, want, nil); err != nil {
		t.Fatalf("compiled module against the Go reference: %v", err)
	}
	for _, pol := range []interp.Policy{interp.PolicyRandom, interp.PolicyLateDMA, interp.PolicyRandom} {
		res, err := interp.RunConcurrent(m, clone(in), interp.ConcurrentOptions{Policy: pol, Seed: uint64(ran) + uint64(pol)})
		if err != nil {
			t.Fatalf("concurrent run (policy %d): %v", pol, err)
		}
		if !res.OK() {
			t.Fatalf("concurrent run (policy %d): %d races (%v), deadlock %v, late %v", pol, res.RacesFound, res.Races, res.Deadlock, res.Late)
		}
		if err := ref.CompareSets(res.Outputs, want, nil); err != nil {
			t.Fatalf("concurrent run (policy %d) against the Go reference: %v", pol, err)
		}
	}
	t.Logf("%d passes, %d instructions after the pipeline", ran, m.Main().NumInsts())
}

func clone(in map[string]*interp.Tensor) map[string]*interp.Tensor {
	out := make(map[string]*interp.Tensor, len(in))
	for k, v := range in {
		c := *v
		c.Data = append([]byte(nil), v.Data...)
		c.Shape = append([]int64(nil), v.Shape...)
		out[k] = &c
	}
	return out
}

// floats decodes a tensor to fp32 (integers through int64).
func floats(t *interp.Tensor) []float32 {
	size := t.Dtype.Size()
	out := make([]float32, int64(len(t.Data))/size)
	for i := range out {
		bits := numeric.LoadBits(t.Dtype, t.Data[int64(i)*size:])
		if numeric.IsInt(t.Dtype) {
			out[i] = float32(numeric.Int64Of(t.Dtype, bits))
			continue
		}
		out[i], _ = numeric.ToFloat32(t.Dtype, bits)
	}
	return out
}

func ints(t *interp.Tensor) []int64 {
	size := t.Dtype.Size()
	out := make([]int64, int64(len(t.Data))/size)
	for i := range out {
		out[i] = numeric.Int64Of(t.Dtype, numeric.LoadBits(t.Dtype, t.Data[int64(i)*size:]))
	}
	return out
}

// tensorF encodes fp32 values as a tensor of dtype dt (RNE).
func tensorF(name string, dt bir.Dtype, shape []int64, vals []float32) *interp.Tensor {
	size := dt.Size()
	t := &interp.Tensor{Name: name, Dtype: dt, Shape: shape, Data: make([]byte, int64(len(vals))*size)}
	for i, v := range vals {
		bits, _ := numeric.FromFloat32(dt, v)
		numeric.StoreBits(dt, t.Data[int64(i)*size:], bits)
	}
	return t
}

func tensorI(name string, dt bir.Dtype, shape []int64, vals []int64) *interp.Tensor {
	size := dt.Size()
	t := &interp.Tensor{Name: name, Dtype: dt, Shape: shape, Data: make([]byte, int64(len(vals))*size)}
	for i, v := range vals {
		bits, _ := numeric.WrapInt(dt, v)
		numeric.StoreBits(dt, t.Data[int64(i)*size:], bits)
	}
	return t
}

// TestISA_TensorTensorScan: a Mamba-style selective scan h = a*h + b over
// [128, 256] (initial state per partition), and a reversed subtracting
// scan with an immediate initial state written as bf16.
func TestISA_TensorTensorScan(t *testing.T) {
	const P, F = 128, 256
	checkISAPipeline(t, isaCase{
		name: "scan",
		build: func(b *bir.Builder) {
			a := b.Input("a", bir.Float32, P, F)
			x := b.Input("x", bir.Float32, P, F)
			h0 := b.Input("h0", bir.Float32, P, 1)
			h := b.Output("h", bir.Float32, P, F)
			r := b.Output("r", bir.BFloat16, P, F)
			as, xs, hs := b.SBUF("as", bir.Float32, P, F), b.SBUF("xs", bir.Float32, P, F), b.SBUF("h0s", bir.Float32, P, 1)
			ho, ro := b.SBUF("ho", bir.Float32, P, F), b.SBUF("ro", bir.BFloat16, P, F)
			b.Load("lda", as.All(), a.All())
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldh", hs.All(), h0.All())
			b.TensorTensorScan("mamba_scan", ho.All(), as.All(), xs.All(), hs.All(), "mult", "add", false, false)
			b.TensorTensorScan("rev_scan", ro.All(), xs.All(), as.All(), bir.Imm(0.5), "subtract", "mult", true, true)
			b.Save("sth", h.All(), ho.All())
			b.Save("str", r.All(), ro.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			a, x, h0 := floats(in["a"]), floats(in["x"]), floats(in["h0"])
			h, r := make([]float32, P*F), make([]float32, P*F)
			for p := 0; p < P; p++ {
				s := h0[p]
				q := float32(0.5)
				for j := 0; j < F; j++ {
					k := p*F + j
					s = float32(float32(a[k]*s) + x[k])
					h[k] = s
					q = float32(a[k] * float32(q-x[k])) // t = state - x (reverse0); state = a * t (reverse1)
					r[k] = q
				}
			}
			return map[string]*interp.Tensor{
				"h": tensorF("h", bir.Float32, []int64{P, F}, h),
				"r": tensorF("r", bir.BFloat16, []int64{P, F}, r),
			}
		},
	})
}

// TestISA_TensorPartitionReduce: column sums of an fp32 [128, 64] tile and
// the exact int32 max across 64 partitions (values above 2^24), on GpSimd.
func TestISA_TensorPartitionReduce(t *testing.T) {
	const P, F, Q, G = 128, 64, 64, 16
	checkISAPipeline(t, isaCase{
		name: "partition_reduce",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			n := b.Input("n", bir.Int32, Q, G)
			s := b.Output("s", bir.Float32, 1, F)
			mx := b.Output("mx", bir.Int32, 1, G)
			xs, ns := b.SBUF("xs", bir.Float32, P, F), b.SBUF("ns", bir.Int32, Q, G)
			ss, ms := b.SBUF("ss", bir.Float32, 1, F), b.SBUF("ms", bir.Int32, 1, G)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldn", ns.All(), n.All())
			b.TensorPartitionReduce("colsum", "add", ss.All(), xs.All())
			b.TensorPartitionReduce("colmax", "max", ms.All(), ns.All())
			b.Save("sts", s.All(), ss.All())
			b.Save("stm", mx.All(), ms.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			vals := make([]int64, Q*G)
			for k := range vals {
				vals[k] = int64((k*7919)%100003) + 1<<24 - 50000 // around 2^24: an fp32 max would round
			}
			in["n"] = tensorI("n", bir.Int32, []int64{Q, G}, vals)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, n := floats(in["x"]), ints(in["n"])
			s, mx := make([]float32, F), make([]int64, G)
			for j := 0; j < F; j++ {
				for p := 0; p < P; p++ {
					s[j] = float32(s[j] + x[p*F+j])
				}
			}
			for j := 0; j < G; j++ {
				mx[j] = math.MinInt64
				for p := 0; p < Q; p++ {
					mx[j] = max(mx[j], n[p*G+j])
				}
			}
			return map[string]*interp.Tensor{
				"s":  tensorF("s", bir.Float32, []int64{1, F}, s),
				"mx": tensorI("mx", bir.Int32, []int64{1, G}, mx),
			}
		},
	})
}

// TestISA_Where: nl.where(pred, x, y) as the front end builds it: a copy
// of y, then tensor_copy_predicated of x over it; and a masked fill with
// an immediate source (reverse_pred). The destination's earlier value is
// read by the predicated copy, so no pass may drop the copy before it.
func TestISA_Where(t *testing.T) {
	const P, F = 128, 96
	checkISAPipeline(t, isaCase{
		name: "where",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			y := b.Input("y", bir.Float32, P, F)
			pr := b.Input("pred", bir.Uint8, P, F)
			w := b.Output("w", bir.Float32, P, F)
			fl := b.Output("fill", bir.Float32, P, F)
			xs, ys, ps := b.SBUF("xs", bir.Float32, P, F), b.SBUF("ys", bir.Float32, P, F), b.SBUF("ps", bir.Uint8, P, F)
			ws, fs := b.SBUF("ws", bir.Float32, P, F), b.SBUF("fs", bir.Float32, P, F)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldy", ys.All(), y.All())
			b.Load("ldp", ps.All(), pr.All())
			b.TensorCopy("on_false", bir.EngDVE, ws.All(), ys.All())
			b.TensorCopyPredicated("where", ws.All(), xs.All(), ps.All(), false)
			b.TensorCopy("keep", bir.EngAct, fs.All(), xs.All())
			b.TensorCopyPredicated("masked_fill", fs.All(), bir.Imm(-3.5), ps.All(), true)
			b.Save("stw", w.All(), ws.All())
			b.Save("stf", fl.All(), fs.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			p := make([]int64, P*F)
			for k := range p {
				p[k] = int64(k*k%7) % 2
			}
			in["pred"] = tensorI("pred", bir.Uint8, []int64{P, F}, p)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, y, p := floats(in["x"]), floats(in["y"]), ints(in["pred"])
			w, fl := make([]float32, P*F), make([]float32, P*F)
			for k := range w {
				w[k], fl[k] = y[k], -3.5
				if p[k] != 0 {
					w[k], fl[k] = x[k], x[k]
				}
			}
			return map[string]*interp.Tensor{
				"w":    tensorF("w", bir.Float32, []int64{P, F}, w),
				"fill": tensorF("fill", bir.Float32, []int64{P, F}, fl),
			}
		},
	})
}

// TestISA_ScalarTensorTensor: (x - mean[p]) * g with a per-partition
// scalar and a whole tensor, and a reversed form with an immediate.
func TestISA_ScalarTensorTensor(t *testing.T) {
	const P, F = 128, 128
	checkISAPipeline(t, isaCase{
		name: "stt",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			g := b.Input("g", bir.Float32, P, F)
			mu := b.Input("mu", bir.Float32, P, 1)
			o := b.Output("o", bir.Float32, P, F)
			r := b.Output("r", bir.BFloat16, P, F)
			xs, gs, ms := b.SBUF("xs", bir.Float32, P, F), b.SBUF("gs", bir.Float32, P, F), b.SBUF("ms", bir.Float32, P, 1)
			os, rs := b.SBUF("os", bir.Float32, P, F), b.SBUF("rs", bir.BFloat16, P, F)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldg", gs.All(), g.All())
			b.Load("ldm", ms.All(), mu.All())
			b.ScalarTensorTensor("center_scale", os.All(), xs.All(), ms.All(), gs.All(), "subtract", "mult", false, false)
			b.ScalarTensorTensor("rev", rs.All(), xs.All(), bir.Imm(2), gs.All(), "divide", "subtract", true, true)
			b.Save("sto", o.All(), os.All())
			b.Save("str", r.All(), rs.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, g, mu := floats(in["x"]), floats(in["g"]), floats(in["mu"])
			o, r := make([]float32, P*F), make([]float32, P*F)
			for k := range o {
				o[k] = float32(float32(x[k]-mu[k/F]) * g[k])
				r[k] = float32(g[k] - float32(2/x[k]))
			}
			return map[string]*interp.Tensor{
				"o": tensorF("o", bir.Float32, []int64{P, F}, o),
				"r": tensorF("r", bir.BFloat16, []int64{P, F}, r),
			}
		},
	})
}

// TestISA_Top8: the top-k idiom of nki-library: max8, nc_find_index8 of
// the values found, nc_match_replace8 clearing them (with their indices).
func TestISA_Top8(t *testing.T) {
	const P, F = 128, 64
	checkISAPipeline(t, isaCase{
		name: "top8",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			zt := b.Output("top", bir.Float32, P, 8)
			zi := b.Output("idx", bir.Uint32, P, 8)
			zr := b.Output("rest", bir.BFloat16, P, F)
			zri := b.Output("restidx", bir.Uint16, P, 8)
			a, top, idx := b.SBUF("a", bir.Float32, P, F), b.SBUF("tops", bir.Float32, P, 8), b.SBUF("idxs", bir.Uint32, P, 8)
			rest, restidx := b.SBUF("rests", bir.BFloat16, P, F), b.SBUF("restidxs", bir.Uint16, P, 8)
			b.Load("ld", a.All(), x.All())
			b.Max8("max8", top.All(), a.All())
			b.FindIndex8("find", idx.All(), a.All(), top.All())
			b.MatchReplace8("mr", rest.All(), a.All(), top.All(), -3e38, restidx.All())
			b.Save("s1", zt.All(), top.All())
			b.Save("s2", zi.All(), idx.All())
			b.Save("s3", zr.All(), rest.All())
			b.Save("s4", zri.All(), restidx.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x := floats(in["x"])
			top, rest := make([]float32, P*8), make([]float32, P*F)
			idx := make([]int64, P*8)
			copy(rest, x)
			for p := 0; p < P; p++ {
				row := x[p*F : (p+1)*F]
				taken := make([]bool, F)
				for k := 0; k < 8; k++ {
					best := -1
					for j, v := range row {
						if !taken[j] && (best < 0 || v > row[best]) {
							best = j
						}
					}
					taken[best] = true
					top[p*8+k], idx[p*8+k] = row[best], int64(best)
					rest[p*F+best] = -3e38
				}
			}
			return map[string]*interp.Tensor{
				"top":     tensorF("top", bir.Float32, []int64{P, 8}, top),
				"idx":     tensorI("idx", bir.Uint32, []int64{P, 8}, idx),
				"rest":    tensorF("rest", bir.BFloat16, []int64{P, F}, rest),
				"restidx": tensorI("restidx", bir.Uint16, []int64{P, 8}, idx),
			}
		},
	})
}

// TestISA_ActivationReduce: exp(x*0.5 + b[p]) with the row sums read out
// of the Activation accumulator (softmax's numerator and denominator).
func TestISA_ActivationReduce(t *testing.T) {
	const P, F = 128, 64
	checkISAPipeline(t, isaCase{
		name: "activation_reduce",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			bi := b.Input("bias", bir.Float32, P, 1)
			e := b.Output("e", bir.Float32, P, F)
			s := b.Output("s", bir.Float32, P, 1)
			xs, bs := b.SBUF("xs", bir.Float32, P, F), b.SBUF("bs", bir.Float32, P, 1)
			es, ss := b.SBUF("es", bir.Float32, P, F), b.SBUF("ss", bir.Float32, P, 1)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldb", bs.All(), bi.All())
			b.ActivationReduce("exp_sum", "Exp", es.All(), xs.All(), 0.5, bs.All(), "add", ss.All())
			b.Save("ste", e.All(), es.All())
			b.Save("sts", s.All(), ss.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, bias := floats(in["x"]), floats(in["bias"])
			e, s := make([]float32, P*F), make([]float32, P)
			for p := 0; p < P; p++ {
				for j := 0; j < F; j++ {
					k := p*F + j
					z := float32(float32(x[k]*0.5) + bias[p])
					e[k] = float32(math.Exp(float64(z)))
					if j == 0 {
						s[p] = e[k]
					} else {
						s[p] = float32(s[p] + e[k])
					}
				}
			}
			return map[string]*interp.Tensor{
				"e": tensorF("e", bir.Float32, []int64{P, F}, e),
				"s": tensorF("s", bir.Float32, []int64{P, 1}, s),
			}
		},
	})
}
