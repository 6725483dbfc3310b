// Package translate implements translate_nki_ast_to_bir (seed 003,
// "TranslateNKIASTToBIR — the NKI-kernel materializer", execution order 2):
// every NKIKLIRKernel placeholder (opcode 56) of the module is expanded into
// a new function of NKI kind holding the kernel's BIR body, plus an
// NKIKernel call site (opcode 55) that replaces the placeholder.
//
// # The placeholder and the call site
//
// The seed's InstNKIKLIRKernel carries "nothing but a file path, a format
// string, and the kernel's input/output argument lists". In narwhal:
//
//	NKIKLIRKernel  ins  = the kernel's input arguments: access patterns on
//	                      the caller's tensors (normally whole DRAM tensors)
//	               outs = the kernel's output arguments, likewise
//	               "path"         the kernel file (KLR, or BIR-JSON)
//	               "format"       "bir" for BIR-JSON; anything else is KLR
//	               "input_names"  the kernel parameter each of ins binds,
//	               "output_names" and each of outs (lists of strings)
//	               "klir_version" optional: the KLIR version "M.m.p" the
//	                              kernel was written for (checkVersionMatch)
//
// The replacement, at the placeholder's position (same name, engine,
// predicate and dependencies; instructions that depended on the placeholder
// depend on the call):
//
//	NKIKernel      ins/outs       the placeholder's, unchanged
//	               "func"         the new function's name
//	               "input_names"  the callee's input/output tensors bound to
//	               "output_names" ins/outs, in order: the interpreter's I/O
//	                              names (a tensor's location name when it has
//	                              one location, else its set name without
//	                              "_set"), copied in before and out after the
//	                              call
//	               "sb_buf_shape", "psum_buf_shape", "scratchpad"
//	                              when the kernel is allocated (below)
//
// When the placeholder has no input_names/output_names the arguments bind
// the kernel's inputs/outputs positionally. Every kernel input and output
// must be bound exactly once, with the kernel tensor's dtype and element
// count; otherwise the pass fails naming the argument.
//
// # The module walk (TranslateNKIASTToBIR::run)
//
// Functions in module order, then each function's blocks in program order,
// recursing into loop bodies; in each block the placeholders are collected
// while the block is scanned and removed after the scan (collect-then-
// remove), so expanding one never disturbs the walk. Functions created by
// the pass are not walked. Per block the seed's log lines are emitted:
// "Start of KLIR kernel lowering pass, number of insts: <n>, number of
// allocs: <m>" (instructions of the block, live tensors of the function),
// "Found InstKLIRKernel: <name>" per placeholder, and "Scan BKs time (s):
// <t>". The kernel path is resolved as the seed does: the path as given,
// else <artifact dir>/<basename>; when neither exists the pass fails with
// "NKI Kernel file <path> does not exist, either in full path or in
// compiler artifacts directory". The resolved file is staged (copied) into
// the module's artifact directory when one is set.
//
// # Path A's checks (lowerKernelInst)
//
// In the seed's order: checkVersionMatch(node) gates "M.m.p" against
// "1.0.0"; then fopen of the kernel file, whose failure is "fail to locate
// KLIR artifact"; then the reader's "Wrong KLR version" (header patch 12)
// and "Wrong KLIR content type". The seed names checkVersionMatch, its
// operand format and the constant, not the comparison nor where the node
// keeps the version: narwhal reads it from the placeholder's optional
// "klir_version" attribute and requires M.m.p to equal 1.0.0 exactly (a
// version string that does not parse is an error too); a placeholder
// without the attribute (the driver's wrapper of a lone .klr file, a
// BIR-JSON module that does not record it) passes, the file's own header
// being checked next. The open failure can only follow a successful
// existence check when the file vanishes or cannot be read in between
// (the seed's two steps are separate too); its message names the path and
// the operating system's cause.
//
// # LNC (logical neuron cores)
//
// A kernel compiled for LNC = n has one body (KLR) or one function
// (BIR-JSON "functions") per logical core, indexed by the module's neuron
// core id c (Module.NeuronCoreID when Module.HasCoreID, else unset). The
// rules, the same for both formats: with c unset and n > 1 the pass fails
// ("NeuronCoreId must be set when the LNC count is greater than 1"); with c
// unset and n == 1, c = 0; with c >= n the placeholder stays in place and
// the pass logs "The kernel is compiled for LNC count lower than the current
// core_id <c> skip lowering" (not an error: this core takes no part in the
// kernel; the seed's GOTCHA).
//
// # Path A: KLR (codegen.go), path B: BIR-JSON (birjson.go)
//
// Both build the function, give it the NKI kind, and share the call-site
// construction below and copyConstFileToArtifact.
//
// # Scratchpad buffers (createKernelScratchpadBuffers)
//
// An allocated kernel (every SBUF/PSUM location carries an address, as the
// KLR path requires and a BIR-JSON kernel may) uses fixed SBUF bytes and
// PSUM banks. narwhal reserves them in the caller: for the SBUF extent
// [0, sbMax) bytes x [0, parts) partitions it adds a caller tensor
// "<call>_sb_scratch" (an SB location allocated at partition 0, byte 0,
// pinned), for the PSUM banks the kernel touches "<call>_psum_scratch" (a
// PSUM location at bank 0 covering those banks), records them in the call's
// "scratchpad" attribute, and sets "sb_buf_shape" = [parts, sbMax] and
// "psum_buf_shape" = [parts, [banks, bankBytes]] (BIR-JSON's NKIKernel
// fields). A later allocator treats the call as a use of the scratchpad
// tensors, so caller tensors live across the call keep away from the
// kernel's memory. The reservation covers addresses from 0 (not from the
// kernel's lowest address) because a kernel allocated by the NKI front end
// assumes the SBUF from address 0 up is its own.
//
// # copyConstFileToArtifact
//
// After either path, every tensor of the new function whose TensorClass is
// Const (6) and that names a file has that file resolved (as given, then
// relative to the kernel file's directory, then the artifact directory);
// with an artifact directory the file is copied there and File becomes the
// artifact-relative base name; without one File becomes the absolute path,
// so the module no longer depends on the working directory. A missing file
// is an error naming the tensor and the places looked in. KLR kernels get
// Const tensors from LncKernel.sharedConstants.
package translate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Attribute keys of the placeholder and the call site.
const (
	AttrPath        = "path"
	AttrFormat      = "format"
	AttrInputNames  = "input_names"
	AttrOutputNames = "output_names"
	AttrFunc        = "func"
	AttrScratchpad  = "scratchpad"
	AttrSBBufShape  = "sb_buf_shape"
	AttrPSUMBuf     = "psum_buf_shape"
	AttrKLIRVersion = "klir_version"
)

// KLIRVersion is the KLIR version checkVersionMatch accepts (seed 003:
// "gate "M.m.p" against "1.0.0"").
const KLIRVersion = "1.0.0"

// FormatBIR is the placeholder format of BIR-JSON kernels.
const FormatBIR = "bir"

// FormatKLR is the format the KLR loader writes (any value but "bir" is KLR).
const FormatKLR = "klr"

// Pass is translate_nki_ast_to_bir.
var Pass = pass.Pass{
	Name:    "translate_nki_ast_to_bir",
	Order:   2,
	Default: true,
	Doc:     "expand NKIKLIRKernel placeholders (KLR or BIR-JSON kernel files) into NKI functions and NKIKernel calls",
	Run:     Run,
}

// Run runs the pass on ctx.Module.
func Run(ctx *pass.Context) error {
	m := ctx.Module
	ctx.Logf("Started running Lower KLIR Kernel into NKI kernel instruction")
	tr := &translator{ctx: ctx, m: m, model: ctx.Arch}
	funcs := slices.Clone(m.Funcs)
	for _, f := range funcs {
		ctx.Function(f.Name)
		tr.calls = map[bir.InstID]bir.InstID{}
		tr.liveAt, tr.live = -1, 0
		for _, b := range blocksInOrder(f) {
			if err := tr.scanBlock(f, b); err != nil {
				return err
			}
		}
		tr.retargetDeps(f)
	}
	ctx.Function("")
	return nil
}

// Translate runs translate_nki_ast_to_bir alone on m and returns its report
// entry (log lines, counters). It is for tools that execute a module without
// the pipeline, e.g. `narwhal run FILE.klr`, whose module holds a
// placeholder the interpreter cannot execute until it is expanded.
func Translate(m *bir.Module, cfg pass.Config) (*pass.PassResult, error) {
	table := pass.Table{Passes: []pass.Pass{Pass}}
	cfg.Passes = nil
	rep, err := table.Run(m, cfg)
	var res *pass.PassResult
	if rep != nil {
		res = rep.Result(Pass.Name)
	}
	return res, err
}

// HasPlaceholders reports whether any function of m holds an NKIKLIRKernel
// placeholder.
func HasPlaceholders(m *bir.Module) bool {
	for _, f := range m.Funcs {
		found := false
		f.Walk(func(i bir.InstID) bool {
			found = f.Inst(i).Op == bir.OpNKIKLIRKernel
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// AddPlaceholder appends an NKIKLIRKernel placeholder to block blk of f:
// the kernel file path and format, the argument APs and the kernel
// parameter names they bind (nil names bind positionally).
func AddPlaceholder(f *bir.Function, blk bir.BlockID, name, path, format string, ins []bir.Operand, inNames []string, outs []bir.Operand, outNames []string) bir.InstID {
	attrs := bir.Attrs(AttrPath, path, AttrFormat, format)
	if inNames != nil {
		attrs = append(attrs, bir.Field{Key: AttrInputNames, Val: strList(inNames)})
	}
	if outNames != nil {
		attrs = append(attrs, bir.Field{Key: AttrOutputNames, Val: strList(outNames)})
	}
	id := f.NewInst(bir.OpNKIKLIRKernel, name, bir.EngUnassigned, ins, outs, attrs)
	f.Append(blk, id)
	return id
}

func strList(xs []string) bir.Value {
	l := make([]bir.Value, len(xs))
	for i, x := range xs {
		l[i] = bir.String(x)
	}
	return bir.List(l...)
}

// blocksInOrder lists f's blocks in program order: each top-level block,
// and after a loop instruction its body blocks, recursively.
func blocksInOrder(f *bir.Function) []bir.BlockID {
	var out []bir.BlockID
	var walk func(b bir.BlockID)
	walk = func(b bir.BlockID) {
		out = append(out, b)
		for _, i := range f.Block(b).Insts {
			if f.Inst(i).Op.IsLoop() {
				for _, bb := range f.Loop(i).Body {
					walk(bb)
				}
			}
		}
	}
	for _, b := range f.Top {
		walk(b)
	}
	return out
}

type translator struct {
	ctx   *pass.Context
	m     *bir.Module
	model *arch.Model
	// calls maps each expanded placeholder of the current function to its
	// call site, for retargetDeps.
	calls map[bir.InstID]bir.InstID
	// live caches the number of live tensors of the current function, valid
	// while the tensor table has liveAt entries.
	live, liveAt int
}

func (tr *translator) scanBlock(f *bir.Function, b bir.BlockID) error {
	insts := slices.Clone(f.Block(b).Insts)
	if tr.liveAt != f.NumTensors() {
		tr.live, tr.liveAt = 0, f.NumTensors()
		for t := 0; t < f.NumTensors(); t++ {
			if !f.Tensor(bir.TensorID(t)).Dead {
				tr.live++
			}
		}
	}
	tr.ctx.Logf("Start of KLIR kernel lowering pass, number of insts: %d, number of allocs: %d", len(insts), tr.live)
	start := time.Now()
	var collected []bir.InstID
	for _, i := range insts {
		if f.Inst(i).Op != bir.OpNKIKLIRKernel {
			continue
		}
		tr.ctx.Logf("Found InstKLIRKernel: %s", f.InstName(i))
		expanded, err := tr.lowerKernelInst(f, i)
		if err != nil {
			return f.WrapErr(i, fmt.Errorf("instruction %s (NKIKLIRKernel): %w", f.InstName(i), err))
		}
		if expanded {
			collected = append(collected, i)
		}
	}
	for _, i := range collected {
		f.Remove(i)
	}
	tr.ctx.Logf("Scan BKs time (s): %g", time.Since(start).Seconds())
	return nil
}

// lowerKernelInst resolves and stages the kernel file, then dispatches on
// the format. It reports whether the placeholder was expanded (false: LNC
// skip, the placeholder stays).
func (tr *translator) lowerKernelInst(f *bir.Function, i bir.InstID) (bool, error) {
	attrs := f.Attrs(i)
	raw := attrs.Str(AttrPath, "")
	if raw == "" {
		return false, diag.Errorf(diag.KernelCall, "no %q attribute naming the kernel file", AttrPath)
	}
	path, err := tr.resolveKernelPath(raw)
	if err != nil {
		return false, err
	}
	if path != raw {
		f.SetAttr(i, AttrPath, bir.String(path))
	}
	if err := tr.stage(path); err != nil {
		return false, err
	}
	var k *kernelFunc
	if attrs.Str(AttrFormat, "") == FormatBIR {
		k, err = tr.lowerFromBirJSON(f, i, path)
	} else {
		k, err = tr.lowerFromKLR(f, i, path)
	}
	if err != nil || k == nil {
		return false, err
	}
	if err := tr.copyConstFileToArtifact(k.fn, path); err != nil {
		tr.m.RemoveFunction(k.fn)
		return false, err
	}
	// The kernel is the user's input: a mistake in it (a matmul writing
	// SBUF, an access outside its tile) is reported here, at its NKI
	// source line, not as a failure deep in a later pass. An allocated
	// kernel (every KLR kernel is) is held to the allocation rules too:
	// the partition-start and PSUM-bank rules users meet in neuronx-cc.
	stage := verify.Stage(0)
	if onChipAllocated(k.fn) {
		stage = verify.StageAllocated
	}
	if err := verify.Function(k.fn, verify.Options{Arch: tr.model, Stage: stage}); err != nil {
		tr.m.RemoveFunction(k.fn)
		return false, fmt.Errorf("%s: the kernel does not verify: %w", path, err)
	}
	if err := tr.insertCall(f, i, k); err != nil {
		tr.m.RemoveFunction(k.fn)
		return false, err
	}
	tr.ctx.Count("kernels lowered", 1)
	tr.ctx.Count("kernel instructions", k.fn.NumInsts())
	return true, nil
}

// resolveKernelPath applies the seed's rule: the path as given, else the
// artifact directory's file of the same base name.
func (tr *translator) resolveKernelPath(p string) (string, error) {
	if fileExists(p) {
		return p, nil
	}
	if tr.m.ArtifactDir != "" {
		p2 := filepath.Join(tr.m.ArtifactDir, filepath.Base(p))
		if fileExists(p2) {
			return p2, nil
		}
	}
	return "", diag.Errorf(diag.KernelCall, "NKI Kernel file %s does not exist, either in full path or in compiler artifacts directory", p)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// stage copies a file into the artifact directory (copyFileToFolder); a
// no-op without an artifact directory or when the file is already there.
func (tr *translator) stage(path string) error {
	_, err := copyIntoDir(tr.m.ArtifactDir, path)
	return err
}

// copyIntoDir copies file into dir (atomically) unless dir is empty or the
// file is already dir's file of that name; it returns the base name.
func copyIntoDir(dir, file string) (string, error) {
	base := filepath.Base(file)
	if dir == "" {
		return base, nil
	}
	dst := filepath.Join(dir, base)
	if a, err := os.Stat(file); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return base, nil
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("staging %s into the artifact directory: %w", file, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("staging %s: %w", file, err)
	}
	if err := pass.WriteFileAtomic(dst, data); err != nil {
		return "", fmt.Errorf("staging %s into %s: %w", file, dir, err)
	}
	return base, nil
}

// selectCore applies the LNC rules to a kernel with n per-core bodies or
// functions. It returns the core and whether to lower (false: skip).
func (tr *translator) selectCore(n int) (int, bool, error) {
	m := tr.m
	if !m.HasCoreID {
		if n > 1 {
			return 0, false, diag.Errorf(diag.KernelCall, "NeuronCoreId must be set when the LNC count is greater than 1 (the kernel has %d per-core bodies: compile every core with --lnc %d, or one with --core-id C; in a module, set neuron_core_id)", n, n)
		}
		return 0, n == 1, nil
	}
	if m.NeuronCoreID < 0 || m.NeuronCoreID >= int64(n) {
		tr.ctx.Logf("The kernel is compiled for LNC count lower than the current core_id %d skip lowering", m.NeuronCoreID)
		tr.ctx.Count("kernels skipped (LNC)", 1)
		return 0, false, nil
	}
	return int(m.NeuronCoreID), true, nil
}

// uniqueFuncName returns name, or name_<k> for the first free k.
func uniqueFuncName(m *bir.Module, name string) string {
	if name == "" {
		name = "nki_kernel"
	}
	if m.Func(name) == nil {
		return name
	}
	for k := 1; ; k++ {
		n := fmt.Sprintf("%s_%d", name, k)
		if m.Func(n) == nil {
			return n
		}
	}
}

// kernelFunc is a lowered kernel: the new function and its parameters.
type kernelFunc struct {
	fn      *bir.Function
	inputs  []kernelParam
	outputs []kernelParam
}

// kernelParam is one input or output tensor of the kernel function.
type kernelParam struct {
	name   string // the I/O name (location name, or set name without "_set")
	tensor bir.TensorID
	dtype  bir.Dtype
	elems  int64
}

// ioParams lists f's inputs (out=false) or outputs, named as the
// interpreter names them: tensors of an input (output) kind or with a
// location typed Input (Output), in declaration order.
func ioParams(f *bir.Function, out bool) []kernelParam {
	var res []kernelParam
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		want, is := bir.MemInput, ts.Kind.IsInput()
		if out {
			want, is = bir.MemOutput, ts.Kind.IsOutput()
		}
		for _, l := range ts.Locs {
			if f.Loc(l).Type == want {
				is = true
			}
		}
		if !is {
			continue
		}
		name := strings.TrimSuffix(ts.Name, "_set")
		if len(ts.Locs) == 1 {
			name = f.Loc(ts.Locs[0]).Name
		}
		elems := int64(1)
		for _, d := range ts.Shape {
			elems *= d
		}
		res = append(res, kernelParam{name: name, tensor: bir.TensorID(t), dtype: ts.Dtype, elems: elems})
	}
	return res
}

// bindArgs maps the placeholder's arguments (APs with optional names) onto
// the kernel's parameters and returns the callee names in argument order.
func bindArgs(f *bir.Function, what string, args []bir.Operand, names bir.Value, hasNames bool, params []kernelParam, fn string) ([]string, error) {
	out := make([]string, len(args))
	byName := map[string]int{}
	for k, p := range params {
		byName[p.name] = k
	}
	pnames := make([]string, len(params))
	for k, p := range params {
		pnames[k] = p.name
	}
	used := make([]bool, len(params))
	if hasNames {
		if names.Kind != bir.ValList || len(names.L) != len(args) {
			return nil, fmt.Errorf("%s_names must be a list of %d strings (one per %s argument), have %s", what, len(args), what, names.JSON())
		}
	} else if len(args) != len(params) {
		return nil, fmt.Errorf("%d %s arguments for the %d %ss of kernel %s (%s)", len(args), what, len(params), what, fn, strings.Join(pnames, ", "))
	}
	for a := range args {
		k := a
		if hasNames {
			n, ok := names.L[a].AsString()
			if !ok {
				return nil, fmt.Errorf("%s_names[%d] is %s, want a string", what, a, names.L[a].JSON())
			}
			var found bool
			if k, found = byName[n]; !found {
				return nil, fmt.Errorf("%s argument %d binds %q, but kernel %s has no %s of that name (its %ss: %s)", what, a, n, fn, what, what, strings.Join(pnames, ", "))
			}
		}
		p := params[k]
		if used[k] {
			return nil, fmt.Errorf("kernel %s %s %s is bound twice", fn, what, p.name)
		}
		used[k] = true
		o := args[a]
		if !o.Kind.IsAP() {
			return nil, fmt.Errorf("%s argument %d (%s) is a %s, want an access pattern", what, a, p.name, o.Kind)
		}
		if o.Dtype != p.dtype {
			return nil, fmt.Errorf("%s argument %d (%s): dtype %s, kernel %s wants %s", what, a, p.name, o.Dtype, fn, p.dtype)
		}
		if n := f.Module().Pattern(o.Pattern).NumElements(); n != p.elems {
			return nil, fmt.Errorf("%s argument %d (%s): %d elements, kernel %s wants %d", what, a, p.name, n, fn, p.elems)
		}
		out[a] = p.name
	}
	for k, p := range params {
		if !used[k] {
			return nil, fmt.Errorf("kernel %s %s %s is not bound by any argument", fn, what, p.name)
		}
	}
	return out, nil
}

// insertCall synthesizes the NKIKernel call site before the placeholder i
// and moves the placeholder's dependencies onto it.
func (tr *translator) insertCall(f *bir.Function, i bir.InstID, k *kernelFunc) error {
	attrs := f.Attrs(i)
	inV, hasIn := attrs.Get(AttrInputNames)
	outV, hasOut := attrs.Get(AttrOutputNames)
	ins := slices.Clone(f.Ins(i))
	outs := slices.Clone(f.Outs(i))
	inNames, err := bindArgs(f, "input", ins, inV, hasIn, k.inputs, k.fn.Name)
	if err != nil {
		return diag.Wrap(diag.KernelCall, err)
	}
	outNames, err := bindArgs(f, "output", outs, outV, hasOut, k.outputs, k.fn.Name)
	if err != nil {
		return diag.Wrap(diag.KernelCall, err)
	}
	name := f.InstName(i)
	callAttrs := bir.Attrs(AttrFunc, k.fn.Name)
	callAttrs = append(callAttrs, bir.Field{Key: AttrInputNames, Val: strList(inNames)}, bir.Field{Key: AttrOutputNames, Val: strList(outNames)})
	scratch, err := tr.scratchpad(f, name, k.fn)
	if err != nil {
		return err
	}
	callAttrs = append(callAttrs, scratch...)
	in := *f.Inst(i)
	call := f.NewInst(bir.OpNKIKernel, name, in.Engine, ins, outs, callAttrs)
	f.Inst(call).Pred = in.Pred
	f.InheritPos(call, i)
	if f.Inst(call).Pos == bir.NoPos {
		// A placeholder without a position (a KLR file compiled directly):
		// the call points at the kernel's first statement.
		f.Inst(call).Pos = firstPos(k.fn)
	}
	for _, d := range f.Deps(i) {
		f.AddDep(call, d)
	}
	f.InsertBefore(i, call)
	tr.calls[i] = call
	return nil
}

// onChipAllocated reports whether every live SB and PSUM location of f
// has an address.
func onChipAllocated(f *bir.Function) bool {
	for l := 0; l < f.NumLocs(); l++ {
		lc := f.Loc(bir.LocID(l))
		if !lc.Dead && (lc.Type == bir.MemSB || lc.Type == bir.MemPSUM) && !lc.Allocated {
			return false
		}
	}
	return true
}

// firstPos returns the source position of f's first instruction that has
// one, in program order.
func firstPos(f *bir.Function) bir.PosID {
	pos := bir.NoPos
	f.Walk(func(i bir.InstID) bool {
		pos = f.Inst(i).Pos
		return pos == bir.NoPos
	})
	return pos
}

// retargetDeps makes instructions that depended on an expanded placeholder
// depend on its call site: one walk over the function, only when it had
// expanded placeholders.
func (tr *translator) retargetDeps(f *bir.Function) {
	if len(tr.calls) == 0 {
		return
	}
	f.Walk(func(j bir.InstID) bool {
		if !f.HasDeps(j) {
			return true
		}
		deps := f.Deps(j)
		if !slices.ContainsFunc(deps, func(d bir.Dep) bool { _, ok := tr.calls[d.On]; return ok }) {
			return true
		}
		f.ClearDeps(j)
		for _, d := range deps {
			if c, ok := tr.calls[d.On]; ok {
				d.On = c
			}
			f.AddDep(j, d)
		}
		return true
	})
}

// scratchpad creates the caller's scratchpad tensors of an allocated kernel
// (createKernelScratchpadBuffers) and returns the call's attributes.
func (tr *translator) scratchpad(f *bir.Function, call string, k *bir.Function) ([]bir.Field, error) {
	var sbParts, sbBytes, psParts, psEnd int64
	onChip, allocated := 0, 0
	for l := 0; l < k.NumLocs(); l++ {
		lc := k.Loc(bir.LocID(l))
		if lc.Dead || !lc.Type.IsOnChip() {
			continue
		}
		onChip++
		if !lc.Allocated {
			continue
		}
		allocated++
		if lc.Type == bir.MemSB {
			sbParts = max(sbParts, lc.Base+lc.Partitions)
			sbBytes = max(sbBytes, lc.Addr+lc.Bytes)
		} else {
			psParts = max(psParts, lc.Base+lc.Partitions)
			psEnd = max(psEnd, lc.Bank*tr.bankBytes()+lc.Addr+lc.Bytes)
		}
	}
	if onChip == 0 || allocated != onChip {
		// Not an allocated kernel: nothing is reserved (a later allocator
		// places the kernel's tensors).
		return nil, nil
	}
	var fields []bir.Field
	var names []bir.Value
	add := func(suffix string, mt bir.MemoryType, class bir.TensorClass, parts, bytes int64) error {
		name := f.UniqueTensorLocName(call + suffix)
		t, err := f.AddTensor(bir.Tensor{Name: name + "_set", Kind: bir.KindInternal, Class: class, Dtype: bir.Uint8, Shape: []int64{parts, bytes}})
		if err != nil {
			return err
		}
		if _, err := f.AddLoc(t, bir.MemLoc{Name: name, Type: mt, Partitions: parts, Bytes: bytes, Allocated: true, Pinned: true}); err != nil {
			return err
		}
		names = append(names, bir.String(name))
		return nil
	}
	if sbBytes > 0 {
		if err := add("_sb_scratch", bir.MemSB, bir.ClassNeuronSBTensor, sbParts, sbBytes); err != nil {
			return nil, err
		}
		fields = append(fields, bir.Field{Key: AttrSBBufShape, Val: bir.Ints(sbParts, sbBytes)})
	}
	if psEnd > 0 {
		bank := tr.bankBytes()
		banks := (psEnd + bank - 1) / bank
		if err := add("_psum_scratch", bir.MemPSUM, bir.ClassNeuronPSUMTensor, psParts, banks*bank); err != nil {
			return nil, err
		}
		fields = append(fields, bir.Field{Key: AttrPSUMBuf, Val: bir.List(bir.Int(psParts), bir.Ints(banks, bank))})
	}
	fields = append(fields, bir.Field{Key: AttrScratchpad, Val: bir.List(names...)})
	return fields, nil
}

// bankBytes returns the PSUM bank size of the machine model (2 KiB on
// every published generation).
func (tr *translator) bankBytes() int64 {
	if tr.model != nil && tr.model.PSUMBankBytes > 0 {
		return tr.model.PSUMBankBytes
	}
	return 2 * arch.KiB
}

// copyConstFileToArtifact stages the files of Const tensors of fn.
func (tr *translator) copyConstFileToArtifact(fn *bir.Function, kernelPath string) error {
	dir := tr.m.ArtifactDir
	for t := 0; t < fn.NumTensors(); t++ {
		ts := fn.Tensor(bir.TensorID(t))
		if ts.Dead || ts.Class != bir.ClassConst || ts.File == "" {
			continue
		}
		cands := []string{ts.File}
		if !filepath.IsAbs(ts.File) {
			cands = append(cands, filepath.Join(filepath.Dir(kernelPath), ts.File))
			if dir != "" {
				cands = append(cands, filepath.Join(dir, ts.File))
			}
		}
		found := ""
		for _, c := range cands {
			if fileExists(c) {
				found = c
				break
			}
		}
		if found == "" {
			return fn.TensorErrorf(bir.TensorID(t), "const file %s does not exist (looked in: %s)", ts.File, strings.Join(cands, ", "))
		}
		var err error
		if dir != "" {
			if ts.File, err = copyIntoDir(dir, found); err != nil {
				return fn.TensorErrorf(bir.TensorID(t), "const file: %w", err)
			}
		} else if ts.File, err = filepath.Abs(found); err != nil {
			return fn.TensorErrorf(bir.TensorID(t), "const file: %w", err)
		}
		tr.ctx.Count("const files staged", 1)
	}
	return nil
}
