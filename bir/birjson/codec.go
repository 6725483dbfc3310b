// Package birjson reads and writes BIR-JSON, the interchange format of
// neuronx-cc's backend (walrus_driver -i bir.json), as specified in
// ../shared/docs/bir-json.md (the KLR project's emitter model) plus
// narwhal's documented extensions (docs/bir-json.md in this repository:
// dependencies, affine expressions, predicates, the seeds' tensor
// annotations, module config).
//
// Reading is a hand-written streaming scanner over the input bytes that
// builds the bir.Module directly, in the seeds' two passes (storages, then
// instructions, then everything that names an instruction); see decode.go.
// Writing appends into one buffer with a fixed key order, so output is
// deterministic and Decode(Encode(m)) re-encodes to identical bytes; see
// encode.go. A neuronx-cc file does not lose data by passing through
// narwhal: every field narwhal does not model is kept verbatim (Extra sets,
// instruction attribute sets, unknown opcodes).
//
// Errors name what and where: a malformed file gives
// "file.json:LINE:COL: function f, instruction i, ins[1]: what"
// (*Error); a module that cannot be written gives an *EncodeError naming
// the function, instruction and operand. No input makes the reader panic;
// a recover at the API boundary turns any remaining bug into an error as a
// last safety net.
//
// Performance (BenchmarkRead1M, BenchmarkWrite1M on bir.GenStraightLine; the
// figures are in docs/bir-json.md): the reader allocates nothing per
// instruction on the common path and the writer nothing per instruction.
package birjson

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
)

// Decode parses BIR-JSON held in data; name is the file name used in error
// messages. data is not retained (the module copies what it keeps).
func Decode(data []byte, name string) (m *bir.Module, err error) {
	return DecodeReleasing(data, name, nil)
}

// DecodeReleasing is Decode for input memory-mapped from a file (package
// internal/mapfile): as it moves through data it calls release(from, to)
// for the ranges it has passed, so that they can leave memory. It may read
// a released range again (a skipped block parsed later, an error's line
// number), which the mapping allows. release may be nil.
func DecodeReleasing(data []byte, name string, release func(from, to int)) (m *bir.Module, err error) {
	d := newDecoder(data, name)
	d.release = release
	defer func() {
		if r := recover(); r != nil {
			m = nil
			err = &Error{File: name, Where: d.where(), Msg: fmt.Sprintf("internal error (a narwhal bug; please report it with the input): %v", r), Internal: true}
		}
	}()
	if err := d.parseModule(); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Where == "" {
			e.Where = d.where()
		}
		return nil, err
	}
	return d.m, nil
}

// Read parses BIR-JSON from r; name is the file name used in error messages.
func Read(r io.Reader, name string) (*bir.Module, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return Decode(data, name)
}

// ReadFile parses the BIR-JSON file at path.
func ReadFile(path string) (*bir.Module, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, path)
}

// Encode returns the BIR-JSON text of m.
func Encode(m *bir.Module) ([]byte, error) {
	var c chunks
	if err := Write(&c, m); err != nil {
		return nil, err
	}
	return c.bytes(), nil
}

// chunks collects the writer's output in large pieces and joins them once,
// so that encoding a large module copies its text twice instead of at every
// growth step of one slice.
type chunks struct {
	list [][]byte
	n    int
}

func (c *chunks) Write(p []byte) (int, error) {
	const chunk = 4 << 20
	for len(p) > 0 {
		if len(c.list) == 0 || len(c.list[len(c.list)-1]) == cap(c.list[len(c.list)-1]) {
			c.list = append(c.list, make([]byte, 0, max(chunk, len(p))))
		}
		last := &c.list[len(c.list)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
		c.n += k
	}
	return c.n, nil
}

func (c *chunks) bytes() []byte {
	if len(c.list) == 1 {
		return c.list[0]
	}
	out := make([]byte, 0, c.n)
	for _, b := range c.list {
		out = append(out, b...)
	}
	return out
}

// Write writes the BIR-JSON text of m to w, streaming (it buffers 64 KiB at
// a time). On error w may have received a prefix of the output; use
// WriteFile for an all-or-nothing file.
func Write(w io.Writer, m *bir.Module) (err error) {
	e := newEncoder(m, w)
	defer func() {
		if r := recover(); r != nil {
			err = &EncodeError{Where: e.where, Msg: fmt.Sprintf("internal error (a narwhal bug; please report it): %v", r), Internal: true}
		}
	}()
	if err := e.module(); err != nil {
		return err
	}
	return e.flush(true)
}

// WriteFile writes m to path with narwhal's output rules
// (internal/outfile): streaming into a temporary file in the same
// directory, synced and renamed over path, so a failed write leaves path
// untouched; an existing file's permission bits are kept, a new file gets
// 0644; a link is written through, a FIFO or device in place, "-" is
// standard output.
func WriteFile(path string, m *bir.Module) error {
	return outfile.Write(path, outfile.Options{}, func(w io.Writer) error { return Write(w, m) })
}
