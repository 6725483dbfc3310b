package bir

// Use is one operand of an instruction that addresses a location or tensor.
type Use struct {
	Inst    InstID
	Operand uint16 // index into Function.Operands(Inst)
	Out     bool   // a destination (write)
}

// UseIndex lists, for every location and every tensor, the instructions
// that access it: the seeds' StorageBase::readers/writers. It is built on
// demand by Function.Uses and discarded by every mutation method, so it is
// never stale as long as operands are written only through SetOperand and
// SetArgs (an element written through Ins, Outs or Operands is not seen:
// Function.CheckTables reports the stale entries). Physical APs are
// indexed by location; symbolic and register APs by tensor. Uses are in
// program order.
type UseIndex struct {
	locStart []int32
	locUses  []Use
	tenStart []int32
	tenUses  []Use
}

// Uses returns the use index of f, building it if needed (O(operands)).
func (f *Function) Uses() *UseIndex {
	if f.uses != nil {
		return f.uses
	}
	u := &UseIndex{
		locStart: make([]int32, len(f.locs)+1),
		tenStart: make([]int32, len(f.tensors)+1),
	}
	// Count, then fill (two passes keep it allocation-light).
	f.Walk(func(i InstID) bool {
		for _, o := range f.Operands(i) {
			switch o.Kind {
			case OpdPhysAP:
				if int(o.Ref) >= 0 && int(o.Ref) < len(f.locs) {
					u.locStart[o.Ref+1]++
				}
			case OpdSymAP, OpdRegAP:
				if int(o.Ref) >= 0 && int(o.Ref) < len(f.tensors) {
					u.tenStart[o.Ref+1]++
				}
			}
		}
		return true
	})
	for k := 1; k < len(u.locStart); k++ {
		u.locStart[k] += u.locStart[k-1]
	}
	for k := 1; k < len(u.tenStart); k++ {
		u.tenStart[k] += u.tenStart[k-1]
	}
	u.locUses = make([]Use, u.locStart[len(u.locStart)-1])
	u.tenUses = make([]Use, u.tenStart[len(u.tenStart)-1])
	locFill := append([]int32(nil), u.locStart[:len(u.locStart)-1]...)
	tenFill := append([]int32(nil), u.tenStart[:len(u.tenStart)-1]...)
	f.Walk(func(i InstID) bool {
		in := &f.insts[i]
		for k, o := range f.Operands(i) {
			use := Use{Inst: i, Operand: uint16(k), Out: k >= int(in.NIns)}
			switch o.Kind {
			case OpdPhysAP:
				if int(o.Ref) >= 0 && int(o.Ref) < len(f.locs) {
					u.locUses[locFill[o.Ref]] = use
					locFill[o.Ref]++
				}
			case OpdSymAP, OpdRegAP:
				if int(o.Ref) >= 0 && int(o.Ref) < len(f.tensors) {
					u.tenUses[tenFill[o.Ref]] = use
					tenFill[o.Ref]++
				}
			}
		}
		return true
	})
	f.uses = u
	return u
}

// Loc returns the physical-AP uses of location l.
func (u *UseIndex) Loc(l LocID) []Use {
	if int(l) < 0 || int(l)+1 >= len(u.locStart) {
		return nil
	}
	return u.locUses[u.locStart[l]:u.locStart[l+1]]
}

// Tensor returns the symbolic/register-AP uses of tensor t (not the
// physical uses of its locations; see Function.TensorUses).
func (u *UseIndex) Tensor(t TensorID) []Use {
	if int(t) < 0 || int(t)+1 >= len(u.tenStart) {
		return nil
	}
	return u.tenUses[u.tenStart[t]:u.tenStart[t+1]]
}

// TensorUses returns every use of tensor t: symbolic APs naming it and
// physical APs naming any of its locations.
func (f *Function) TensorUses(t TensorID) []Use {
	u := f.Uses()
	out := append([]Use(nil), u.Tensor(t)...)
	for _, l := range f.tensors[t].Locs {
		out = append(out, u.Loc(l)...)
	}
	return out
}

// Writers returns the uses of t that write it.
func (f *Function) Writers(t TensorID) []Use {
	var out []Use
	for _, x := range f.TensorUses(t) {
		if x.Out {
			out = append(out, x)
		}
	}
	return out
}

// Readers returns the uses of t that read it.
func (f *Function) Readers(t TensorID) []Use {
	var out []Use
	for _, x := range f.TensorUses(t) {
		if !x.Out {
			out = append(out, x)
		}
	}
	return out
}
