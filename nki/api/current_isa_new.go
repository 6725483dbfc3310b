package api

// The nki.isa instructions only the current API has (issue 25 item 1),
// each lowered with the bir.Builder method of its ISA encoding
// (docs/isa.md). An instruction whose encoding narwhal does not have is a
// NotSupported error naming it and the reason (curUnsupported), never an
// instruction the interpreter cannot run.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// top8 checks the max8 family's shapes: src/data with 8..16384 elements
// per partition, a [P, 8] vals or dst.
func top8(what string, data, eight lower.Access, param string) error {
	if n := data.FreeElems(); n < 8 || n > 16384 {
		return nkiErrorf("%s: %s has %d elements per partition; the instruction reads 8 to 16,384", what, data.T.Describe(), n)
	}
	if eight.FreeElems() != 8 || eight.Partitions() != data.Partitions() {
		return nkiErrorf("%s: %s must be [%d, 8], has shape %s", what, param, data.Partitions(), shapeText(eight.Shape()))
	}
	return nil
}

func curMax8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.max8"
	var dst, src, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	s, err := curTile(src, what, "src")
	if err != nil {
		return nil, err
	}
	if err := top8(what, s, d, "dst"); err != nil {
		return nil, err
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s}, []lower.Access{d}, func(b *bir.Builder) error {
		b.Max8(k.InstName("max8"), k.Operand(d), k.Operand(s))
		return nil
	}))
}

func curFindIndex8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_find_index8"
	var dst, data, vals, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "vals", &vals, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	v, err := curTile(vals, what, "vals")
	if err != nil {
		return nil, err
	}
	if err := top8(what, a, v, "vals"); err != nil {
		return nil, err
	}
	if err := top8(what, a, d, "dst"); err != nil {
		return nil, err
	}
	if d.Dtype != bir.Uint16 && d.Dtype != bir.Uint32 {
		return nil, nkiErrorf("%s: dst holds indices, uint16 or uint32, not %s", what, d.Dtype)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a, v}, []lower.Access{d}, func(b *bir.Builder) error {
		b.FindIndex8(k.InstName("find_index8"), k.Operand(d), k.Operand(a), k.Operand(v))
		return nil
	}))
}

func curMatchReplace8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_match_replace8"
	var dst, data, vals, imm, dstIdx, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "vals", &vals, "imm", &imm, "dst_idx?", &dstIdx, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	v, err := curTile(vals, what, "vals")
	if err != nil {
		return nil, err
	}
	if err := top8(what, a, v, "vals"); err != nil {
		return nil, err
	}
	if err := checkLockstep(what, d, a, "data"); err != nil {
		return nil, err
	}
	f, _, ok := number(imm)
	if !ok {
		return nil, typeErrorf("%s: imm must be a number, not %s", what, imm.Type())
	}
	writes := []lower.Access{d}
	var idx *lower.Access
	if !isNone(dstIdx) {
		ia, err := onChipDst(dstIdx, what)
		if err != nil {
			return nil, err
		}
		if err := top8(what, a, ia, "dst_idx"); err != nil {
			return nil, err
		}
		idx = &ia
		writes = append(writes, ia)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a, v}, writes, func(b *bir.Builder) error {
		var io bir.Operand
		if idx != nil {
			io = k.Operand(*idx)
		}
		b.MatchReplace8(k.InstName("match_replace8"), k.Operand(d), k.Operand(a), k.Operand(v), f, io)
		return nil
	}))
}

func init() {
	cur("max8", curMax8)
	cur("nc_find_index8", curFindIndex8)
	cur("nc_match_replace8", curMatchReplace8)
	// Waiting for their encodings (the ISA work adding them: docs/isa.md).
	pending := "its BIR encoding and interpreter semantics are not in this build of narwhal (docs/isa.md)"
	for _, n := range []string{"tensor_scalar_reduce", "tensor_scalar_cumulative", "range_select", "select_reduce",
		"local_gather", "nc_n_gather", "nc_stream_shuffle", "sequence_bounds", "nonzero_with_count", "exponential", "activate2"} {
		curUnsupported(n, pending)
	}
	for n, why := range map[string]string{
		"quantize_mx":             "MX quantization (NeuronCore-v4) is not modelled",
		"nc_matmul_mx":            "the MX matmul (NeuronCore-v4) is not modelled",
		"dropout":                 "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"rng":                     "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"rand2":                   "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"rand_get_state":          "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"rand_set_state":          "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"set_rng_seed":            "random numbers are not modelled (the hardware PRNG is not reproduced)",
		"sendrecv":                "it exchanges data between two NeuronCores (LNC=2); narwhal runs one core",
		"core_barrier":            "it synchronizes two NeuronCores (LNC=2); narwhal runs one core",
		"tensor_copy_dynamic_src": "deprecated in NKI 0.3 and removed in 0.4: use nisa.tensor_copy with .ap(..., scalar_offset=...)",
		"tensor_copy_dynamic_dst": "deprecated in NKI 0.3 and removed in 0.4: use nisa.tensor_copy with .ap(..., scalar_offset=...)",
		"builtin_custom_op":       "custom GpSimd code cannot be run",
	} {
		curUnsupported(n, why)
	}
}
