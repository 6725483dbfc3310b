package interp

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// gatherModule builds a gather of P rows of table t [V, D] (fp32) by the
// int32 indices of input "idx" [P, 1], either with GenericIndirectLoad or
// with the lowered chain of seed 001 (ReadVarAddr -> TensorScalarPtr ->
// Memset -> TensorScalarPtr -> IndirectLoad), into output z [P, D]. The
// destination is pre-filled with -1 so skipped rows are visible.
func gatherModule(t *testing.T, P, V, D int64, lowered bool, attrs ...any) *bir.Module {
	t.Helper()
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, V, D)
	ix := b.Input("idx", bir.Int32, P, 1)
	z := b.Output("z", bir.Float32, P, D)
	it := b.SBUF("it", bir.Int32, P, 1)
	g := b.SBUF("g", bir.Float32, P, D)
	b.Load("ld_idx", it.All(), ix.All())
	b.Memset("fill", bir.EngDVE, g.All(), -1)
	data := tab.AP(0, [2]int64{D, P}, [2]int64{1, D})
	if !lowered {
		b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{data, it.All()}, []bir.Operand{g.All()},
			bir.Attrs(append([]any{"indirect_dims", bir.Ints(0)}, attrs...)...))
	} else {
		// The chain lower_generic_indirect emits (passes/dma's file
		// comment; one run, offset 0): A = VA, G = idx * R, A = A + o*s,
		// T = 0, T = G + T, IndirectLoad ins [A, T].
		addr := b.SBUF("gather_DstTensor", bir.Int64, P, 1)
		g2 := b.SBUF("gather_ScratchSpaceTensor", bir.Int64, P, 1)
		off := b.SBUF("gather_OffsetTensor", bir.Int64, P, 1)
		b.Inst(bir.OpReadVarAddr, "gather_ReadVarAddr", bir.EngUnassigned, []bir.Operand{tab.AP(0, [2]int64{1, 1})}, []bir.Operand{addr.All()}, nil)
		b.TensorScalarPtr("gather_TSPAddGenericAddr", bir.EngDVE, g2.All(), it.All(), bir.ImmI(D, bir.Int64), "mult", bir.Operand{}, "bypass")
		b.TensorScalarPtr("gather_TSPAddAddr", bir.EngDVE, addr.All(), addr.All(), bir.ImmI(0, bir.Int64), "add", bir.Operand{}, "bypass")
		b.Memset("gather_MemsetTileOffset", bir.EngDVE, off.All(), 0)
		b.TensorScalarPtr("gather_TSPAddOffset", bir.EngDVE, off.All(), g2.All(), off.All(), "add", bir.Operand{}, "bypass")
		b.Inst(bir.OpIndirectLoad, "gather_IndirectLoad", bir.EngUnassigned, []bir.Operand{addr.All(), off.All()}, []bir.Operand{g.All()},
			bir.Attrs(append([]any{"entry_step_elements", bir.Int(1)}, attrs...)...))
	}
	b.Save("st", z.All(), g.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func tableInputs(V, D int64, idx ...float64) map[string]*Tensor {
	return map[string]*Tensor{
		"t":   f32Tensor("t", []int64{V, D}, seq(int(V*D), func(i int) float64 { return float64(i) })...),
		"idx": tensorOf("idx", bir.Int32, []int64{int64(len(idx)), 1}, idx...),
	}
}

func TestIndirect_GenericAndLoweredAgree(t *testing.T) {
	const V, D = 5, 4
	in := tableInputs(V, D, 4, 0, 2)
	gen := mustRun(t, gatherModule(t, 3, V, D, false), in, Options{})
	low := mustRun(t, gatherModule(t, 3, V, D, true), in, Options{})
	wantValues(t, "rows 4, 0, 2", values(gen["z"]), 16, 17, 18, 19, 0, 1, 2, 3, 8, 9, 10, 11)
	if !bytes.Equal(gen["z"].Data, low["z"].Data) {
		t.Fatalf("lowered chain differs: %v vs %v", values(low["z"]), values(gen["z"]))
	}
}

func TestIndirect_OutOfBounds(t *testing.T) {
	const V, D = 5, 4
	for _, lowered := range []bool{false, true} {
		name := "gather"
		if lowered {
			name = "gather_IndirectLoad"
		}
		for _, bad := range []float64{5, -1} {
			_, err := Run(gatherModule(t, 3, V, D, lowered), tableInputs(V, D, 1, bad, 0), Options{})
			wantErr(t, err, ErrOutOfBounds, name, "row 1")
		}
		// oob_is_err=false skips the row: the destination keeps -1.
		out := mustRun(t, gatherModule(t, 3, V, D, lowered, "oob_is_err", false), tableInputs(V, D, 1, 7, 0), Options{})
		wantValues(t, "skipped row", values(out["z"]), 4, 5, 6, 7, -1, -1, -1, -1, 0, 1, 2, 3)
	}
}

func TestIndirect_TwoIndirectDims(t *testing.T) {
	// Table [3, 2, 4]; rows selected by (i0, i1): element (i0*8 + i1*4 + f).
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, 3, 2, 4)
	i0 := b.Input("i0", bir.Int32, 2, 1)
	i1 := b.Input("i1", bir.Uint16, 2, 1)
	z := b.Output("z", bir.Float32, 2, 4)
	s0 := b.SBUF("s0", bir.Int32, 2, 1)
	s1 := b.SBUF("s1", bir.Uint16, 2, 1)
	g := b.SBUF("g", bir.Float32, 2, 4)
	b.Load("l0", s0.All(), i0.All())
	b.Load("l1", s1.All(), i1.All())
	b.Inst(bir.OpGenericIndirectLoad, "gather2", bir.EngUnassigned,
		[]bir.Operand{tab.AP(0, [2]int64{4, 2}, [2]int64{1, 4}), s0.All(), s1.All()}, []bir.Operand{g.All()},
		bir.Attrs("indirect_dims", bir.Ints(0, 1)))
	b.Save("st", z.All(), g.All())
	out := mustRun(t, m, map[string]*Tensor{
		"t":  f32Tensor("t", []int64{3, 2, 4}, seq(24, func(i int) float64 { return float64(i) })...),
		"i0": tensorOf("i0", bir.Int32, []int64{2, 1}, 2, 0),
		"i1": tensorOf("i1", bir.Uint16, []int64{2, 1}, 1, 1),
	}, Options{})
	wantValues(t, "2-D gather", values(out["z"]), 20, 21, 22, 23, 4, 5, 6, 7)

	// indirect_dims must match the index operands.
	f := m.Main()
	id, _ := f.InstByName("gather2")
	f.SetAttr(id, "indirect_dims", bir.Ints(0))
	_, err := Run(m, RandomInputs(m, 1), Options{})
	wantErr(t, err, ErrOperand, "gather2", "one less than")
}

// scatterModule scatters the rows of input "src" [P, D] into output o [V,
// D] (pre-filled with zeros) at the indices of "idx": generic (seed
// layout: ins[0] the DRAM tensor, outs[0] the source) or concrete.
func scatterModule(t *testing.T, P, V, D int64, concrete bool, attrs ...any) *bir.Module {
	m, b := newB(t)
	src := b.Input("src", bir.Float32, P, D)
	ix := b.Input("idx", bir.Int32, P, 1)
	o := b.Output("o", bir.Float32, V, D)
	zs := b.SBUF("zs", bir.Float32, V, D)
	s := b.SBUF("s", bir.Float32, P, D)
	it := b.SBUF("it", bir.Int32, P, 1)
	b.Memset("zero", bir.EngDVE, zs.All(), 0)
	b.Save("init", o.All(), zs.All())
	b.Load("ls", s.All(), src.All())
	b.Load("li", it.All(), ix.All())
	data := o.AP(0, [2]int64{D, P}, [2]int64{1, D})
	if !concrete {
		b.Inst(bir.OpGenericIndirectSave, "scatter", bir.EngUnassigned, []bir.Operand{data, it.All()}, []bir.Operand{s.All()}, bir.Attrs(attrs...))
	} else {
		addr := b.SBUF("addr", bir.Int64, P, 1)
		b.Inst(bir.OpReadVarAddr, "rva", bir.EngUnassigned, []bir.Operand{data}, []bir.Operand{addr.All()}, nil)
		b.Inst(bir.OpIndirectSave, "scatter", bir.EngUnassigned, []bir.Operand{s.All(), addr.All(), it.All()}, []bir.Operand{data}, nil)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIndirect_Save(t *testing.T) {
	const P, V, D = 3, 4, 2
	in := map[string]*Tensor{
		"src": f32Tensor("src", []int64{P, D}, 1, 2, 3, 4, 5, 6),
		"idx": tensorOf("idx", bir.Int32, []int64{P, 1}, 3, 1, 3),
	}
	gen := mustRun(t, scatterModule(t, P, V, D, false), in, Options{})
	// Rows in partition order: row 3 gets 1,2 then 5,6 (the last wins).
	wantValues(t, "store", values(gen["o"]), 0, 0, 3, 4, 0, 0, 5, 6)
	con := mustRun(t, scatterModule(t, P, V, D, true), in, Options{})
	if !bytes.Equal(gen["o"].Data, con["o"].Data) {
		t.Fatalf("IndirectSave differs: %v", values(con["o"]))
	}
	add := mustRun(t, scatterModule(t, P, V, D, false, "op", "add"), in, Options{})
	wantValues(t, "accumulate", values(add["o"]), 0, 0, 3, 4, 0, 0, 6, 8)
}

func TestReadVarAddr_Model(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 2, 4)
	z := b.Output("z", bir.Int64, 1, 2)
	a := b.SBUF("a", bir.Int64, 1, 2)
	b.Inst(bir.OpReadVarAddr, "rva0", bir.EngUnassigned, []bir.Operand{x.AP(0, [2]int64{1, 1})}, []bir.Operand{a.Tile(0, 1, 0, 1)}, nil)
	b.Inst(bir.OpReadVarAddr, "rva5", bir.EngUnassigned, []bir.Operand{x.AP(5, [2]int64{1, 1})}, []bir.Operand{a.Tile(0, 1, 1, 1)}, nil)
	b.Save("st", z.All(), a.All())
	out := mustRun(t, m, RandomInputs(m, 1), Options{})
	// x is location 0 of function 0: VA = 1 << 36; element 5 is 20 bytes on.
	wantValues(t, "addresses", values(out["z"]), 1<<36, 1<<36+20)

	b.Inst(bir.OpReadVarAddr, "rva32", bir.EngUnassigned, []bir.Operand{x.All()}, []bir.Operand{bir.As(a.Tile(0, 1, 0, 1), bir.Int32)}, nil)
	_, err := Run(m, RandomInputs(m, 1), Options{})
	wantErr(t, err, ErrOperand, "rva32", "does not fit")
}

// An int64 index so large that index * row length wraps int64 back into
// the table (2^62 * 4 = 2^64 = 0) is out of bounds, not row 0.
func TestIndirect_HugeIndexDoesNotWrap(t *testing.T) {
	const P, V, D = 2, 5, 4
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, V, D)
	ix := b.Input("idx", bir.Int64, P, 1)
	z := b.Output("z", bir.Float32, P, D)
	it := b.SBUF("it", bir.Int64, P, 1)
	g := b.SBUF("g", bir.Float32, P, D)
	b.Load("ld_idx", it.All(), ix.All())
	b.Inst(bir.OpGenericIndirectLoad, "gather_huge", bir.EngUnassigned, []bir.Operand{tab.AP(0, [2]int64{D, P}, [2]int64{1, D}), it.All()},
		[]bir.Operand{g.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
	b.Save("st", z.All(), g.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	in := tableInputs(V, D)
	in["idx"] = tensorOf("idx", bir.Int64, []int64{P, 1}, 1, 0)
	binary.LittleEndian.PutUint64(in["idx"].Data[8:], 1<<62)
	_, err := Run(m, in, Options{})
	wantErr(t, err, ErrOutOfBounds, "gather_huge", "row 1", "4611686018427387904")
}

// scatterAddModule adds the rows of input "src" [P, D] into output o [V,
// D], which starts as a copy of input "base", at the indices of "idx",
// with IndirectSaveAccumulate (concrete: ReadVarAddr gives the address) or
// with GenericIndirectSave op "add".
func scatterAddModule(t *testing.T, P, V, D int64, generic bool, attrs ...any) *bir.Module {
	t.Helper()
	m, b := newB(t)
	src := b.Input("src", bir.Float32, P, D)
	ix := b.Input("idx", bir.Int32, P, 1)
	base := b.Input("base", bir.Float32, V, D)
	o := b.Output("o", bir.Float32, V, D)
	bs := b.SBUF("bs", bir.Float32, V, D)
	s := b.SBUF("s", bir.Float32, P, D)
	it := b.SBUF("it", bir.Int32, P, 1)
	b.Load("lb", bs.All(), base.All())
	b.Save("init", o.All(), bs.All())
	b.Load("ls", s.All(), src.All())
	b.Load("li", it.All(), ix.All())
	data := o.AP(0, [2]int64{D, P}, [2]int64{1, D})
	if generic {
		b.Inst(bir.OpGenericIndirectSave, "scatter_add", bir.EngUnassigned, []bir.Operand{data, it.All()}, []bir.Operand{s.All()},
			bir.Attrs(append([]any{"op", "add"}, attrs...)...))
	} else {
		addr := b.SBUF("addr", bir.Int64, P, 1)
		b.Inst(bir.OpReadVarAddr, "rva", bir.EngUnassigned, []bir.Operand{data}, []bir.Operand{addr.All()}, nil)
		a := bir.Attrs(attrs...)
		for _, kv := range []bir.Field{{Key: "num_indices", Val: bir.Int(P)}, {Key: "entry_step_elements", Val: bir.Int(D)}} {
			if !a.Has(kv.Key) {
				a = a.With(kv.Key, kv.Val)
			}
		}
		b.Inst(bir.OpIndirectSaveAccumulate, "scatter_add", bir.EngUnassigned, []bir.Operand{s.All(), addr.All(), it.All()}, []bir.Operand{data}, a)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIndirect_SaveAccumulate(t *testing.T) {
	const P, V, D = 3, 4, 2
	in := func(idx ...float64) map[string]*Tensor {
		return map[string]*Tensor{
			"src":  f32Tensor("src", []int64{P, D}, 1, 2, 3, 4, 0.5, -6),
			"idx":  tensorOf("idx", bir.Int32, []int64{P, 1}, idx...),
			"base": f32Tensor("base", []int64{V, D}, 10, 11, 20, 21, 30, 31, 40, 41),
		}
	}
	// dst_hbm[idx[p]] += src[p]: rows 3, 0, 2 accumulate; row 1 is untouched.
	out := mustRun(t, scatterAddModule(t, P, V, D, false), in(3, 0, 2), Options{})
	wantValues(t, "scatter-add", values(out["o"]), 13, 15, 20, 21, 30.5, 25, 41, 43)
	gen := mustRun(t, scatterAddModule(t, P, V, D, true), in(3, 0, 2), Options{})
	if !bytes.Equal(gen["o"].Data, out["o"].Data) {
		t.Fatalf("GenericIndirectSave add gives %v, IndirectSaveAccumulate %v", values(gen["o"]), values(out["o"]))
	}

	// The sum is fp32: 2^24 + 1 rounds to 2^24 (ties to even), 2^24 + 3 to
	// 2^24 + 4.
	big := in(1, 0, 2)
	big["base"] = f32Tensor("base", []int64{V, D}, 1<<24, 1<<24, 0, 0, 0, 0, 0, 0)
	big["src"] = f32Tensor("src", []int64{P, D}, 0, 0, 1, 3, 0, 0)
	out = mustRun(t, scatterAddModule(t, P, V, D, false), big, Options{})
	wantValues(t, "fp32 sum", values(out["o"]), 1<<24, 1<<24+4, 0, 0, 0, 0, 0, 0)

	// A repeated index: semantics.md §4.2 requires unique indices, so it is
	// an error (not a double sum), naming both rows.
	_, err := Run(scatterAddModule(t, P, V, D, false), in(3, 1, 3), Options{})
	wantErr(t, err, ErrDomain, "scatter_add", "rows 0 (index 3) and 2 (index 3)", "unique indices")
	// Rows that overlap without equal indices (entry_step_elements 1 < D).
	_, err = Run(scatterAddModule(t, P, V, D, false, "entry_step_elements", bir.Int(1)), in(0, 1, 4), Options{})
	wantErr(t, err, ErrDomain, "scatter_add", "rows 0 (index 0) and 1 (index 1)")

	// Out of bounds: an error by default; oob_is_err=false skips the row
	// (the destination keeps its value) and the skipped row takes no part
	// in the uniqueness check.
	_, err = Run(scatterAddModule(t, P, V, D, false), in(3, 4, 0), Options{})
	wantErr(t, err, ErrOutOfBounds, "scatter_add", "row 1")
	out = mustRun(t, scatterAddModule(t, P, V, D, false, "oob_is_err", false), in(3, 7, 0), Options{})
	wantValues(t, "skipped row", values(out["o"]), 10.5, 5, 20, 21, 30, 31, 41, 43)

	// Only add is modelled; num_indices must match the rows.
	_, err = Run(scatterAddModule(t, P, V, D, false, "op", "max"), in(3, 0, 2), Options{})
	wantErr(t, err, ErrNoSemantics, "scatter_add", `op "max"`)
	_, err = Run(scatterAddModule(t, P, V, D, false, "num_indices", bir.Int(2)), in(3, 0, 2), Options{})
	wantErr(t, err, ErrOperand, "scatter_add", "num_indices=2")
}
