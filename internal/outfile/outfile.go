// Package outfile is narwhal's one way of writing an output file: every
// command-line output (compile -o, full-unroll -o, alloc -o, run
// --outputs, --dump-dir, translate's kernel dumps, .npy and .npz files)
// goes through Write, so they all follow the same rules:
//
//   - "-" and "/dev/stdout" stream to standard output (Options.Stdout).
//   - A symbolic link is followed and its target written (the link stays
//     a link); a chain of links is followed to the end, and a link to a
//     missing file creates that file, as a shell redirection does. A loop
//     of links is an error.
//   - A target that exists and is not a regular file (a FIFO, a character
//     or block device such as /dev/null) is opened and written in place:
//     it is never replaced by a regular file. A directory is an error.
//   - A regular file (or a new one) is written atomically: into a
//     temporary file in the target's directory, synced, given the mode
//     (an existing file keeps its permission bits and, where the process
//     may set them, its owner and group; a new one gets Options.Mode,
//     0644 by default), then renamed over the target. A failure leaves
//     the target as it was and removes the temporary file.
//   - When the directory cannot take a temporary file (it is read-only)
//     but the existing target is writable, the target is rewritten in
//     place (truncated, then written; not atomic: a failure midway leaves
//     a partial file), so that a writable file in a read-only directory
//     can still be an output.
//   - A missing directory is an error ("directory a/b does not exist"):
//     Write never creates directories (run --outputs and --dump-dir,
//     which name directories, create them themselves).
//
// Write streams: the caller's write function receives an io.Writer
// (buffered for files) and the output never has to be held in memory.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Options configure Write.
type Options struct {
	// Stdout receives the output when the path is "-" or "/dev/stdout"
	// (nil: os.Stdout).
	Stdout io.Writer
	// Mode is the permission of a new file (0: 0644).
	Mode fs.FileMode
	// Gate, when set, decides whether the output may be seen: it is
	// called once before the output becomes visible, and an error from it
	// is returned as is with nothing published. For an atomic write it is
	// called after the temporary file is written, synced and closed, just
	// before the rename (an error removes the temporary file), so that
	// the writing can run while the caller decides (compile writes its
	// output while the module is verified); for standard output and a
	// write in place it is called before anything is written.
	Gate func() error
	// InPlace lets the output replace a file the active command reads
	// (Session: compile -o IN --in-place); otherwise that is refused.
	InPlace bool
	// Immediate publishes the output at once even inside a session (the
	// reports of a run: --logfile, --html, --dump-dir), instead of when
	// the command succeeds.
	Immediate bool
}

// IsStdout reports whether path names standard output.
func IsStdout(path string) bool { return path == "-" || path == "/dev/stdout" }

// maxLinks bounds the symbolic links followed (Linux's own limit is 40).
const maxLinks = 40

// Write writes the output named path with write (see the package comment
// for the rules). Errors name the path.
func Write(path string, opt Options, write func(io.Writer) error) error {
	return coded(write1(path, opt, write))
}

func write1(path string, opt Options, write func(io.Writer) error) error {
	if IsStdout(path) {
		if err := opt.gate(); err != nil {
			return err
		}
		w := opt.Stdout
		if w == nil {
			w = os.Stdout
		}
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing standard output: %w", err)
		}
		return nil
	}
	if path == "" {
		return errors.New("empty output file name")
	}
	target, st, err := Resolve(path)
	if err != nil {
		return err
	}
	if s := active.Load(); s != nil {
		if err := s.claim(path, target, st, opt.InPlace); err != nil {
			return err
		}
	}
	switch {
	case st == nil || st.Mode().IsRegular():
		return writeRegular(path, target, st, opt, write)
	case st.IsDir():
		return fmt.Errorf("%s: is a directory, want a file name", describe(path, target))
	default:
		return writeInPlace(path, target, opt, write, false)
	}
}

// gate calls Options.Gate when set.
func (opt Options) gate() error {
	if opt.Gate == nil {
		return nil
	}
	return opt.Gate()
}

// Resolve follows the symbolic links of path to the file they name and
// returns that file's path and its stat (nil when it does not exist yet).
// A missing directory and a loop of links are errors naming path.
func Resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for range maxLinks {
		st, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			dir := filepath.Dir(target)
			if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
				return "", nil, fmt.Errorf("%s: directory %s does not exist", describe(path, target), dir)
			}
			return target, nil, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", describe(path, target), unwrapPath(err))
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return target, st, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", describe(path, target), unwrapPath(err))
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, fmt.Errorf("%s: more than %d symbolic links (a loop?)", path, maxLinks)
}

// describe names the output for messages: the path, and the file a link
// leads to when they differ.
func describe(path, target string) string {
	if target == path || target == "" {
		return path
	}
	return fmt.Sprintf("%s (a link to %s)", path, target)
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeRegular writes a regular (or new) file atomically, or in place
// when its directory refuses a temporary file but the file is writable.
func writeRegular(path, target string, st fs.FileInfo, opt Options, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	mode := opt.Mode
	if mode == 0 {
		mode = 0o644
	}
	if st != nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		if st != nil && errors.Is(err, fs.ErrPermission) {
			return writeInPlace(path, target, opt, write, true)
		}
		return fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(err))
	}
	wb := &writeback{f: tmp}
	defer func() {
		if err != nil {
			wb.close()
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(wb, 64<<10)
	if err = write(bw); err != nil {
		return err
	}
	fail := func(e error) error { return fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(e)) }
	if err = bw.Flush(); err != nil {
		return fail(err)
	}
	if err = wb.close(); err != nil {
		return fail(err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if st != nil {
		keepOwner(tmp, st)
	}
	if err = tmp.Sync(); err != nil {
		return fail(err)
	}
	if err = tmp.Close(); err != nil {
		return fail(err)
	}
	if err = opt.gate(); err != nil {
		return err
	}
	if s := active.Load(); s != nil && !opt.Immediate {
		// A result: published when the command succeeds (Session.End).
		s.deferRename(tmp.Name(), target, path)
		return nil
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fail(err)
	}
	return nil
}

// keepOwner gives the temporary file the owner and group of the file it
// replaces, where the process may (as root, or a group it belongs to);
// otherwise the new file is the process's, as with any rewrite.
func keepOwner(tmp *os.File, st fs.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		_ = tmp.Chown(int(sys.Uid), int(sys.Gid))
	}
}

// writeInPlace opens an existing file, FIFO or device and writes it, once
// the gate (Options.Gate) has said yes
// (truncating a regular file first).
func writeInPlace(path, target string, opt Options, write func(io.Writer) error, truncate bool) error {
	if err := opt.gate(); err != nil {
		return err
	}
	flags := os.O_WRONLY
	if truncate {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(target, flags, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(err))
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(err))
	}
	return nil
}

// WriteBytes writes data with Write.
func WriteBytes(path string, opt Options, data []byte) error {
	return Write(path, opt, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Same reports whether paths a and b name the same existing file (after
// following links; hard links count as the same file). It is how a
// command refuses to overwrite its input.
func Same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}
