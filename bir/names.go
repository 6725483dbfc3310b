// Names for the tensors and locations a pass adds (vn_splitter's
// <orig>_VN_<k>, the DMA passes' staging tiles, FullUnroll's pieces): the
// requested name when it is free, else the first free name_<k>; and
// dropping the lazily built instruction-name index before a pass creates
// millions of instructions.
package bir

import "strconv"

// UniqueLocName returns name when no location of f has it, else name_<k>
// for the smallest k >= 1 that none has.
func (f *Function) UniqueLocName(name string) string {
	return uniqueName(name, func(n string) bool { _, taken := f.LocByName(n); return taken })
}

// UniqueTensorName returns name when no tensor of f has it, else name_<k>
// for the smallest k >= 1 that none has.
func (f *Function) UniqueTensorName(name string) string {
	return uniqueName(name, func(n string) bool { _, taken := f.TensorByName(n); return taken })
}

// UniqueTensorLocName returns a name free both as a location name and,
// with the "_set" suffix, as a tensor name (the BIR-JSON convention for a
// tensor and its single location): name itself, else name_<k> for the
// smallest k >= 1.
func (f *Function) UniqueTensorLocName(name string) string {
	return uniqueName(name, func(n string) bool {
		_, l := f.LocByName(n)
		_, t := f.TensorByName(n + "_set")
		return l || t
	})
}

func uniqueName(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for k := 1; ; k++ {
		if n := name + "_" + strconv.Itoa(k); !taken(n) {
			return n
		}
	}
}

// DropInstNameIndex discards the instruction-name index that InstByName
// builds lazily (it is rebuilt on the next InstByName call). A pass that
// creates millions of instructions calls it first, so that NewInstSym and
// Clone do not maintain the index clone by clone.
func (f *Function) DropInstNameIndex() { f.instByName = nil }
