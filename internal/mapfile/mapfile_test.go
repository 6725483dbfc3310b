package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestFile_Open(t *testing.T) {
	dir := t.TempDir()
	content := bytes.Repeat([]byte("narwhal mapfile test\n"), 4000) // several pages
	tests := []struct {
		name   string
		data   []byte
		mapped bool // on Linux
	}{
		{"regular", content, true},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.mapped && runtime.GOOS == "linux"; f.Mapped() != want {
				t.Errorf("Mapped() = %v, want %v", f.Mapped(), want)
			}
			if !bytes.Equal(f.Data, tt.data) {
				t.Fatalf("Data: %d bytes, want %d", len(f.Data), len(tt.data))
			}
			// Released pages read back the same; odd ranges are rounded
			// inward, out-of-range ones clipped.
			f.Release(100, len(f.Data)-100)
			f.Release(-5, 3)
			f.Release(len(f.Data)-1, len(f.Data)+4096)
			if !bytes.Equal(f.Data, tt.data) {
				t.Error("Data changed after Release")
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if f.Data != nil || f.Mapped() {
				t.Error("Close left Data or the mapping")
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("Open of a missing file succeeded")
	}
}

// TestFile_OpenNotRegular: what is not a regular file is read, not mapped.
func TestFile_OpenNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	f, err := Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Mapped() || len(f.Data) != 0 {
		t.Errorf("/dev/null: mapped %v, %d bytes", f.Mapped(), len(f.Data))
	}
}
