package pipeline

// End-to-end tests of the data-rearranging nki.isa instructions, the DMA
// forms (dma_compute, the 3-D and 4-D dma_transpose) and the register
// instructions (docs/isa.md).

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
)

// TestISA_LocalGather: an MoE-style token gather on GpSimd: each core's
// 16 index rows (the same indices replicated to the 8 cores, the
// reference's common use) pick 4-element groups of every partition's row.
func TestISA_LocalGather(t *testing.T) {
	const P, F, Fi, E, V = 128, 256, 4, 4, 48
	checkISAPipeline(t, isaCase{
		name: "local_gather",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.BFloat16, P, F)
			ix := b.Input("ix", bir.Uint16, P, Fi)
			g := b.Output("g", bir.BFloat16, P, V*E)
			xs, is, gs := b.SBUF("xs", bir.BFloat16, P, F), b.SBUF("is", bir.Uint16, P, Fi), b.SBUF("gs", bir.BFloat16, P, V*E)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldi", is.All(), ix.All())
			b.LocalGather("gather", gs.All(), xs.All(), is.All(), E, V)
			b.Save("st", g.All(), gs.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			idx := make([]int64, P*Fi)
			for p := 0; p < P; p++ {
				for j := 0; j < Fi; j++ {
					k := j*16 + p%16 // the core-flattened index number
					idx[p*Fi+j] = int64((k*37)%(F/E)) * E
				}
			}
			in["ix"] = tensorI("ix", bir.Uint16, []int64{P, Fi}, idx)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, ix := floats(in["x"]), ints(in["ix"])
			g := make([]float32, P*V*E)
			for p := 0; p < P; p++ {
				c := p / 16
				for v := 0; v < V; v++ {
					at := int(ix[(16*c+v%16)*Fi+v/16])
					for e := 0; e < E; e++ {
						g[(p*V+v)*E+e] = x[p*F+at+e]
					}
				}
			}
			return map[string]*interp.Tensor{"g": tensorF("g", bir.BFloat16, []int64{P, V * E}, g)}
		},
	})
}

// TestISA_NGatherStreamShuffle: nc_n_gather (per-partition gather of 64
// elements out of 512) and nc_stream_shuffle (swap the halves of every
// quadrant, partition 3 of each quadrant kept).
func TestISA_NGatherStreamShuffle(t *testing.T) {
	const P, F, N = 128, 512, 64
	mask := make([]int64, 32)
	for i := range mask {
		mask[i] = int64((i + 16) % 32)
	}
	mask[3] = 255
	checkISAPipeline(t, isaCase{
		name: "nc_n_gather",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Float32, P, F)
			ix := b.Input("ix", bir.Uint32, P, N)
			y := b.Input("y", bir.Float32, P, N)
			g := b.Output("g", bir.Float32, P, N)
			sh := b.Output("sh", bir.Float32, P, N)
			xs, is, gs := b.SBUF("xs", bir.Float32, P, F), b.SBUF("is", bir.Uint32, P, N), b.SBUF("gs", bir.Float32, P, N)
			ys, ss := b.SBUF("ys", bir.Float32, P, N), b.SBUF("ss", bir.Float32, P, N)
			b.Load("ldx", xs.All(), x.All())
			b.Load("ldi", is.All(), ix.All())
			b.Load("ldy", ys.All(), y.All())
			b.NGather("gather", gs.All(), xs.All(), is.All())
			b.TensorCopy("keep", bir.EngDVE, ss.All(), ys.All())
			b.StreamShuffle("shuffle", ss.All(), gs.All(), mask)
			b.Save("st1", g.All(), gs.All())
			b.Save("st2", sh.All(), ss.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			idx := make([]int64, P*N)
			for k := range idx {
				idx[k] = int64((k*7919 + k/N) % F)
			}
			in["ix"] = tensorI("ix", bir.Uint32, []int64{P, N}, idx)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x, ix, y := floats(in["x"]), ints(in["ix"]), floats(in["y"])
			g, sh := make([]float32, P*N), make([]float32, P*N)
			for k := range g {
				g[k] = x[(k/N)*F+int(ix[k])]
			}
			for r := 0; r < P; r++ {
				for j := 0; j < N; j++ {
					if r%32 == 3 {
						sh[r*N+j] = y[r*N+j]
						continue
					}
					sh[r*N+j] = g[(32*(r/32)+int(mask[r%32]))*N+j]
				}
			}
			return map[string]*interp.Tensor{
				"g":  tensorF("g", bir.Float32, []int64{P, N}, g),
				"sh": tensorF("sh", bir.Float32, []int64{P, N}, sh),
			}
		},
	})
}

// TestISA_SequenceBoundsNonzero: sequence_bounds of packed sequences
// (segment ids with padding) and nonzero_with_count of a sparse mask on
// the eight GpSimd cores' first partitions.
func TestISA_SequenceBoundsNonzero(t *testing.T) {
	const n, P, T = 256, 128, 64
	checkISAPipeline(t, isaCase{
		name: "sequence_bounds",
		build: func(b *bir.Builder) {
			seg := b.Input("seg", bir.Int32, 1, n)
			msk := b.Input("msk", bir.Float32, P, T)
			init := b.Input("init", bir.Int32, P, T+1)
			bo := b.Output("bounds", bir.Int32, 1, 2, n)
			nz := b.Output("nz", bir.Int32, P, T+1)
			ss, bs := b.SBUF("ss", bir.Int32, 1, n), b.SBUF("bs", bir.Int32, 1, 2, n)
			ms, ns := b.SBUF("ms", bir.Float32, P, T), b.SBUF("ns", bir.Int32, P, T+1)
			b.Load("lds", ss.All(), seg.All())
			b.Load("ldm", ms.All(), msk.All())
			b.Load("ldi", ns.All(), init.All())
			b.SequenceBounds("bounds", bs.All(), ss.All())
			b.NonzeroWithCount("nonzero", ns.All(), ms.All(), 1000, -1)
			b.Save("st1", bo.All(), bs.All())
			b.Save("st2", nz.All(), ns.All())
		},
		inputs: func(m *bir.Module) map[string]*interp.Tensor {
			in := interp.RandomInputs(m, 7)
			seg := make([]int64, n)
			id := int64(1)
			for k := range seg {
				if k%37 == 0 {
					id++
				}
				seg[k] = id
				if k%50 > 44 {
					seg[k] = 0 // padding
				}
			}
			mk := make([]float32, P*T)
			for k := range mk {
				if k%11 == 0 || k%13 == 0 {
					mk[k] = 1
				}
			}
			in["seg"] = tensorI("seg", bir.Int32, []int64{1, n}, seg)
			in["msk"] = tensorF("msk", bir.Float32, []int64{P, T}, mk)
			return in
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			seg, mk, init := ints(in["seg"]), floats(in["msk"]), ints(in["init"])
			bo := make([]int64, 2*n)
			for i := 0; i < n; i++ {
				if seg[i] == 0 {
					bo[i], bo[n+i] = n, -1
					continue
				}
				lo, hi := i, i+1
				for lo > 0 && seg[lo-1] == seg[i] {
					lo--
				}
				for hi < n && seg[hi] == seg[i] {
					hi++
				}
				bo[i], bo[n+i] = int64(lo), int64(hi)
			}
			nz := append([]int64(nil), init...)
			for p := 0; p < P; p += 16 {
				row := nz[p*(T+1) : (p+1)*(T+1)]
				c := 0
				for j := 0; j < T; j++ {
					if mk[p*T+j] != 0 {
						row[c] = int64(j + 1000)
						c++
					}
				}
				for k := c; k < T; k++ {
					row[k] = -1
				}
				row[T] = int64(c)
			}
			return map[string]*interp.Tensor{
				"bounds": tensorI("bounds", bir.Int32, []int64{1, 2, n}, bo),
				"nz":     tensorI("nz", bir.Int32, []int64{P, T + 1}, nz),
			}
		},
	})
}

// TestISA_DMAComputeTranspose: dma_compute summing three tensors (one
// from SBUF) into DRAM, and the 3-D and 4-D dma_transpose from DRAM into
// SBUF.
func TestISA_DMAComputeTranspose(t *testing.T) {
	const P, F = 128, 64
	checkISAPipeline(t, isaCase{
		name: "dma_compute",
		build: func(b *bir.Builder) {
			a := b.Input("a", bir.Float32, P, F)
			c := b.Input("c", bir.Float32, P, F)
			d := b.Input("d", bir.Float32, P, F)
			h3 := b.Input("h3", bir.BFloat16, 4, 8, 32)
			h4 := b.Input("h4", bir.BFloat16, 2, 3, 4, 32)
			sum := b.Output("sum", bir.Float32, P, F)
			o3 := b.Output("o3", bir.BFloat16, 32, 8, 4)
			o4 := b.Output("o4", bir.BFloat16, 32, 3, 4, 2)
			ds := b.SBUF("ds", bir.Float32, P, F)
			t3, t4 := b.SBUF("t3", bir.BFloat16, 32, 8, 4), b.SBUF("t4", bir.BFloat16, 32, 3, 4, 2)
			b.Load("ldd", ds.All(), d.All())
			b.DMACompute("sum3", sum.All(), []bir.Operand{a.All(), c.All(), ds.All()}, nil, "add")
			b.DMATranspose("tr3", t3.All(), h3.All(), 3)
			b.DMATranspose("tr4", t4.All(), h4.All(), 4)
			b.Save("st3", o3.All(), t3.All())
			b.Save("st4", o4.All(), t4.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			a, c, d := floats(in["a"]), floats(in["c"]), floats(in["d"])
			h3, h4 := floats(in["h3"]), floats(in["h4"])
			sum := make([]float32, P*F)
			for k := range sum {
				sum[k] = float32(float32(a[k]+c[k]) + d[k])
			}
			o3 := make([]float32, 4*8*32)
			for i := 0; i < 4; i++ {
				for j := 0; j < 8; j++ {
					for k := 0; k < 32; k++ {
						o3[(k*8+j)*4+i] = h3[(i*8+j)*32+k]
					}
				}
			}
			o4 := make([]float32, 2*3*4*32)
			for i := 0; i < 2; i++ {
				for j := 0; j < 3; j++ {
					for k := 0; k < 4; k++ {
						for l := 0; l < 32; l++ {
							o4[((l*3+j)*4+k)*2+i] = h4[((i*3+j)*4+k)*32+l]
						}
					}
				}
			}
			return map[string]*interp.Tensor{
				"sum": tensorF("sum", bir.Float32, []int64{P, F}, sum),
				"o3":  tensorF("o3", bir.BFloat16, []int64{32, 8, 4}, o3),
				"o4":  tensorF("o4", bir.BFloat16, []int64{32, 3, 4, 2}, o4),
			}
		},
	})
}

// TestISA_Registers: register_alloc with a value, register_load of a
// computed element, register_move between registers and register_store,
// the register values flowing through SBUF to the output.
func TestISA_Registers(t *testing.T) {
	checkISAPipeline(t, isaCase{
		name: "registers",
		build: func(b *bir.Builder) {
			x := b.Input("x", bir.Int32, 1, 4)
			z := b.Output("z", bir.Int32, 1, 4)
			xs, zs := b.SBUF("xs", bir.Int32, 1, 4), b.SBUF("zs", bir.Int32, 1, 4)
			b.Load("ldx", xs.All(), x.All())
			b.Memset("zero", bir.EngDVE, zs.All(), 0)
			five := b.RegisterAlloc("five", 5)
			r := b.RegisterAlloc("r")
			b.RegisterLoad("load", r, xs.Tile(0, 1, 2, 1))
			copyR := b.RegisterAlloc("copy")
			b.RegisterMove("move", copyR, r)
			b.RegisterStore("store0", zs.Tile(0, 1, 0, 1), five)
			b.RegisterStore("store1", zs.Tile(0, 1, 1, 1), copyR)
			b.RegisterMove("imm", r, bir.ImmI(-9, bir.Int32))
			b.RegisterStore("store3", zs.Tile(0, 1, 3, 1), r)
			b.Save("st", z.All(), zs.All())
		},
		reference: func(in map[string]*interp.Tensor) map[string]*interp.Tensor {
			x := ints(in["x"])
			return map[string]*interp.Tensor{"z": tensorI("z", bir.Int32, []int64{1, 4}, []int64{5, x[2], 0, -9})}
		},
	})
}
