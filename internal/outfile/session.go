package outfile

// A command's outputs as one transaction (issue 27, items 1 and 3).
//
// A Session is what one narwhal command reads and writes. While a session
// is active (Begin .. End, one per command: cmd/narwhal's mainExit opens
// it), every reader notes the files it opens (NoteInput: the module,
// --inputs' .npy/.npz files, an allocation problem, a kernel file and the
// files it imports), and Write checks every output against them, after
// following links, in the one place every output goes through:
//
//   - an output that is a file the command reads is refused (an existing
//     file is compared by identity, os.SameFile, so a symbolic or hard
//     link to an input is caught; Options.InPlace lifts the rule for the
//     one output that may replace its input, compile -o IN --in-place);
//   - two outputs naming the same file are refused (compared by the file
//     the links lead to, and by identity when it exists);
//   - what is not a regular file (a device such as /dev/null, a FIFO) is
//     exempt from both rules: writing one twice, or reading and writing
//     it, replaces no file.
//
// Results appear only when the command succeeds: a regular file is
// written into its temporary file as before, but the rename that makes it
// visible waits for End(true); End(false) removes the temporary files,
// so a compile that fails after the alloc pass wrote --memmap leaves no
// memory map behind. Outputs that report a run rather than its result,
// which are wanted most when it fails (--logfile, --html, --dump-dir and
// the pass dumps), are written with Options.Immediate and appear at once.
// What cannot be taken back is written when produced: standard output, a
// FIFO, a device, and a writable file in a read-only directory (rewritten
// in place; see the package comment).
//
// Without an active session (a package's own tests, a library caller)
// Write behaves as before: no checks, outputs visible at once.
//
// Decisions where the issue is silent: standard output may be named by
// several outputs (their bytes interleave, as a shell's would; nothing is
// overwritten); a publish (rename) that fails at End(true) is reported and
// the remaining outputs are still published, since the command's work is
// done and each rename is atomic on its own.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/narwhal-compiler/narwhal/diag"
)

// Session is one command's inputs and outputs (see the comment above).
type Session struct {
	mu      sync.Mutex
	inputs  []noted
	outputs []noted
	pending []pendingRename
}

// noted is a file a session saw: the name it was given, the file the
// links lead to (absolute), and its identity when it existed.
type noted struct {
	name, target string
	info         fs.FileInfo
}

// pendingRename is a result written into tmp, published as target.
type pendingRename struct {
	tmp, target, name string
}

var active atomic.Pointer[Session]

// Begin starts a session and makes it the active one (replacing any
// session left active).
func Begin() *Session {
	s := &Session{}
	active.Store(s)
	return s
}

// Active returns the active session, nil when there is none.
func Active() *Session { return active.Load() }

// End ends the session: with ok, the pending results are published (the
// renames of their temporary files); without, they are removed. It
// returns the first publish error (code NW106). Calling End on a session
// that is no longer active still settles its pending files.
func (s *Session) End(ok bool) error {
	if s == nil {
		return nil
	}
	active.CompareAndSwap(s, nil)
	s.mu.Lock()
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	var first error
	for _, p := range pending {
		if !ok {
			os.Remove(p.tmp)
			continue
		}
		if err := os.Rename(p.tmp, p.target); err != nil {
			os.Remove(p.tmp)
			if first == nil {
				first = coded(fmt.Errorf("writing %s: %w", describe(p.name, p.target), unwrapPath(err)))
			}
		}
	}
	return first
}

// NoteInput records path as a file the active command reads (no session:
// nothing happens). Standard input, devices and files that cannot be
// stat'ed are not recorded; a directory is not either (the files read
// from it are noted one by one).
func NoteInput(path string) {
	s := active.Load()
	if s == nil || path == "" || path == "-" {
		return
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	target, _, err := Resolve(path)
	if err != nil {
		target = path
	}
	s.mu.Lock()
	s.inputs = append(s.inputs, noted{name: path, target: absPath(target), info: st})
	s.mu.Unlock()
}

// ReadOutput returns the bytes of an output this command wrote, whether
// or not it is published yet (the HTML page embeds the --memmap picture
// the alloc pass wrote).
func ReadOutput(path string) ([]byte, error) {
	if s := active.Load(); s != nil {
		target, _, err := Resolve(path)
		if err == nil {
			abs := absPath(target)
			s.mu.Lock()
			tmp := ""
			for _, p := range s.pending {
				if absPath(p.target) == abs {
					tmp = p.tmp
				}
			}
			s.mu.Unlock()
			if tmp != "" {
				return os.ReadFile(tmp)
			}
		}
	}
	return os.ReadFile(path)
}

// claim checks the output path (resolved to target, st its stat or nil)
// against the session's inputs and earlier outputs and records it.
func (s *Session) claim(path, target string, st fs.FileInfo, inPlace bool) error {
	if st != nil && !st.Mode().IsRegular() {
		return nil // a device, FIFO or directory: no file is replaced
	}
	abs := absPath(target)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !inPlace {
		for _, in := range s.inputs {
			if in.target == abs || (st != nil && os.SameFile(st, in.info)) {
				return coded(fmt.Errorf("output %s: is an input of this command (%s); narwhal never overwrites its input: name another file", describe(path, target), in.name))
			}
		}
	}
	for _, out := range s.outputs {
		if out.target == abs || (st != nil && out.info != nil && os.SameFile(st, out.info)) {
			return coded(fmt.Errorf("output %s: names the same file as output %s; give each output its own file", describe(path, target), out.name))
		}
	}
	s.outputs = append(s.outputs, noted{name: path, target: abs, info: st})
	return nil
}

// defer records a written temporary file to publish at End.
func (s *Session) deferRename(tmp, target, path string) {
	s.mu.Lock()
	s.pending = append(s.pending, pendingRename{tmp: tmp, target: target, name: path})
	s.mu.Unlock()
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return filepath.Clean(a)
	}
	return filepath.Clean(p)
}

// coded gives an output error the output code (NW106) unless it has one.
func coded(err error) error {
	if err == nil || diag.CodeOf(err) == diag.Output {
		return err
	}
	var ce *diag.Error
	if errors.As(err, &ce) {
		return err
	}
	return diag.Wrap(diag.Output, err)
}

// Stream is an output written line by line as a command runs (--logfile):
// it is checked like any output (Write's rules against the session's
// inputs and outputs), then opened in place (a regular file truncated, a
// device or FIFO as it is) so that what was written survives a crash,
// and it keeps the first write error, which Close returns: a log that
// could not be written (a full disk, /dev/full) is reported, not lost.
type Stream struct {
	name, target string
	w            io.Writer
	f            *os.File
	err          error
}

// Create opens the stream output path (see Stream); "-" and
// "/dev/stdout" are opt.Stdout.
func Create(path string, opt Options) (*Stream, error) {
	if IsStdout(path) {
		w := opt.Stdout
		if w == nil {
			w = os.Stdout
		}
		return &Stream{name: path, target: path, w: w}, nil
	}
	if path == "" {
		return nil, coded(errors.New("empty output file name"))
	}
	target, st, err := Resolve(path)
	if err != nil {
		return nil, coded(err)
	}
	if st != nil && st.IsDir() {
		return nil, coded(fmt.Errorf("%s: is a directory, want a file name", describe(path, target)))
	}
	if s := active.Load(); s != nil {
		if err := s.claim(path, target, st, opt.InPlace); err != nil {
			return nil, err
		}
	}
	flags := os.O_WRONLY
	if st == nil || st.Mode().IsRegular() {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	mode := opt.Mode
	if mode == 0 {
		mode = 0o644
	}
	f, err := os.OpenFile(target, flags, mode)
	if err != nil {
		return nil, coded(fmt.Errorf("writing %s: %w", describe(path, target), unwrapPath(err)))
	}
	return &Stream{name: path, target: target, w: f, f: f}, nil
}

// Write writes p, keeping the first error (later writes are dropped).
func (s *Stream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = coded(fmt.Errorf("writing %s: %w", describe(s.name, s.target), unwrapPath(err)))
	}
	return n, s.err
}

// Close closes the file and returns the first write (or close) error.
func (s *Stream) Close() error {
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = coded(fmt.Errorf("writing %s: %w", describe(s.name, s.target), unwrapPath(err)))
		}
		s.f = nil
	}
	return s.err
}
