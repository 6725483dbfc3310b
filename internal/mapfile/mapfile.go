// Package mapfile gives the readers a file's bytes without copying the
// file onto the Go heap: on Linux a regular file is memory-mapped
// read-only, and a reader that moves through it calls Release for the
// ranges it is done with, so that the pages it has passed leave the
// process (they stay in the page cache; touching them again reads them
// back transparently). A command's peak memory then stays near the size
// of the module it builds, not the module plus the file: a 25M-instruction
// BIR-JSON file is about 12 GB.
//
// Elsewhere, and for what is not a regular file (a pipe, a terminal), Open
// reads the whole file into memory and Release does nothing.
//
// Traps: Data must not be used after Close (a mapped file's bytes are
// unmapped; a reader that kept a slice of them would fault), and a mapped
// file truncated by another process while it is read makes the reader
// fault. Callers decode under debug.SetPanicOnFault and turn such a fault
// into an error (driver.Load does).
package mapfile

import (
	"io"
	"os"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
)

// File is an opened input.
type File struct {
	// Data is the file's content.
	Data []byte

	mapped bool
}

// Open opens path for reading.
func Open(path string) (*File, error) {
	outfile.NoteInput(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() && st.Size() > 0 {
		if data, ok := mmap(f, st.Size()); ok {
			return &File{Data: data, mapped: true}, nil
		}
	}
	if !st.Mode().IsRegular() {
		data, err := readStream(f, path)
		if err != nil {
			return nil, err
		}
		return &File{Data: data}, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return &File{Data: data}, nil
}

// MaxStreamBytes bounds what is read from a stream (a device, a FIFO,
// standard input): a regular file is mapped, a stream is copied onto the
// heap, so a module larger than this is read from a file.
const MaxStreamBytes = 512 << 20

// streamChunk is the unit of a stream read and of its plausibility check.
const streamChunk = 64 << 10

// readStream reads a stream in chunks, bounded by MaxStreamBytes, and
// refuses garbage as soon as a chunk shows it (issue 27 item 6: compile
// /dev/zero and verify /dev/urandom grew without bound): a KLR file
// (binary CBOR, its magic first) may hold any byte; BIR-JSON and the text
// form are UTF-8 text, so a NUL byte or a byte sequence that is not UTF-8
// ends the read with an error naming the offset. /dev/zero is refused at
// its first byte, random bytes within the first chunk.
func readStream(r io.Reader, path string) ([]byte, error) {
	var data []byte
	buf := make([]byte, streamChunk)
	binary := false
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if len(data) == 0 && n >= 3 && buf[0] == 0xd9 && buf[1] == 0xd9 && buf[2] == 0xf7 {
				binary = true
			}
			if !binary {
				if off, ok := plausibleText(buf[:n], err != nil); !ok {
					return nil, diag.Errorf(diag.ReadInput, "%s: not a module: byte 0x%02x at offset %d is not text (BIR-JSON and the text form are UTF-8; a KLR file starts with d9 d9 f7)", path, buf[off], len(data)+off)
				}
			}
			if len(data)+n > MaxStreamBytes {
				return nil, diag.Errorf(diag.ReadInput, "%s: a stream of more than %d MiB: write the module to a file (a file is mapped, not copied)", path, MaxStreamBytes>>20)
			}
			data = append(data, buf[:n]...)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// plausibleText reports whether chunk can be part of a UTF-8 text file
// (no NUL, valid UTF-8; a rune cut by the chunk's end is allowed unless
// last) and, when not, the offset of the first offending byte.
func plausibleText(chunk []byte, last bool) (int, bool) {
	for i := 0; i < len(chunk); {
		c := chunk[i]
		if c == 0 {
			return i, false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(chunk[i:])
		if r == utf8.RuneError && size <= 1 {
			if !last && len(chunk)-i < utf8.UTFMax && !utf8.FullRune(chunk[i:]) {
				return 0, true
			}
			return i, false
		}
		i += size
	}
	return 0, true
}

// Mapped reports whether Data is a memory mapping of the file.
func (f *File) Mapped() bool { return f.mapped }

// Release tells that the reader is done with Data[from:to] for now: the
// whole pages inside the range leave the process's memory. Reading them
// again is still correct (they come back from the page cache).
func (f *File) Release(from, to int) {
	if !f.mapped {
		return
	}
	from, to = max(from, 0), min(to, len(f.Data))
	const page = 4096
	from = (from + page - 1) &^ (page - 1)
	to &^= page - 1
	if to > from {
		release(f.Data[from:to])
	}
}

// Close releases the file's bytes; Data must not be used afterwards.
func (f *File) Close() error {
	data := f.Data
	f.Data = nil
	if f.mapped {
		f.mapped = false
		return munmap(data)
	}
	return nil
}
