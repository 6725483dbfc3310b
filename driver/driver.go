// Package driver connects the CLI to the packages: it loads a module from
// any supported input (BIR-JSON, narwhal's text form, a KLR kernel file,
// or a built-in kernel; the format is detected by content) and saves one,
// atomically, in the format the output name asks for. The pass pipeline
// itself is pipeline.Table.Run; cmd/narwhal parses flags and calls these
// two packages.
package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/mapfile"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/kernels"
)

// Format is an on-disk representation.
type Format int

const (
	FormatUnknown Format = iota
	FormatJSON           // BIR-JSON
	FormatText           // narwhal's text form
	FormatKLR            // a KLR kernel file (CBOR)
)

func (f Format) String() string {
	switch f {
	case FormatJSON:
		return "json"
	case FormatText:
		return "text"
	case FormatKLR:
		return "klr"
	}
	return "unknown"
}

// BuiltinPrefix introduces a built-in kernel spec in place of a file name.
const BuiltinPrefix = "builtin:"

// klrMagic is the CBOR self-describe tag every KLR file starts with
// (klr-format.md: KLRFile.mk = d9 d9 f7).
var klrMagic = []byte{0xd9, 0xd9, 0xf7}

// DetectFormat decides a file's format by its content (not its name):
// a KLR file starts with the CBOR self-describe tag, BIR-JSON with '{'
// after optional whitespace, anything else is text.
func DetectFormat(data []byte) Format {
	if bytes.HasPrefix(data, klrMagic) {
		return FormatKLR
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatText
}

// KLRLoader turns a KLR kernel file into a module (wrapping the kernel in
// a module with one NKIKLIRKernel placeholder, ready for
// translate_nki_ast_to_bir). It is set by the package that implements KLR
// support, so that this package does not depend on it.
var KLRLoader func(path string, data []byte) (*bir.Module, error)

// Load reads a module from path: a file in any supported format (detected
// by content) or "builtin:NAME[:k=v,...]". A file with no content other
// than whitespace (and a byte-order mark) is an error, not an empty
// text-form module: an empty module has no arch and no functions, so
// accepting it would let "verify" and "compile" succeed on, and write an
// arch-less module from, what is almost always a truncated or wrong file.
//
// The file is not read into memory: it is memory-mapped where the platform
// allows (package internal/mapfile) and the readers release the pages
// they have passed, so a command's peak memory stays near the module's
// size even for a multi-gigabyte file.
func Load(path string) (*bir.Module, error) {
	if spec, ok := strings.CutPrefix(path, BuiltinPrefix); ok {
		m, err := kernels.Build(spec)
		return m, diag.Wrap(diag.Builtin, err)
	}
	in, err := mapfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return decode(path, in)
}

// decode reads the module from an opened input. A mapped file that shrinks
// while it is read makes the reader fault: that becomes an error, not a
// crash.
func decode(path string, in *mapfile.File) (m *bir.Module, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			m, err = nil, fmt.Errorf("%s: the file changed while it was read (%v)", path, r)
		}
	}()
	data := in.Data
	if isBlank(data) {
		return nil, diag.Errorf(diag.ReadInput, "%s: empty input", path)
	}
	switch DetectFormat(data) {
	case FormatKLR:
		if KLRLoader == nil {
			return nil, fmt.Errorf("%s: KLR kernel files are not supported by this build", path)
		}
		// KLR files are small and the loader may keep slices of its input:
		// it gets a copy, never the mapping.
		return KLRLoader(path, bytes.Clone(data))
	case FormatJSON:
		return birjson.DecodeReleasing(data, path, in.Release)
	default:
		return bir.ParseReleasing(path, data, in.Release)
	}
}

// isBlank reports whether data holds nothing but whitespace and byte-order
// marks.
func isBlank(data []byte) bool {
	return len(bytes.TrimFunc(data, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })) == 0
}

// OutputFormat picks the format for an output path: BIR-JSON when it ends
// in .json, the text form otherwise (standard output, "-", is text).
func OutputFormat(path string) Format {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return FormatJSON
	}
	return FormatText
}

// Write writes m to w in format f, streaming: the encoders append into a
// small buffer that they flush into w as they go, so the output is never
// held whole in memory.
func Write(w io.Writer, m *bir.Module, f Format) error {
	switch f {
	case FormatJSON:
		return birjson.Write(w, m)
	case FormatText:
		return bir.Print(w, m)
	}
	return fmt.Errorf("cannot write format %v", f)
}

// Output file semantics. Every output a command names goes through
// WriteOutput, which applies narwhal's output rules (internal/outfile):
//
//   - "-" and "/dev/stdout" stream to the command's standard output;
//   - a symbolic link is written through to its target (the link stays);
//   - a FIFO or a device (/dev/null) is written in place, never replaced;
//   - a regular file is replaced atomically (temporary file in the same
//     directory, then a rename), keeping its permission bits (and owner,
//     where allowed); a new file gets 0644;
//   - a writable file in a read-only directory is rewritten in place;
//   - a missing directory is an error (compile -o never creates one; run
//     --outputs and --dump-dir, which name directories, create them).
//
// SameFile is how a command refuses an output that is its own input
// (compile -o IN without --in-place).

// WriteOutput writes the output named path with write; stdout receives
// "-" and "/dev/stdout" (nil: os.Stdout).
func WriteOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	return writeOutput(path, outfile.Options{Stdout: stdout}, write)
}

func writeOutput(path string, opt outfile.Options, write func(io.Writer) error) error {
	err := outfile.Write(path, opt, write)
	if err != nil && diag.CodeOf(err) == "" {
		err = diag.Wrap(diag.Output, err)
	}
	return err
}

// SameFile reports whether two paths name the same existing file (links
// followed, hard links included). A builtin: spec names no file.
func SameFile(a, b string) bool {
	if strings.HasPrefix(a, BuiltinPrefix) || strings.HasPrefix(b, BuiltinPrefix) || outfile.IsStdout(b) {
		return false
	}
	return outfile.Same(a, b)
}

// Save writes m to path in the format its name asks for, with the output
// rules of WriteOutput ("-" goes to os.Stdout).
func Save(path string, m *bir.Module) error {
	return SaveTo(path, nil, m)
}

// SaveTo is Save with the standard output of "-" and "/dev/stdout" given.
func SaveTo(path string, stdout io.Writer, m *bir.Module) error {
	return SaveWith(path, outfile.Options{Stdout: stdout}, m)
}

// SaveWith is Save with the output options given (opt.InPlace: the output
// may replace an input of the command, compile -o IN --in-place).
func SaveWith(path string, opt outfile.Options, m *bir.Module) error {
	f := OutputFormat(path)
	return writeOutput(path, opt, func(w io.Writer) error { return Write(w, m, f) })
}

// PendingSave is a save running on a goroutine of its own and held back
// from view until the caller decides (StartSave): compile writes its output
// while the module is verified after the last pass, and publishes it only
// once the verification (and everything else the command does before
// saving) has succeeded.
type PendingSave struct {
	ready    chan struct{} // closed once the writer waits at its gate or has finished
	decide   chan error    // nil publishes the output; an error discards it
	done     chan struct{} // closed when the writer has returned
	err      error         // the save's error (as SaveTo's)
	panicked any           // a panic of the writer, raised again by Commit
	readyOne sync.Once
	settled  bool
}

// errDiscarded is the gate's answer when the save is discarded.
var errDiscarded = errors.New("output discarded")

// StartSave starts saving m to path as SaveTo does, on a goroutine of its
// own, and returns at once. The output is written in full (into its
// temporary file) but nothing becomes visible until Commit: Discard removes
// the temporary file instead. A target that cannot be written atomically
// (standard output, a FIFO or device, a file in a read-only directory) is
// not written at all before Commit (outfile.Options.Gate), so Discard
// leaves no trace in any case.
//
// The writer only reads m; the caller must not modify m before Commit or
// Discard, and whatever it runs beside the writer must only read m too.
func StartSave(path string, stdout io.Writer, m *bir.Module) *PendingSave {
	return StartSaveWith(path, outfile.Options{Stdout: stdout}, m)
}

// StartSaveWith is StartSave with the output options given (its Gate is
// StartSave's own).
func StartSaveWith(path string, opt outfile.Options, m *bir.Module) *PendingSave {
	p := &PendingSave{ready: make(chan struct{}), decide: make(chan error, 1), done: make(chan struct{})}
	gate := func() error {
		p.markReady()
		return <-p.decide
	}
	go func() {
		defer close(p.done)
		defer p.markReady()
		defer func() {
			if r := recover(); r != nil {
				p.panicked = r
			}
		}()
		f := OutputFormat(path)
		opt.Gate = gate
		p.err = writeOutput(path, opt, func(w io.Writer) error { return Write(w, m, f) })
	}()
	return p
}

func (p *PendingSave) markReady() { p.readyOne.Do(func() { close(p.ready) }) }

// Written waits until the writer has written all it may write before
// Commit (or has failed).
func (p *PendingSave) Written() { <-p.ready }

// Commit publishes the output (the rename of its temporary file, or the
// whole write for a target written in place) and returns the save's
// error, SaveTo's. A panic of the writer is raised again here, on the
// caller's goroutine.
func (p *PendingSave) Commit() error {
	if p.settled {
		return p.err
	}
	p.settled = true
	p.decide <- nil
	<-p.done
	if p.panicked != nil {
		panic(p.panicked)
	}
	return p.err
}

// Discard abandons the save: the temporary file is removed and nothing is
// published. It waits for the writer to return; after Commit it does
// nothing, so a caller may defer it.
func (p *PendingSave) Discard() {
	if p == nil || p.settled {
		return
	}
	p.settled = true
	p.decide <- errDiscarded
	<-p.done
}
