package npy

// .npz archives: a ZIP file of .npy members, one per array, named
// "<array name>.npy" (numpy.savez stores them uncompressed,
// numpy.savez_compressed deflates them; both read here). Writing stores
// uncompressed members, as numpy.savez does, in name order, atomically.

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/interp"
)

// ExtNPZ is the archive extension.
const ExtNPZ = ".npz"

// Archive is an open .npz file.
type Archive struct {
	path    string
	closer  io.Closer
	members map[string]*zip.File // by array name (member name without .npy)
}

// OpenNPZ opens a .npz archive for reading.
func OpenNPZ(path string) (*Archive, error) {
	outfile.NoteInput(path)
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz archive: %w", path, err)
	}
	a, err := newArchive(path, &zr.Reader, zr)
	if err != nil {
		zr.Close()
		return nil, err
	}
	return a, nil
}

// ReadNPZ opens an .npz archive held in memory (name is for messages).
func ReadNPZ(name string, data []byte) (*Archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz archive: %w", name, err)
	}
	return newArchive(name, zr, io.NopCloser(nil))
}

func newArchive(path string, zr *zip.Reader, c io.Closer) (*Archive, error) {
	a := &Archive{path: path, closer: c, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name := strings.TrimSuffix(f.Name, Ext)
		if _, dup := a.members[name]; dup {
			return nil, fmt.Errorf("%s: array %q appears twice", path, name)
		}
		a.members[name] = f
	}
	return a, nil
}

// Names returns the array names in the archive, sorted.
func (a *Archive) Names() []string { return slices.Sorted(maps.Keys(a.members)) }

// Has reports whether the archive holds an array named name.
func (a *Archive) Has(name string) bool { _, ok := a.members[name]; return ok }

// Read reads the array named name (see Read for the dtype rules).
func (a *Archive) Read(name string) (*interp.Tensor, error) { return a.read(name, 0, false) }

// ReadAs reads the array named name with ReadAs's dtype rules.
func (a *Archive) ReadAs(name string, dt bir.Dtype) (*interp.Tensor, error) {
	return a.read(name, dt, true)
}

func (a *Archive) read(name string, dt bir.Dtype, haveWant bool) (*interp.Tensor, error) {
	f, ok := a.members[name]
	if !ok {
		return nil, fmt.Errorf("%s: no array %q (have %s)", a.path, name, strings.Join(a.Names(), ", "))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s, member %s: %w", a.path, f.Name, err)
	}
	defer rc.Close()
	t, err := read(rc, dt, haveWant)
	if err != nil {
		return nil, fmt.Errorf("%s, member %s: %w", a.path, f.Name, err)
	}
	var one [1]byte
	if n, _ := io.ReadFull(rc, one[:]); n > 0 {
		return nil, fmt.Errorf("%s, member %s: bytes after the data (shape %v of %s)", a.path, f.Name, t.Shape, t.Dtype)
	}
	t.Name = name
	return t, nil
}

// Close closes the archive.
func (a *Archive) Close() error { return a.closer.Close() }

// WriteNPZ writes tensors (by name) to path as an uncompressed .npz,
// streaming, with narwhal's output rules (internal/outfile: atomic for a
// regular file, "-" for standard output). Every tensor is checked before
// anything is written.
func WriteNPZ(path string, tensors map[string]*interp.Tensor) error {
	names := slices.Sorted(maps.Keys(tensors))
	for _, name := range names {
		if err := check(tensors[name]); err != nil {
			return err
		}
	}
	return outfile.Write(path, outfile.Options{}, func(out io.Writer) error {
		zw := zip.NewWriter(out)
		for _, name := range names {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name + Ext, Method: zip.Store})
			if err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			if err := Write(w, tensors[name]); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	})
}
