package kernels

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
)

// mamba is the selective-scan step of Mamba, the NKI tutorial's mamba_v1
// (fused_mamba.rst; perf-anchors.md rows 7-8, a calibration anchor of
// docs/cost-model.md), for batch 1, written from the tutorial's
// description of the kernel (narwhal's own code). Inputs delta and u
// [channels, seq], A [channels, state], B and C [state, seq]; output
// [channels, seq]:
//
//	scanC_accum[c] = 0 for every 128-channel tile c      (nl.zeros: a memset per tile)
//	for s in state:
//	  for c in channels/128:
//	    delta_i = load delta[c];  A_i = load A[c, s]  ([128,1], a scale per partition)
//	    deltaA  = exp(delta_i * A_i)                     activation on Scalar
//	    u_i = load u[c];  B_i = load B[s]  ([1, seq])
//	    deltaU  = delta_i * u_i                           tensor_tensor on Vector
//	    B_bcast = ones[1,128]^T @ B_i                     matmul on Tensor, into PSUM; copied to SBUF
//	    deltaBu = deltaU * B_bcast                        tensor_tensor
//	    scan    = scan(deltaA, deltaBu): h = deltaA*h + deltaBu along seq, from 0
//	                                                      tensor_tensor_scan
//	    C_i = load C[s];  C_bcast = ones^T @ C_i          matmul
//	    scanC   = scan * C_bcast                          tensor_tensor
//	    scanC_accum[c] += scanC                           tensor_tensor
//	for c: store scanC_accum[c]
//
// B_i.broadcast_to((128, seq)) is, as the tutorial says ("a
// partition-dimension broadcast ... using a separate instruction on
// TensorE"), a matmul: B_i is loaded into one partition ([1, seq]) and
// multiplied by a [1, 128] tile of ones (the stationary operand, memset
// once), which writes the row to 128 PSUM partitions; broadcast_to's
// result "will be in SBUF" (nki.language.broadcast_to), so a tensor_copy
// brings it to SBUF for the tensor_tensor. The copy's engine is the
// compiler's choice; narwhal's is Scalar, the least loaded engine that
// reads PSUM (assign_engines' rule, which runs after infer_psum_tensor
// needs to know the copy is not on GpSimd). The broadcast takes one PSUM bank, so seq is at most
// 512 here.
//
// Inputs: delta in [0, 1), A in [-1, -1/8] (the tutorial's A is -1), so
// that exp(delta*A) is in (0, 1] and the scan is a contraction; u, B, C
// in [-1, 1).
func init() {
	Register(&Kernel{
		Name: "mamba",
		Doc:  "Mamba's selective scan (NKI fused_mamba tutorial, mamba_v1), fp32 (calibration anchor)",
		Params: []Param{
			{Name: "channels", Default: "256", Doc: "channels (multiple of 128)"},
			{Name: "seq", Default: "512", Doc: "sequence length"},
			{Name: "state", Default: "16", Doc: "state size"},
			archParam,
		},
		Build:     buildMamba,
		Reference: refMamba,
		Inputs:    mambaInputs,
		Tests:     []string{"channels=128,seq=8,state=2", "channels=256,seq=16,state=3"},
	})
}

func mambaParams(p Params) (ch, seq, st int64, err error) {
	v, err := intParams(p, "channels", "seq", "state")
	if err != nil {
		return 0, 0, 0, err
	}
	ch, seq, st = v[0], v[1], v[2]
	if err := multipleOf("channels", ch, pmax); err != nil {
		return 0, 0, 0, err
	}
	if err := inRange("seq", seq, 1, psumFmax); err != nil {
		return 0, 0, 0, err
	}
	if err := inRange("state", st, 1, 1024); err != nil {
		return 0, 0, 0, err
	}
	return ch, seq, st, nil
}

func buildMamba(p Params) (*bir.Module, error) {
	ch, seq, st, err := mambaParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	dt := bir.Float32
	CT := ch / P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	delta := b.Input("delta", dt, ch, seq)
	u := b.Input("u", dt, ch, seq)
	A := b.Input("A", dt, ch, st)
	B := b.Input("B", dt, st, seq)
	C := b.Input("C", dt, st, seq)
	out := b.Output("output", dt, ch, seq)
	n := st * CT // iterations of the (state, channel tile) nest
	tile := func(name string) bir.T { return b.BlockTensor(name, bir.MemSB, dt, n, P, seq) }
	accum := b.BlockTensor("scanC_accum", bir.MemSB, dt, CT, P, seq) // (n_channel_tile, par_dim(128), seq)
	deltaT, uT, dA := tile("delta_i"), tile("u_i"), tile("deltaA")
	var bB, cB bir.T
	dU, dBu, scan, sC := tile("deltaU"), tile("deltaBu"), tile("scan_res"), tile("scanC")
	aT := b.BlockTensor("A_i", bir.MemSB, dt, n, P, 1)
	bRow := b.BlockTensor("B_row", bir.MemSB, dt, n, 1, seq)
	cRow := b.BlockTensor("C_row", bir.MemSB, dt, n, 1, seq)
	// The broadcasts' results: the compiler places a Tensor-engine result
	// in PSUM (infer_psum_tensor).
	bPS := b.BlockTensor("B_psum", bir.MemOnChip, dt, n, P, seq)
	cPS := b.BlockTensor("C_psum", bir.MemOnChip, dt, n, P, seq)
	bB, cB = tile("B_bcast"), tile("C_bcast")
	ones := b.BlockTensor("ones", bir.MemSB, dt, 1, 1, P)
	row := [][2]int64{{seq, 1}, {1, seq}}
	zero := affine.Const(0)
	full := sbTile(seq)
	accTile := func(c affine.Expr) bir.Operand { return accum.Sym(c, zero, full...) }
	rows := func(t bir.T, c affine.Expr) bir.Operand {
		return t.Sym(zero, affine.Scale(c, P*seq), [2]int64{seq, P}, [2]int64{1, seq})
	}
	b.Memset("ones", bir.EngDVE, ones.Sym(zero, zero, [2]int64{P, 1}, [2]int64{1, P}), 1)
	// A zero bias vector: NC-v2 takes the Activation bias only from a [P,1]
	// tile (an immediate bias is NC-v3 and newer, semantics.md 4.6).
	zeroBias := b.BlockTensor("zero_bias", bir.MemSB, bir.Float32, 1, P, 1)
	b.Memset("zero_bias", bir.EngDVE, zeroBias.Sym(zero, zero, [2]int64{1, P}, [2]int64{1, 1}), 0)
	b.Loop("c_zero", 0, CT, 1, func(c affine.Expr) {
		b.Memset("zero_accum", bir.EngDVE, accTile(c), 0)
	})
	bcast := func(name string, dst, ps, src bir.T, it affine.Expr) {
		b.Matmult(name, ps.Sym(it, zero, full...), ones.Sym(zero, zero, [2]int64{P, 1}, [2]int64{1, P}), src.Sym(it, zero, row...), true, true)
		b.TensorCopy(name+"_to_sbuf", bir.EngAct, dst.Sym(it, zero, full...), ps.Sym(it, zero, full...))
	}
	b.Loop("s", 0, st, 1, func(s affine.Expr) {
		b.Loop("c", 0, CT, 1, func(c affine.Expr) {
			it := affine.Add(affine.Scale(s, CT), c)
			b.Load("load_delta", deltaT.Sym(it, zero, full...), rows(delta, c))
			b.Load("load_A", aT.Sym(it, zero, sbTile(1)...), A.Sym(zero, affine.Add(affine.Scale(c, P*st), s), [2]int64{st, P}, [2]int64{1, 1}))
			b.Inst(bir.OpActivation, "deltaA", bir.EngAct, []bir.Operand{deltaT.Sym(it, zero, full...), zeroBias.Sym(zero, zero, [2]int64{1, P}, [2]int64{1, 1}), aT.Sym(it, zero, sbTile(1)...)},
				[]bir.Operand{dA.Sym(it, zero, full...)}, bir.Attrs("func", "Exp", "scale", bir.Float(1), "alpha", bir.Float(0), "acc", "Idle"))
			b.Load("load_u", uT.Sym(it, zero, full...), rows(u, c))
			b.Load("load_B", bRow.Sym(it, zero, row...), B.Sym(zero, affine.Scale(s, seq), [2]int64{seq, 1}, [2]int64{1, seq}))
			b.TensorTensor("deltaU", bir.EngDVE, "mult", dU.Sym(it, zero, full...), deltaT.Sym(it, zero, full...), uT.Sym(it, zero, full...))
			bcast("broadcast_B", bB, bPS, bRow, it)
			b.TensorTensor("deltaBu", bir.EngDVE, "mult", dBu.Sym(it, zero, full...), dU.Sym(it, zero, full...), bB.Sym(it, zero, full...))
			// state = dA * state + dBu along the sequence (nisa.tensor_tensor_scan).
			b.TensorTensorScan("scan", scan.Sym(it, zero, full...), dA.Sym(it, zero, full...), dBu.Sym(it, zero, full...), bir.Imm(0), "mult", "add", false, false)
			b.Load("load_C", cRow.Sym(it, zero, row...), C.Sym(zero, affine.Scale(s, seq), [2]int64{seq, 1}, [2]int64{1, seq}))
			bcast("broadcast_C", cB, cPS, cRow, it)
			b.TensorTensor("scanC", bir.EngDVE, "mult", sC.Sym(it, zero, full...), scan.Sym(it, zero, full...), cB.Sym(it, zero, full...))
			b.TensorTensor("accumulate", bir.EngDVE, "add", accTile(c), accTile(c), sC.Sym(it, zero, full...))
		})
	})
	b.Loop("c_out", 0, CT, 1, func(c affine.Expr) {
		b.Save("store_output", rows(out, c), accTile(c))
	})
	return finish(b)
}

// mambaInputs draws delta in [0, 1), A in [-1, -1/8], u, B and C in
// [-1, 1) (see the kernel comment).
func mambaInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	out := map[string]*interp.Tensor{}
	for _, s := range interp.InputSpecs(m) {
		r := rng(seed, s.Name)
		switch s.Name {
		case "delta":
			out[s.Name] = fillFloats(s, func(int64) float64 { return r.Float64() })
		case "A":
			out[s.Name] = fillFloats(s, func(int64) float64 { return -1 + r.Float64()*7/8 })
		default:
			out[s.Name] = fillFloats(s, func(int64) float64 { return 2*r.Float64() - 1 })
		}
	}
	return out
}
