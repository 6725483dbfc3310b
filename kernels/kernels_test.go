package kernels

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		spec    string
		wantErr bool
		key     string
		want    string
	}{
		{"tensor_add", false, "rows", "512"},
		{"tensor_add:rows=1024,cols=64", false, "rows", "1024"},
		{"tensor_add:dtype=bf16", false, "dtype", "bf16"},
		{"tensor_add:nope=1", true, "", ""},
		{"tensor_add:rows", true, "", ""},
		{"no_such_kernel", true, "", ""},
		{"tensor_add:rows=128,rows=256", true, "", ""}, // given twice
	}
	for _, tt := range tests {
		_, p, err := ParseSpec(tt.spec)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseSpec(%q) error = %v, wantErr %v", tt.spec, err, tt.wantErr)
			continue
		}
		if err == nil && p[tt.key] != tt.want {
			t.Errorf("ParseSpec(%q)[%s] = %q, want %q", tt.spec, tt.key, p[tt.key], tt.want)
		}
	}
}

func TestBuild_TensorAdd(t *testing.T) {
	m, err := Build("tensor_add")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.NumInsts(); got != 4 {
		t.Errorf("instructions = %d, want 4 (one loop body)", got)
	}
	if _, err := Build("tensor_add:rows=100"); err == nil {
		t.Error("rows=100 accepted, want an error (not a multiple of 128)")
	}
}

// TestRecorded_Mismatch: a module whose narwhal.kernel option names a
// kernel with another interface is refused (it would get that kernel's
// inputs and fail --check only after running); its own record is kept.
func TestRecorded_Mismatch(t *testing.T) {
	m, err := Build("tensor_add:rows=256,cols=8")
	if err != nil {
		t.Fatal(err)
	}
	if in, ok, err := Recorded(m); err != nil || !ok || in.Spec != "tensor_add:rows=256,cols=8" {
		t.Fatalf("own record: %v, %v, %v", in, ok, err)
	}
	tests := []struct{ spec, want string }{
		{"tensor_add:rows=128,cols=8", "whose inputs are x float32 [128 8]"},
		{"embedding", "names builtin:embedding"},
		{"tensor_add:rows=7", "rows=7"},
	}
	for _, tt := range tests {
		m.Config.Options[SpecOption] = tt.spec
		_, ok, err := Recorded(m)
		if !ok || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("option %q: ok %v, err %v, want an error with %q", tt.spec, ok, err, tt.want)
		}
	}
}
