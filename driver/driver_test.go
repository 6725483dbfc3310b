package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
)

func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		data string
		want Format
	}{
		{`{"functions":[]}`, FormatJSON},
		{"\ufeff \n\t{", FormatJSON},
		{"\xd9\xd9\xf7\x82", FormatKLR},
		{"module arch=trn2\n", FormatText},
		{"", FormatText},
		{"# {not json}\n", FormatText},
	} {
		if got := DetectFormat([]byte(tc.data)); got != tc.want {
			t.Errorf("DetectFormat(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

func TestOutputFormat(t *testing.T) {
	for path, want := range map[string]Format{"a.json": FormatJSON, "dir/B.JSON": FormatJSON, "a.bir": FormatText, "a": FormatText, "a.json.txt": FormatText} {
		if got := OutputFormat(path); got != want {
			t.Errorf("OutputFormat(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestSaveLoad: Save writes the format the name asks for; Load reads it
// back by content (whatever the name), to the same module.
func TestSaveLoad(t *testing.T) {
	m, err := Load(BuiltinPrefix + "tensor_add")
	if err != nil {
		t.Fatal(err)
	}
	want := bir.Format(m)
	dir := t.TempDir()
	for _, name := range []string{"m.json", "m.bir"} {
		path := filepath.Join(dir, name)
		if err := Save(path, m); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if isJSON := strings.HasPrefix(string(data), "{"); isJSON != (name == "m.json") {
			t.Errorf("%s: JSON = %v", name, isJSON)
		}
		// A misleading extension does not matter to Load.
		renamed := filepath.Join(dir, "renamed-"+name+".txt")
		if err := os.Rename(path, renamed); err != nil {
			t.Fatal(err)
		}
		m2, err := Load(renamed)
		if err != nil {
			t.Fatalf("Load(%s): %v", renamed, err)
		}
		if got := bir.Format(m2); got != want {
			t.Errorf("%s does not load back to the saved module", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("Save left %d files in the directory, want 2 (no temporary files)", len(entries))
	}
	if err := Save(filepath.Join(dir, "missing", "m.bir"), m); err == nil || !strings.Contains(err.Error(), "missing does not exist") {
		t.Errorf("Save into a missing directory: %v", err)
	}
	if _, err := Load(BuiltinPrefix + "no_such_kernel"); err == nil || !strings.Contains(err.Error(), "unknown built-in kernel") {
		t.Errorf("unknown builtin: %v", err)
	}
}

// TestLoad_EmptyInput: a file with nothing but whitespace is rejected with
// an error naming the file, instead of loading as an empty (arch-less)
// text-form module; a file with content still loads or fails on its own
// terms.
func TestLoad_EmptyInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, data string
	}{
		{"empty.json", ""},
		{"blank.bir", " \n\t\r\n"},
		{"bom.json", "\ufeff\n"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path)
		if err == nil {
			t.Errorf("Load(%s) of %q succeeded (arch %q), want an error", tc.name, tc.data, m.Arch)
			continue
		}
		if want := path + ": empty input"; err.Error() != want {
			t.Errorf("Load(%s) of %q: error %q, want %q", tc.name, tc.data, err, want)
		}
	}
	// Non-blank input is not caught by the check: a comment-only text file
	// reaches the text reader.
	path := filepath.Join(dir, "comment.bir")
	if err := os.WriteFile(path, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil && strings.Contains(err.Error(), "empty input") {
		t.Errorf("Load of a comment-only file: %v, want it to reach the text reader", err)
	}
}

// TestLoad_Large: modules larger than the readers' release step load from
// the mapped file, while the readers release what they passed, to the same
// module as from bytes on the heap; and the loaded module keeps nothing of
// the mapping (Load unmaps the file before returning: a module that kept a
// slice of it would fault when printed).
func TestLoad_Large(t *testing.T) {
	m := bir.GenStraightLine(120_000) // ~50 MB of BIR-JSON, ~20 MB of text
	want := bir.Format(m)
	dir := t.TempDir()
	for _, name := range []string{"big.json", "big.bir"} {
		path := filepath.Join(dir, name)
		if err := Save(path, m); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		got, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bir.Format(got) != want {
			t.Errorf("%s (%d bytes): the loaded module differs", name, st.Size())
		}
	}
}

// TestLoad_ReleasesAsItReads: on input over the readers' release step, both
// readers tell the mapping what they have passed, in increasing ranges.
func TestLoad_ReleasesAsItReads(t *testing.T) {
	m := bir.GenStraightLine(300_000)
	dir := t.TempDir()
	for _, name := range []string{"big.json", "big.bir"} {
		path := filepath.Join(dir, name)
		if err := Save(path, m); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var calls, last int
		release := func(from, to int) {
			if from < 0 || to > len(data) || from >= to {
				t.Fatalf("%s: release(%d, %d) out of [0, %d)", name, from, to, len(data))
			}
			if from >= last {
				last = to
			}
			calls++
		}
		if name == "big.json" {
			_, err = birjson.DecodeReleasing(data, path, release)
		} else {
			_, err = bir.ParseReleasing(path, data, release)
		}
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 || last < len(data)/2 {
			t.Errorf("%s (%d bytes): %d release calls, up to %d", name, len(data), calls, last)
		}
	}
}

// TestPendingSave_CommitDiscard: StartSave writes what SaveTo writes,
// publishes it at Commit only, and Discard leaves nothing (no output, no
// temporary file, an existing output unchanged); a save that cannot start
// fails at Commit with SaveTo's error; standard output is not written
// before Commit.
func TestPendingSave_CommitDiscard(t *testing.T) {
	m, err := Load(BuiltinPrefix + "tensor_add")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	list := func() []string {
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	for _, name := range []string{"m.bir", "m.json"} {
		want := filepath.Join(dir, "want-"+name)
		if err := Save(want, m); err != nil {
			t.Fatal(err)
		}
		wantData, _ := os.ReadFile(want)
		os.Remove(want)

		path := filepath.Join(dir, name)
		p := StartSave(path, nil, m)
		p.Written()
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%s: visible before Commit", name)
		}
		if n := len(list()); n != 1 {
			t.Fatalf("%s: %v in the directory while the save waits, want its temporary file only", name, list())
		}
		if err := p.Commit(); err != nil {
			t.Fatal(err)
		}
		p.Discard() // after Commit: nothing
		if got, _ := os.ReadFile(path); !bytes.Equal(got, wantData) {
			t.Fatalf("%s: StartSave wrote %d bytes, SaveTo %d: they differ", name, len(got), len(wantData))
		}

		os.WriteFile(path, []byte("old"), 0o644)
		p = StartSave(path, nil, m)
		p.Written()
		p.Discard()
		if got, _ := os.ReadFile(path); string(got) != "old" {
			t.Fatalf("%s after Discard: %q, want the old content", name, got)
		}
		if names := list(); len(names) != 1 || names[0] != name {
			t.Fatalf("%s: directory after Discard: %v, want the old output only", name, names)
		}
		os.Remove(path)
	}

	missing := filepath.Join(dir, "no", "m.bir")
	p := StartSave(missing, nil, m)
	p.Written()
	if err, want := p.Commit(), SaveTo(missing, nil, m); err == nil || err.Error() != want.Error() {
		t.Errorf("a missing directory: Commit %v, want SaveTo's %v", err, want)
	}

	var stdout bytes.Buffer
	p = StartSave("-", &stdout, m)
	p.Written()
	if stdout.Len() != 0 {
		t.Fatalf("standard output written before Commit")
	}
	p.Discard()
	if stdout.Len() != 0 {
		t.Fatalf("standard output written after Discard")
	}
	p = StartSave("-", &stdout, m)
	p.Written()
	if err := p.Commit(); err != nil || stdout.String() != bir.Format(m) {
		t.Fatalf("standard output after Commit: %v, %d bytes; want the text form", err, stdout.Len())
	}
}
