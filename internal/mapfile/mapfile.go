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
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"io"
	"os"
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
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return &File{Data: data}, nil
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
