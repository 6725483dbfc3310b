package api

// neuronxcc.nki.compiler (ncc): direct allocation (ncc.sbuf.mod_alloc,
// ncc.psum.mod_alloc, ncc.sbuf.alloc, ncc.psum.alloc, auto_alloc) and the
// compiler-directive decorators (pass-through: narwhal has its own
// pipeline).
//
// A direct allocation is evaluated at trace time over every logical block
// of the tensor (the block dimensions before the partition dimension), as
// the NKI documentation says the compiler does ("the compiler will
// statically evaluate func over indices of all the logical tiles"), and
// becomes one fixed placement per block (lower.Place).
//
// mod_alloc's formula (the API reference's modulo allocation): for a
// logical block index idx over block dimensions B_d,
//
//	free tile  = linear(idx_d mod num_free_tiles_d)   (row-major over the tuple)
//	SBUF:  start_partition = base_partition + linear(idx_d mod num_par_tiles_d) * pdim_size
//	       byte_addr       = base_addr + free tile * fdim_size
//	PSUM:  bank            = base_bank + linear(idx_d mod num_bank_tiles_d)
//	       byte_addr       = base_addr + free tile * fdim_size
//
// with an empty tuple meaning one tile per dimension.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

type allocator struct {
	fn tracer.Value // ncc.*.alloc(func)
	// mod_alloc parameters
	baseAddr, basePartition, baseBank int64
	parTiles, freeTiles, bankTiles    []int64
}

func tupleInts(th *tracer.Thread, v tracer.Value) ([]int64, error) {
	if isNone(v) {
		return nil, nil
	}
	var out []int64
	err := tracer.Iterate(th, v, func(x tracer.Value) error {
		n, err := tracer.AsInt64(th, x)
		out = append(out, n)
		return err
	})
	return out, err
}

// modLinear is linear(idx_d mod tiles_d), row-major over the tiles.
func modLinear(idx, tiles []int64) int64 {
	if len(tiles) == 0 {
		return 0
	}
	l := int64(0)
	for d, n := range tiles {
		if n <= 0 {
			n = 1
		}
		l = l*n + idx[d]%n
	}
	return l
}

// places computes the placement of every logical block.
func (a *allocator) places(th *tracer.Thread, buf *Buffer, shape []int64, par int, dt bir.Dtype) ([]lower.Place, error) {
	blocks := shape[:par]
	pdim := shape[par]
	fbytes := dt.Size()
	for _, d := range shape[par+1:] {
		fbytes *= d
	}
	for _, tiles := range [][]int64{a.parTiles, a.freeTiles, a.bankTiles} {
		if len(tiles) != 0 && len(tiles) != len(blocks) {
			return nil, nkiErrorf("%s: the tile counts %v must have one entry per block dimension of the tensor (%d)", buf.name, tiles, len(blocks))
		}
	}
	n := int64(1)
	for _, b := range blocks {
		n *= b
	}
	out := make([]lower.Place, n)
	idx := make([]int64, len(blocks))
	for b := int64(0); b < n; b++ {
		r := b
		for d := len(blocks) - 1; d >= 0; d-- {
			idx[d] = r % blocks[d]
			r /= blocks[d]
		}
		if a.fn != nil {
			p, err := a.callAlloc(th, buf, idx, pdim, fbytes)
			if err != nil {
				return nil, err
			}
			out[b] = p
			continue
		}
		free := modLinear(idx, a.freeTiles)
		p := lower.Place{Byte: a.baseAddr + free*fbytes}
		if buf.mem == lower.PSUM {
			p.Bank = a.baseBank + modLinear(idx, a.bankTiles)
			p.Partition = a.basePartition
		} else {
			p.Partition = a.basePartition + modLinear(idx, a.parTiles)*pdim
		}
		out[b] = p
	}
	return out, nil
}

// callAlloc calls an ncc.*.alloc function for one block.
func (a *allocator) callAlloc(th *tracer.Thread, buf *Buffer, idx []int64, pdim, fbytes int64) (lower.Place, error) {
	r, err := tracer.Call(th, a.fn, []tracer.Value{intTuple(idx), tracer.MakeInt(pdim), tracer.MakeInt(fbytes)}, nil)
	if err != nil {
		return lower.Place{}, err
	}
	vals, err := tupleInts(th, r)
	if err != nil {
		return lower.Place{}, err
	}
	if buf.mem == lower.PSUM {
		if len(vals) != 3 {
			return lower.Place{}, nkiErrorf("ncc.psum.alloc: the allocation function returned %s; want (bank_id, start_partition, byte_addr)", tracer.Repr(r))
		}
		return lower.Place{Bank: vals[0], Partition: vals[1], Byte: vals[2]}, nil
	}
	if len(vals) != 2 {
		return lower.Place{}, nkiErrorf("ncc.sbuf.alloc: the allocation function returned %s; want (start_partition, byte_addr)", tracer.Repr(r))
	}
	return lower.Place{Partition: vals[0], Byte: vals[1]}, nil
}

func sbufModAlloc(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var base int64
	var basePart int64
	var npt, nft tracer.Value
	if err := tracer.UnpackArgs("ncc.sbuf.mod_alloc", args, kwargs, "*", nil, "base_addr", &base, "base_partition?", &basePart,
		"num_par_tiles?", &npt, "num_free_tiles?", &nft); err != nil {
		return nil, err
	}
	a := &allocator{baseAddr: base, basePartition: basePart}
	var err error
	if a.parTiles, err = tupleInts(th, npt); err != nil {
		return nil, err
	}
	if a.freeTiles, err = tupleInts(th, nft); err != nil {
		return nil, err
	}
	return &Buffer{name: "ncc.sbuf.mod_alloc", mem: lower.SBUF, alloc: a}, nil
}

func psumModAlloc(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var bank, base, basePart int64
	var nbt, npt, nft tracer.Value
	if err := tracer.UnpackArgs("ncc.psum.mod_alloc", args, kwargs, "*", nil, "base_bank", &bank, "base_addr?", &base, "base_partition?", &basePart,
		"num_bank_tiles?", &nbt, "num_par_tiles?", &npt, "num_free_tiles?", &nft); err != nil {
		return nil, err
	}
	a := &allocator{baseAddr: base, basePartition: basePart, baseBank: bank}
	var err error
	if a.bankTiles, err = tupleInts(th, nbt); err != nil {
		return nil, err
	}
	if a.parTiles, err = tupleInts(th, npt); err != nil {
		return nil, err
	}
	if a.freeTiles, err = tupleInts(th, nft); err != nil {
		return nil, err
	}
	return &Buffer{name: "ncc.psum.mod_alloc", mem: lower.PSUM, alloc: a}, nil
}

func allocFn(mem lower.Memory, name string) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var fn tracer.Value
		if err := tracer.UnpackArgs(name, args, kwargs, "func", &fn); err != nil {
			return nil, err
		}
		if _, ok := fn.(tracer.Callable); !ok {
			return nil, typeErrorf("%s takes a callable, not %s", name, fn.Type())
		}
		return &Buffer{name: name, mem: mem, alloc: &allocator{fn: fn}}, nil
	}
}

func autoAlloc(b *Buffer, name string) *tracer.Builtin {
	return tracer.NewBuiltin(name, func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		if err := tracer.UnpackArgs(name, args, kwargs); err != nil {
			return nil, err
		}
		return b, nil
	})
}

// passThrough is a decorator narwhal ignores (used with or without
// arguments: @dec, @dec(...)).
func passThrough(name string) *tracer.Builtin {
	var b *tracer.Builtin
	b = tracer.NewBuiltin(name, func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		if len(args) == 1 && len(kwargs) == 0 {
			if _, ok := args[0].(tracer.Callable); ok {
				return args[0], nil
			}
		}
		if len(args) == 0 {
			return b, nil
		}
		return nil, typeErrorf("%s decorates a kernel function", name)
	})
	return b
}

func compilerModules(prefix string) map[string]*tracer.Module {
	sbuf := tracer.NewModule(prefix+".sbuf", map[string]tracer.Value{
		"mod_alloc":  tracer.NewBuiltin("ncc.sbuf.mod_alloc", sbufModAlloc),
		"alloc":      tracer.NewBuiltin("ncc.sbuf.alloc", allocFn(lower.SBUF, "ncc.sbuf.alloc")),
		"auto_alloc": autoAlloc(bufSBUF, "ncc.sbuf.auto_alloc"),
	})
	psum := tracer.NewModule(prefix+".psum", map[string]tracer.Value{
		"mod_alloc":  tracer.NewBuiltin("ncc.psum.mod_alloc", psumModAlloc),
		"alloc":      tracer.NewBuiltin("ncc.psum.alloc", allocFn(lower.PSUM, "ncc.psum.alloc")),
		"auto_alloc": autoAlloc(bufPSUM, "ncc.psum.auto_alloc"),
	})
	ncc := tracer.NewModule(prefix, map[string]tracer.Value{
		"sbuf": sbuf, "psum": psum,
		"enable_stack_allocator":          passThrough("ncc.enable_stack_allocator"),
		"force_auto_alloc":                passThrough("ncc.force_auto_alloc"),
		"skip_middle_end_transformations": passThrough("ncc.skip_middle_end_transformations"),
	})
	return map[string]*tracer.Module{prefix: ncc, prefix + ".sbuf": sbuf, prefix + ".psum": psum}
}
