package kernels

import "testing"

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
