package api

// nki.language's own entries in the current API: nl.ndarray with address=
// (direct allocation), the loop iterators under the Python-consistent rule,
// and the names the current API added. The rest of the module is the
// legacy binding's (current.go).

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

func curLang(name string, fn builtinFn) {
	currentLanguage[name] = &Op{name: "nl." + name, fn: fn}
}

// curNdarray is nl.ndarray(shape, dtype, buffer=nl.sbuf, name="",
// address=None). address=(partition, byte) places an SBUF tensor at a
// start partition and a byte offset within each partition, and a PSUM
// tensor at a start partition and a byte offset in PSUM's per-partition
// space, bank b starting at byte b * 2048 ("The allocation for PSUM
// tensors must start at the beginning of each bank - the compiler will
// throw an error otherwise"). A placed tensor is a fixed placement the
// memory planner works around (lower.Place, as ncc.*.mod_alloc).
func curNdarray(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.ndarray"
	var shapeV, dtypeV, bufV, addrV tracer.Value
	name := ""
	if err := isaUnpack(what, args, kwargs, "shape", &shapeV, "dtype", &dtypeV, "buffer?", &bufV, "name?", &name, "address?", &addrV); err != nil {
		return nil, err
	}
	if _, ok := bufV.(tracer.String); ok {
		return nil, typeErrorf("%s: buffer= takes nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm or nl.private_hbm, not the string %s (NKI 0.3: \"String Buffer Names No Longer Supported\")", what, tracer.Repr(bufV))
	}
	if st := current(th); isNone(addrV) || st != nil && st.open {
		return creation(th, what, shapeV, dtypeV, bufV, name, nil)
	}
	shape, _, err := shapeOf(th, shapeV, what)
	if err != nil {
		return nil, err
	}
	dt, err := dtypeOf(dtypeV)
	if err != nil {
		return nil, err
	}
	buf, err := bufferArg(bufV, bufSBUF)
	if err != nil {
		return nil, err
	}
	if buf.mem == lower.HBM {
		return nil, nkiErrorf("%s(address=...): an address places an SBUF or PSUM tensor; %s is in %s", what, name, buf.name)
	}
	addr, err := tupleInts(th, addrV)
	if err != nil {
		return nil, err
	}
	if len(addr) != 2 {
		return nil, typeErrorf("%s: address= takes (partition, byte offset), not %s", what, tracer.Repr(addrV))
	}
	p := lower.Place{Partition: addr[0], Byte: addr[1]}
	if buf.mem == lower.PSUM {
		if addr[1] < 0 || addr[1]%lower.PSUMBankBytes != 0 {
			return nil, nkiErrorf("%s(address=(%d, %d)): a PSUM tensor starts at a bank boundary (a multiple of %d bytes: \"The allocation for PSUM tensors must start at the beginning of each bank\")", what, addr[0], addr[1], lower.PSUMBankBytes)
		}
		p = lower.Place{Partition: addr[0], Bank: addr[1] / lower.PSUMBankBytes}
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	t, err := st.k.NewTile(name, buf.mem, dt, shape, 0, []lower.Place{p})
	if err != nil {
		return nil, convert(err)
	}
	return newWhole(st, t, th.CallPos()), nil
}

// nlSharedConstant is nl.shared_constant(constant, dtype=None): an HBM
// tensor holding a trace-time numpy array (lower.ConstHBM builds it on
// chip: the interpreter has no file-backed constants).
func nlSharedConstant(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.shared_constant"
	var c, dtV tracer.Value
	if err := isaUnpack(what, args, kwargs, "constant", &c, "dtype?", &dtV); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, ok := c.(*HostArray)
	if !ok {
		return nil, typeErrorf("%s takes a trace-time numpy array (np.arange(...), np.array(...)), not %s", what, c.Type())
	}
	dt := a.dt
	if !isNone(dtV) {
		if dt, err = dtypeOf(dtV); err != nil {
			return nil, err
		}
	} else if a.f64 || a.i64 {
		return nil, nkiErrorf("%s of a %s array needs dtype= (%s is not an NKI dtype)", what, a.dtypeName(), a.dtypeName())
	}
	shape := a.shape
	if len(shape) == 0 {
		shape = []int64{1}
	}
	vals := make([]float64, len(a.data))
	for i, v := range a.data {
		if dt.IsFloat() {
			vals[i] = roundVia(dt, v)
		} else {
			vals[i] = v
		}
	}
	t, err := st.k.ConstHBM("shared_constant", dt, shape, vals)
	if err != nil {
		return nil, convert(err)
	}
	return newWhole(st, t, th.CallPos()), nil
}

// nlSharedIdentity is nl.shared_identity_matrix(n, dtype=nl.uint8): an
// [n, n] SBUF identity tile (NKI 0.3: "Create an identity matrix in SBUF").
func nlSharedIdentity(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.shared_identity_matrix"
	var n int64
	var dtV tracer.Value
	if err := isaUnpack(what, args, kwargs, "n", &n, "dtype?", &dtV); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtV, bir.Uint8)
	if err != nil {
		return nil, err
	}
	t, err := st.k.Identity("identity", n, dt)
	if err != nil {
		return nil, convert(err)
	}
	return newWhole(st, t, th.CallPos()), nil
}

func curRange(kind string) builtinFn {
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		return newRangeRule(th, kind, rulePython, args, kwargs)
	}
}

func init() {
	curLang("ndarray", curNdarray)
	curLang("shared_constant", nlSharedConstant)
	curLang("shared_identity_matrix", nlSharedIdentity)
	currentLanguage["gelu_apprx_sigmoid_dx"] = &Op{name: "nl.gelu_apprx_sigmoid_dx", why: "no activation function of the Scalar engine model computes the derivative of the sigmoid-approximated GELU"}
	for _, r := range []string{"affine_range", "sequential_range", "static_range"} {
		curLang(r, curRange(r))
	}
}
