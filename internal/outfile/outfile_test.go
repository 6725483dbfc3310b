package outfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails when a temporary file was left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWrite_RegularFiles(t *testing.T) {
	tests := []struct {
		name     string
		existing string      // "" : no file
		mode     fs.FileMode // of the existing file
		wantMode fs.FileMode
	}{
		{"new file gets 0644", "", 0, 0o644},
		{"existing 0600 keeps 0600", "old", 0o600, 0o600},
		{"existing 0755 keeps 0755", "old", 0o755, 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.txt")
			if tt.existing != "" {
				if err := os.WriteFile(p, []byte(tt.existing), tt.mode); err != nil {
					t.Fatal(err)
				}
				os.Chmod(p, tt.mode)
			}
			if err := Write(p, Options{}, writeString("new")); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, p); got != "new" {
				t.Errorf("content %q, want new", got)
			}
			st, _ := os.Stat(p)
			if st.Mode().Perm() != tt.wantMode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tt.wantMode)
			}
			noTemps(t, dir)
		})
	}
}

func TestWrite_FailureLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, []byte("keep"), 0o644)
	boom := errors.New("encoder failed")
	err := Write(p, Options{}, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the write function's error", err)
	}
	if got := readFile(t, p); got != "keep" {
		t.Errorf("target %q after a failed write, want it unchanged", got)
	}
	noTemps(t, dir)
}

func TestWrite_SymlinksWriteThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("old"), 0o640)
	os.Chmod(target, 0o640)
	link := filepath.Join(dir, "link.txt")
	chain := filepath.Join(dir, "chain.txt")
	if err := os.Symlink("real.txt", link); err != nil { // relative target
		t.Fatal(err)
	}
	if err := os.Symlink(link, chain); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, chain} {
		if err := Write(p, Options{}, writeString("via "+filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Lstat(p); st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: no longer a symbolic link", p)
		}
		if got := readFile(t, target); got != "via "+filepath.Base(p) {
			t.Errorf("target %q after writing %s", got, p)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
			t.Errorf("target mode %v, want 0640 kept", st.Mode().Perm())
		}
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink("created.txt", dangling)
	if err := Write(dangling, Options{}, writeString("made")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "created.txt")); got != "made" {
		t.Errorf("dangling link's target %q, want made", got)
	}
	// A loop is an error.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := Write(a, Options{}, writeString("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("loop of links: err %v, want a message about symbolic links", err)
	}
	noTemps(t, dir)
}

func TestWrite_FIFOAndDeviceInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(fifo, Options{}, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: mode %v", st.Mode())
	}
	if err := Write(os.DevNull, Options{}, writeString("discarded")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(os.DevNull); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: mode %v", os.DevNull, st.Mode())
	}
	noTemps(t, dir)
}

func TestWrite_Stdout(t *testing.T) {
	for _, p := range []string{"-", "/dev/stdout"} {
		var buf bytes.Buffer
		if err := Write(p, Options{Stdout: &buf}, writeString("streamed")); err != nil {
			t.Fatal(err)
		}
		if buf.String() != "streamed" {
			t.Errorf("%s: stdout got %q", p, buf.String())
		}
	}
}

func TestWrite_Errors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path, want string
	}{
		{"missing directory", filepath.Join(dir, "no", "such", "f.txt"), "does not exist"},
		{"a directory", dir, "is a directory"},
		{"empty name", "", "empty output file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(tt.path, Options{}, writeString("x"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestWrite_ReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may create files in a read-only directory: the in-place fallback cannot be reached")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if err := Write(p, Options{}, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "new" {
		t.Errorf("content %q, want new", got)
	}
	if err := Write(filepath.Join(dir, "fresh.txt"), Options{}, writeString("x")); err == nil {
		t.Errorf("a new file in a read-only directory: want an error")
	}
}

func TestSame_LinksAndCopies(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("x"), 0o644)
	link := filepath.Join(dir, "l")
	os.Symlink(a, link)
	hard := filepath.Join(dir, "h")
	os.Link(a, hard)
	other := filepath.Join(dir, "o")
	os.WriteFile(other, []byte("x"), 0o644)
	tests := []struct {
		x, y string
		want bool
	}{
		{a, a, true}, {a, link, true}, {a, hard, true}, {a, filepath.Join(dir, ".", "a"), true},
		{a, other, false}, {a, filepath.Join(dir, "missing"), false},
	}
	for _, tt := range tests {
		if got := Same(tt.x, tt.y); got != tt.want {
			t.Errorf("Same(%s, %s) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestWrite_LargeOutputHandedOver writes an output of many writeback
// chunks (shrunk for the test) in writes of uneven sizes and checks that
// every byte arrives: the writeback advice changes nothing in the file.
func TestWrite_LargeOutputHandedOver(t *testing.T) {
	defer func(c int64, b int) { writebackChunk, asyncBuf = c, b }(writebackChunk, asyncBuf)
	tests := []struct {
		name  string
		chunk int64
		buf   int // asyncBuf
		size  int
	}{
		{"under two chunks", 1 << 20, 4 << 20, 1<<20 + 7},
		{"many chunks", 4 << 10, 4 << 20, 1<<20 + 123},
		{"chunk-aligned", 8 << 10, 4 << 20, 1 << 20},
		{"asynchronous, many buffers", 4 << 10, 64 << 10, 1<<20 + 123},
		{"asynchronous, buffer-aligned", 8 << 10, 64 << 10, 1 << 20},
		{"asynchronous, one buffer and a byte", 8 << 10, 64 << 10, 64<<10 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writebackChunk, asyncBuf = tt.chunk, tt.buf
			want := make([]byte, tt.size)
			for k := range want {
				want[k] = byte(k*7 + k>>9)
			}
			path := filepath.Join(t.TempDir(), "out.bin")
			err := Write(path, Options{}, func(w io.Writer) error {
				for off, step := 0, 1; off < len(want); step = step*3%100_003 + 1 {
					end := min(off+step, len(want))
					if _, err := w.Write(want[off:end]); err != nil {
						return err
					}
					off = end
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("file of %d bytes differs from the %d written", len(got), len(want))
			}
		})
	}
}

// TestWrite_AsynchronousFailure fails the caller's write function after
// the output has moved to the writing goroutine: Write returns the error,
// the target is not created and no temporary file is left.
func TestWrite_AsynchronousFailure(t *testing.T) {
	defer func(b int) { asyncBuf = b }(asyncBuf)
	asyncBuf = 4 << 10
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	boom := errors.New("boom")
	err := Write(path, Options{}, func(w io.Writer) error {
		if _, err := w.Write(make([]byte, 100<<10)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want %v", err, boom)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("target: %v, want it absent", err)
	}
	noTemps(t, dir)
}

// TestWrite_Gate: an atomic write calls the gate once the temporary file is
// complete (the writing is done when the gate runs) and renames only when
// it says yes; a refusal leaves the target as it was, no temporary file,
// and is returned as is. Standard output and writes in place ask the gate
// before writing anything.
func TestWrite_Gate(t *testing.T) {
	refused := errors.New("refused by the gate")
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		existing bool
		answer   error
	}{
		{"new file, yes", false, nil},
		{"new file, no", false, refused},
		{"existing file, yes", true, nil},
		{"existing file, no", true, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if tc.existing {
				os.WriteFile(p, []byte("old"), 0o644)
			}
			written, calls := false, 0
			gate := func() error {
				calls++
				if !written {
					t.Errorf("the gate ran before the output was written")
				}
				ents, _ := os.ReadDir(dir)
				temps := 0
				for _, e := range ents {
					if strings.Contains(e.Name(), ".tmp") {
						temps++
					}
				}
				if temps != 1 {
					t.Errorf("%d temporary files when the gate runs, want 1", temps)
				}
				return tc.answer
			}
			err := Write(p, Options{Gate: gate}, func(w io.Writer) error {
				written = true
				_, err := io.WriteString(w, "new")
				return err
			})
			if !errors.Is(err, tc.answer) || (err == nil) != (tc.answer == nil) {
				t.Fatalf("Write: %v, want %v", err, tc.answer)
			}
			if calls != 1 {
				t.Errorf("the gate ran %d times, want 1", calls)
			}
			b, rerr := os.ReadFile(p)
			switch {
			case tc.answer == nil && string(b) != "new":
				t.Errorf("after yes: %q, %v; want new", b, rerr)
			case tc.answer != nil && tc.existing && string(b) != "old":
				t.Errorf("after no: %q, %v; want the old content", b, rerr)
			case tc.answer != nil && !tc.existing && !errors.Is(rerr, fs.ErrNotExist):
				t.Errorf("after no: the new file exists (%q, %v)", b, rerr)
			}
			noTemps(t, dir)
		})
	}
	for _, answer := range []error{nil, refused} {
		var buf bytes.Buffer
		err := Write("-", Options{Stdout: &buf, Gate: func() error {
			if buf.Len() != 0 {
				t.Errorf("standard output written before the gate")
			}
			return answer
		}}, writeString("streamed"))
		if want := map[bool]string{true: "streamed", false: ""}[answer == nil]; !errors.Is(err, answer) || (err == nil) != (answer == nil) || buf.String() != want {
			t.Errorf("standard output, gate %v: %v, %q; want %v, %q", answer, err, buf.String(), answer, want)
		}
	}
	if err := Write(os.DevNull, Options{Gate: func() error { return refused }}, func(io.Writer) error {
		t.Errorf("a device written although the gate refused")
		return nil
	}); !errors.Is(err, refused) {
		t.Errorf("device, gate refuses: %v, want %v", err, refused)
	}
}
