package main

// narwhal run and narwhal kernels.
//
//	narwhal run FILE [--inputs DIR|F.npz] [--outputs DIR|F.npz] [--seed N] [--arch A]
//	                 [--check] [--core-id N] [--max-instructions N]
//	                 [--concurrent [--interleave random|starve:ENGINE|late-dma]]
//	narwhal run CORE0 CORE1 ... --concurrent [flags]
//
// The second form runs an LNC kernel's core programs (compile --lnc N -o
// OUT writes OUT.core0.ext, ...) at once; see concurrent.go.
//
// run executes a module (a BIR-JSON or text file, or builtin:NAME[:k=v,...])
// in the reference interpreter. Each input X of the entry function is read
// from DIR/X.npy when --inputs DIR is given and the file exists, or from
// the array X of an .npz archive when --inputs names one (numpy.savez or
// savez_compressed); its dtype and shape must be the module's (see
// npy.ReadAs for the accepted spellings). Every other input is random from
// the seed: a built-in kernel's own generator (in-range embedding indices,
// exactly summable CCE values) or interp.RandomInputs. A .npy file or
// archive array that names no input draws a warning (a likely typo). Each
// output tensor is written to DIR/NAME.npy under --outputs (default "out",
// created when missing, files replaced atomically), or all of them into
// one archive when --outputs ends in .npz, and one summary line per tensor
// is printed:
//
//	input  x  float32 [512 2048]  random (seed 1)
//	output z  float32 [512 2048]  sha256:4f1c2a9be03d7781  out/z.npy
//
// The checksum is the first 16 hex digits of the SHA-256 of the tensor's
// little-endian element bytes, the .npy data section, so that
// hashlib.sha256(np.load(f).tobytes()).hexdigest()[:16] reproduces it.
// --check compares the outputs of a built-in kernel with its plain-Go
// reference (kernels.Kernel.Reference) at the kernel's stated tolerance and
// fails when they differ.
//
//	narwhal kernels [-v]
//
// lists the built-in kernels, one per line: the name, then each parameter
// with its default, then the description (-v adds a line per parameter).
//
// The subcommands register through a package-level variable initializer
// rather than an init function: main.go's init builds the command table
// from extraCommands, and Go runs the init functions of a package's files
// in file-name order (main.go before run.go), while every variable
// initializer runs before any init function.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/npy"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passes/translate"
	"github.com/narwhal-compiler/narwhal/verify"
)

var _ = registerRunCommands()

func registerRunCommands() bool {
	extraCommands = append(extraCommands,
		command{"run", "run FILE... [--inputs DIR|F.npz] [--outputs DIR|F.npz] [--seed N] [--arch A] [--check] [--concurrent [--interleave P]]: execute in the reference interpreter (--concurrent: also as concurrent engine streams, the race checker; several files: an LNC kernel's cores, run together); outputs go to DIR/NAME.npy (default DIR: out)", runRun},
		command{"kernels", "kernels [-v]: list the built-in kernels with their parameters and defaults", runKernels},
	)
	return true
}

// defaultOutputs is where `narwhal run` writes outputs without --outputs.
const defaultOutputs = "out"

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	inDir := fs.String("inputs", "", "read input X from `DIR`/X.npy (or array X of DIR.npz) when present; the others are random")
	outDir := fs.String("outputs", defaultOutputs, "write each output tensor to `DIR`/NAME.npy (or into DIR.npz when the name ends in .npz)")
	seed := fs.Int64("seed", 1, "seed of the random inputs")
	archName := fs.String("arch", "", "target `arch` (default: the module's; its arch.* options are kept); sets the interpreter's SBUF/PSUM geometry")
	var options multiFlag
	fs.Var(&options, "option", "machine parameter `arch.NAME=VALUE` (repeatable)")
	check := fs.Bool("check", false, "compare the outputs with the built-in kernel's Go reference, or a kernel file's golden reference (golden/manifest.json beside or above it)")
	coreID := fs.Int64("core-id", -1, "the module's neuron core `id` (selects one core's body of an LNC kernel; -1: as in the file)")
	maxInsts := fs.Int64("max-instructions", interp.DefaultMaxInstructions, "stop with an error after executing `N` instructions (loop iterations count as one; -1: no limit)")
	noVerify := fs.Bool("no-verify", false, "execute the module even when the verifier rejects it")
	concurrent := fs.Bool("concurrent", false, "also run the engines and DMA queues concurrently (a synchronized module: the race checker) and compare with the sequential run")
	interleave := fs.String("interleave", "random", "the concurrent run's `policy`: random, late-dma, or starve:ENGINE (Tensor, Vector, Scalar, GpSimd, Sync, or a DMA queue: queue3)")
	maxMem := sizeFlag(fs, "max-memory", interp.DefaultMaxMemory, "stop with an error before the interpreter's memory (storage, scratch, inputs, outputs) exceeds `SIZE` (bytes, or with KiB, MiB, GiB, TiB; -1: no limit)")
	nf := addNKIFlags(fs, inDir)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return diag.Errorf(diag.Usage, "want one input (a file or builtin:NAME[:k=v,...]), have none")
	}
	if len(pos) > 1 && !*concurrent {
		return diag.Errorf(diag.Usage, "%d inputs: several inputs are an LNC kernel's core programs (compile --lnc writes them), which run together with --concurrent; give one input otherwise", len(pos))
	}
	if len(pos) > 1 && *coreID >= 0 {
		return diag.Errorf(diag.Usage, "--core-id does not apply to several inputs: input c is core c's program")
	}
	src := pos[0]
	if err := checkCoreID(*coreID); err != nil {
		return err
	}
	if *maxInsts == 0 || *maxInsts < -1 {
		return diag.Errorf(diag.Usage, "--max-instructions %d: want N > 0, or -1 for no limit", *maxInsts)
	}
	if err := emptyFlags(fs, "outputs", "inputs", "arch"); err != nil {
		return err
	}
	if *concurrent {
		if err := checkInterleave(*interleave, nil); err != nil {
			return err
		}
	}
	var inst *kernels.Instance
	var m *bir.Module
	var nk *frontend.Kernel // a kernel file's description (nil for other inputs)
	var gref *reference     // a kernel file's golden reference (run --check)
	if spec, ok := strings.CutPrefix(src, driver.BuiltinPrefix); ok {
		if name := nf.used(fs); name != "" {
			return diag.Errorf(diag.Usage, "--%s applies to a kernel file (.py), and %s is not one", name, src)
		}
		if inst, err = kernels.Instantiate(spec); err != nil {
			return err
		}
		m = inst.Module
	} else {
		if *check && isKernelFile(src) {
			if gref, err = findReference(fs, src, nf); err != nil {
				return err
			}
		}
		if m, nk, err = loadModule(fs, src, nf, *archName, stdout); err != nil {
			return err
		}
	}
	if inst == nil {
		// A saved or compiled copy of a built-in kernel records which one
		// it is: use its input generator and reference, as for builtin:.
		rec, ok, err := kernels.Recorded(m)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if ok {
			inst = rec
			fmt.Fprintf(stdout, "kernel builtin:%s (recorded in the module): its own inputs and reference\n", inst.Spec)
		}
	}
	if *check && inst == nil && gref == nil {
		return diag.Errorf(diag.Usage, "--check compares with a built-in kernel's reference: want builtin:NAME or a module built from one (option %s), have %s", kernels.SpecOption, src)
	}
	params, err := archOnly(options)
	if err != nil {
		return err
	}
	model, err := arch.Retarget(m, *archName, params)
	if err != nil {
		return err
	}
	if *concurrent {
		if err := checkInterleave(*interleave, model); err != nil {
			return err
		}
	}
	if *coreID >= 0 {
		m.NeuronCoreID, m.HasCoreID = *coreID, true
	}
	if m.Main() == nil {
		return diag.Errorf(diag.Structure, "%s: the module has no functions", src)
	}
	if *concurrent && !isSynchronized(m) && !translate.HasPlaceholders(m) {
		return diag.Errorf(diag.Stage, "%s: run --concurrent executes a synchronized module (compile's output: it carries the semaphores the engines wait on), and this one has none: compile it first (narwhal compile %s -o OUT.json)", src, src)
	}
	if !*noVerify {
		if err := verifyInputAt(m, src, "--no-verify", concurrentStage(*concurrent)); err != nil {
			return err
		}
	}
	// The interpreter cannot execute an NKI kernel placeholder (a KLR file
	// wrapped by the loader, or an NKIKLIRKernel in a BIR-JSON module):
	// materialize the kernels first, as the compiler's first pass does.
	if translate.HasPlaceholders(m) {
		if _, err := translate.Translate(m, pass.Config{}); err != nil {
			if !m.HasCoreID {
				// The pass names the module field; name the flag too.
				return fmt.Errorf("%s: %w (narwhal run: --core-id C)", src, err)
			}
			return fmt.Errorf("%s: %w", src, err)
		}
		// The pass leaves a kernel in place, by the seed's rule, when
		// its LNC count has no body for this core: nothing to execute.
		if translate.HasPlaceholders(m) {
			return diag.Errorf(diag.KernelCall, "%s: no NKI kernel body for neuron core %d (the kernel's LNC count is lower; it is skipped on this core): run with the --core-id of a core the kernel has", src, m.NeuronCoreID)
		}
	}

	// Several inputs: the other cores' programs (core c's is input c).
	mods := []*bir.Module{m}
	for c, p := range pos[1:] {
		mc, err := driver.Load(p)
		if err != nil {
			return err
		}
		if _, err := arch.Retarget(mc, *archName, params); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !mc.HasCoreID {
			mc.NeuronCoreID, mc.HasCoreID = int64(c+1), true
		}
		if mc.NeuronCoreID != int64(c+1) || m.HasCoreID && m.NeuronCoreID != 0 {
			return diag.Errorf(diag.Usage, "%s is neuron core %d's program, given as input %d: give the cores' programs in core order, core 0 first", p, mc.NeuronCoreID, c+1)
		}
		if !*noVerify {
			if err := verifyInputAt(mc, p, "--no-verify", concurrentStage(*concurrent)); err != nil {
				return err
			}
		}
		if mc.Main() == nil {
			return diag.Errorf(diag.Structure, "%s: the module has no functions", p)
		}
		if translate.HasPlaceholders(mc) {
			return diag.Errorf(diag.KernelCall, "%s: an NKI kernel placeholder: several cores run compiled programs (compile --lnc N -o OUT writes them)", p)
		}
		mods = append(mods, mc)
	}
	if len(mods) > 1 && translate.HasPlaceholders(m) {
		return diag.Errorf(diag.KernelCall, "%s: an NKI kernel placeholder: several cores run compiled programs (compile --lnc N -o OUT writes them)", src)
	}

	var k *kernels.Kernel
	if inst != nil {
		k = inst.Kernel
	}
	// Whole-tensor operations (before sunda_size_tiling) may span PSUM banks.
	iopt := interp.Options{MaxInstructions: *maxInsts, MaxMemory: int64(*maxMem), Macro: tiling.HasMacroOperations(m, model)}
	if err := interp.CheckInputs(m, iopt); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	inputs, origin, err := loadInputs(m, k, *inDir, *seed, stderr)
	if err != nil {
		return err
	}
	if gref != nil && *inDir == "" && len(nf.input) == 0 {
		gref.bindInputs(inputs, origin)
	}
	var outs map[string]*interp.Tensor
	if len(mods) == 1 {
		if outs, err = interp.Run(m, inputs, iopt); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
	if *concurrent {
		if outs, err = runConcurrent(mods, inputs, outs, iopt, *interleave, *seed, stdout); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(pos, ", "), err)
		}
	}
	outs = renameOutputs(outs, nk)
	npz := strings.EqualFold(filepath.Ext(*outDir), npy.ExtNPZ)
	// Every output name is checked before the first file is written, so
	// that a bad name cannot leave some outputs replaced and others not.
	if !npz {
		for _, name := range slices.Sorted(maps.Keys(outs)) {
			if err := safeFileName(name); err != nil {
				return diag.Wrap(diag.Output, fmt.Errorf("output %q: %w; nothing was written (--outputs F.npz takes any name)", name, err))
			}
		}
	}
	if npz {
		if err := npy.WriteNPZ(*outDir, outs); err != nil {
			return err
		}
	} else if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return diag.Wrap(diag.Output, fmt.Errorf("--outputs: %w", err))
	}
	for _, s := range interp.InputSpecs(m) {
		fmt.Fprintf(stdout, "input  %s  %s %v  %s\n", s.Name, s.Dtype, s.Shape, origin[s.Name])
	}
	for _, name := range slices.Sorted(maps.Keys(outs)) {
		t := outs[name]
		path := *outDir + ":" + name
		if !npz {
			path = filepath.Join(*outDir, name+npy.Ext)
			if err := npy.WriteFile(path, t); err != nil {
				return err
			}
		}
		sum := sha256.Sum256(t.Data)
		fmt.Fprintf(stdout, "output %s  %s %v  sha256:%s  %s\n", name, t.Dtype, t.Shape, hex.EncodeToString(sum[:8]), path)
	}
	if *check && gref != nil {
		if err := gref.check(inputs, outs, stdout); err != nil {
			return err
		}
	} else if *check {
		want, tol, err := inst.Expected(inputs)
		if err != nil {
			return err
		}
		if err := ref.CompareSets(outs, want, tol); err != nil {
			return diag.Wrap(diag.RunFault, fmt.Errorf("--check: builtin:%s differs from its Go reference: %w", inst.Spec, err))
		}
		for _, name := range slices.Sorted(maps.Keys(want)) {
			fmt.Fprintf(stdout, "check  %s  matches the Go reference (max |error| %.3g, %s)\n", name, ref.MaxError(outs[name], want[name]), tol[name])
		}
	}
	return nil
}

// loadInputs reads DIR/<name>.npy for each input of m that has one and
// draws the others; origin says where each came from.
func loadInputs(m *bir.Module, k *kernels.Kernel, dir string, seed int64, stderr io.Writer) (map[string]*interp.Tensor, map[string]string, error) {
	specs := interp.InputSpecs(m)
	inputs := map[string]*interp.Tensor{}
	origin := map[string]string{}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, nil, diag.Wrap(diag.RunInput, fmt.Errorf("--inputs: %w", err))
		}
		if !st.IsDir() {
			if err := loadNPZ(dir, specs, names, inputs, origin, stderr); err != nil {
				return nil, nil, err
			}
		} else if err := loadDir(dir, specs, names, inputs, origin, stderr); err != nil {
			return nil, nil, err
		}
	}
	if len(inputs) < len(specs) {
		random := kernels.InputsFor(k, m, seed)
		for _, s := range specs {
			if _, ok := inputs[s.Name]; ok {
				continue
			}
			t, ok := random[s.Name]
			if !ok || t == nil {
				return nil, nil, diag.Errorf(diag.RunInput, "input %s: no file and no random value for it", s.Name)
			}
			inputs[s.Name] = t
			origin[s.Name] = fmt.Sprintf("random (seed %d)", seed)
		}
	}
	return inputs, origin, nil
}

// loadDir reads DIR/<name>.npy for each input that has a file.
func loadDir(dir string, specs []interp.Spec, names []string, inputs map[string]*interp.Tensor, origin map[string]string, stderr io.Writer) error {
	known := map[string]bool{}
	for _, s := range specs {
		known[s.Name+npy.Ext] = true
		if safeFileName(s.Name) != nil {
			continue
		}
		path := filepath.Join(dir, s.Name+npy.Ext)
		t, err := npy.ReadFileAs(path, s.Dtype)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return diag.Errorf(diag.RunInput, "input %s: %w", s.Name, err)
		}
		if !slices.Equal(t.Shape, s.Shape) {
			return diag.Errorf(diag.RunInput, "input %s: %s: shape %v, want %v", s.Name, path, t.Shape, s.Shape)
		}
		t.Name = s.Name
		inputs[s.Name] = t
		origin[s.Name] = path
	}
	// A file that names no input is most likely a typo: say so.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return diag.Wrap(diag.RunInput, fmt.Errorf("--inputs: %w", err))
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), npy.Ext) && !known[e.Name()] {
			fmt.Fprintf(stderr, "narwhal run: warning: %s matches no input of the module (inputs: %s)\n",
				filepath.Join(dir, e.Name()), strings.Join(names, ", "))
		}
	}
	return nil
}

// loadNPZ reads the inputs an .npz archive holds.
func loadNPZ(path string, specs []interp.Spec, names []string, inputs map[string]*interp.Tensor, origin map[string]string, stderr io.Writer) error {
	a, err := npy.OpenNPZ(path)
	if err != nil {
		return diag.Wrap(diag.RunInput, fmt.Errorf("--inputs: %w", err))
	}
	defer a.Close()
	known := map[string]bool{}
	for _, s := range specs {
		known[s.Name] = true
		if !a.Has(s.Name) {
			continue
		}
		t, err := a.ReadAs(s.Name, s.Dtype)
		if err != nil {
			return diag.Errorf(diag.RunInput, "input %s: %w", s.Name, err)
		}
		if !slices.Equal(t.Shape, s.Shape) {
			return diag.Errorf(diag.RunInput, "input %s: %s, array %s: shape %v, want %v", s.Name, path, s.Name, t.Shape, s.Shape)
		}
		inputs[s.Name] = t
		origin[s.Name] = path + ":" + s.Name
	}
	for _, n := range a.Names() {
		if !known[n] {
			fmt.Fprintf(stderr, "narwhal run: warning: array %s of %s matches no input of the module (inputs: %s)\n",
				n, path, strings.Join(names, ", "))
		}
	}
	return nil
}

// safeFileName rejects tensor names that cannot be a file name in a
// directory (path separators, ".", "..", empty).
func safeFileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return diag.Errorf(diag.Output, "the name cannot be used as a file name")
	}
	return nil
}

func runKernels(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("kernels", stderr)
	verbose := fs.Bool("v", false, "describe each parameter")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return diag.Errorf(diag.Usage, "want no arguments, have %s", strings.Join(pos, " "))
	}
	for _, k := range kernels.All() {
		fmt.Fprintln(stdout, k.Describe())
		if *verbose {
			for _, p := range k.Params {
				fmt.Fprintf(stdout, "    %s=%s  %s\n", p.Name, p.Default, p.Doc)
			}
		}
	}
	return nil
}

// checkInterleave validates --interleave before the run: the policy's
// name, and (once the machine is known, model non-nil) that a starved DMA
// queue is one of the machine's queues.
func checkInterleave(interleave string, model *arch.Model) error {
	_, starve, err := interp.ParsePolicy(interleave)
	if err != nil {
		return diag.Wrap(diag.Usage, err)
	}
	if model != nil && starve.IsQueue() && int64(starve.Queue()) >= max(model.DMAQueues, 1) {
		return diag.Errorf(diag.Usage, "--interleave %s: the machine (%s) has %d DMA queues, queue0..queue%d", interleave, model.Name, max(model.DMAQueues, 1), max(model.DMAQueues, 1)-1)
	}
	return nil
}

// concurrentStage is the verifier stage of run's input: synchronized for
// a concurrent run (a module without semaphores cannot run concurrently),
// none otherwise.
func concurrentStage(concurrent bool) verify.Stage {
	if concurrent {
		return verify.StageSynchronized
	}
	return 0
}
