package verify

import "github.com/narwhal-compiler/narwhal/bir"

// Source positions of diagnostics (bir's Instruction.Pos): a diagnostic
// about an instruction carries the instruction's position; one about a
// tensor or a location carries the position of the first instruction, in
// instruction-id order, that reaches it (a physical access pattern on the
// location, a symbolic or register one on its tensor). The tensor and
// location positions are computed once per function, on the first such
// diagnostic, by one pass over the instruction table (not a program-order
// walk: the block structure may be what is broken); a verification that
// finds nothing pays nothing.

// instPos returns the position of instruction i (zero when it has none
// or its id is outside the module's table, which the ref rule reports).
func (c *checker) instPos(i bir.InstID) bir.Pos {
	if i < 0 || int(i) >= c.nInsts {
		return bir.Pos{}
	}
	id := c.f.Inst(i).Pos
	if id == bir.NoPos || !c.m.ValidPos(id) {
		return bir.Pos{}
	}
	return c.m.Pos(id)
}

// tensorPos returns the source position a diagnostic about tensor t names.
func (c *checker) tensorPos(t bir.TensorID) bir.Pos {
	c.buildPosTables()
	if t < 0 || int(t) >= len(c.posTen) {
		return bir.Pos{}
	}
	return c.m.Pos(c.posTen[t])
}

// locPos returns the source position a diagnostic about location l names:
// the first instruction naming it, else the first reaching its tensor.
func (c *checker) locPos(l bir.LocID) bir.Pos {
	c.buildPosTables()
	if l < 0 || int(l) >= len(c.posLoc) {
		return bir.Pos{}
	}
	if p := c.posLoc[l]; p != bir.NoPos {
		return c.m.Pos(p)
	}
	if t := c.f.Loc(l).Tensor; t >= 0 && int(t) < c.nTensors {
		return c.m.Pos(c.posTen[t])
	}
	return bir.Pos{}
}

func (c *checker) buildPosTables() {
	if c.posFor == c.f {
		return
	}
	c.posFor = c.f
	c.posTen = resize(c.posTen, c.nTensors)
	c.posLoc = resize(c.posLoc, c.nLocs)
	for k := 0; k < c.nInsts; k++ {
		in := c.f.Inst(bir.InstID(k))
		if in.Dead() || in.Pos == bir.NoPos || !c.m.ValidPos(in.Pos) {
			continue
		}
		n := int(in.NIns) + int(in.NOuts)
		if in.Args < 0 || int(in.Args)+n > c.nOpnds {
			continue
		}
		for _, o := range c.f.Operands(bir.InstID(k)) {
			t := bir.NoTensor
			switch o.Kind {
			case bir.OpdPhysAP:
				l := bir.LocID(o.Ref)
				if l < 0 || int(l) >= c.nLocs {
					continue
				}
				if c.posLoc[l] == bir.NoPos {
					c.posLoc[l] = in.Pos
				}
				t = c.f.Loc(l).Tensor
			case bir.OpdSymAP, bir.OpdRegAP:
				t = bir.TensorID(o.Ref)
			}
			if t >= 0 && int(t) < c.nTensors && c.posTen[t] == bir.NoPos {
				c.posTen[t] = in.Pos
			}
		}
	}
}
