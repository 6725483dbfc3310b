package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	in := "size, upper ,id,lower,alignment,offset,note\n\n4,3,b1,0,1,,x\n  \n4,9,b2,3,4,8,y\n"
	table, err := ReadCSV(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Buffers) != 2 || table.IDs[1] != "b2" || table.Lines[1] != 5 {
		t.Fatalf("table %+v", table)
	}
	b := table.Buffers[1]
	if b.Lower != 3 || b.Upper != 9 || b.Size != 4 || b.Align != 4 || b.Fixed == nil || *b.Fixed != 8 {
		t.Fatalf("buffer %+v", b)
	}
	if table.Buffers[0].Fixed != nil {
		t.Fatal("empty offset field pinned the buffer")
	}
	var out bytes.Buffer
	if err := table.Write(&out, []int64{0, 8}); err != nil {
		t.Fatal(err)
	}
	want := "size,upper,id,lower,alignment,offset,note\n4,3,b1,0,1,0,x\n4,9,b2,3,4,8,y\n"
	if out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	// end is inclusive.
	table, err = ReadCSV(strings.NewReader("buffer,start,end,size\na,0,2,1\n"), "e.csv")
	if err != nil || table.Buffers[0].Upper != 3 {
		t.Fatalf("end alias: %+v %v", table, err)
	}
}

func TestReadCSV_Errors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "f.csv: empty file"},
		{"missing column", "id,lower,size\n", "f.csv:1: header: missing required column(s) upper"},
		{"duplicate column", "id,lower,upper,size,lower\n", "f.csv:1: header: duplicate column"},
		{"gaps", "id,lower,upper,size,gaps\n", "f.csv:1: header: the gaps column"},
		{"non-numeric", "id,lower,upper,size\n1,0,x,4\n", `f.csv:2: upper "x" is not an integer`},
		{"empty field", "id,lower,upper,size\n1,0,,4\n", "f.csv:2: empty upper field"},
		{"upper <= lower", "id,lower,upper,size\n1,5,5,4\n", "f.csv:2: empty live range"},
		{"negative size", "id,lower,upper,size\n\n1,0,5,-4\n", "f.csv:3: negative size -4"},
		{"field count", "id,lower,upper,size\n1,0,5\n", "f.csv:2: 3 fields, header has 4"},
		{"misaligned offset", "id,lower,upper,size,alignment,offset\n1,0,5,4,8,4\n", "f.csv:2: offset 4 is not a multiple"},
		{"negative offset", "id,lower,upper,size,offset\n1,0,5,4,-8\n", "f.csv:2: negative offset"},
		{"bad quote", "id,lower,upper,size\n1,\"0,5,4\n", "f.csv:2:"},
		{"huge", "id,lower,upper,size\n1,0,5,99999999999999999999\n", `f.csv:2: size "99999999999999999999" is not an integer`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), "f.csv")
			var ce *CSVError
			if !errors.As(err, &ce) {
				t.Fatalf("want *CSVError, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want prefix %q on one line", err, tc.want)
			}
		})
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add("id,lower,upper,size\n1,0,3,4\n2,3,9,4\n")
	f.Add("size,id,upper,lower,alignment,offset\n4,a,3,0,2,\n")
	f.Add("buffer,start,end,size\nx,0,0,0\n")
	f.Add("id,lower,upper,size\n1,-5,9223372036854775807,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		table, err := ReadCSV(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			if table != nil {
				t.Fatal("table and error")
			}
			return
		}
		for _, b := range table.Buffers {
			if b.Upper <= b.Lower || b.Size < 0 {
				t.Fatalf("invalid buffer accepted: %+v", b)
			}
		}
		// Whatever parses must also solve or fail cleanly.
		p := Problem{Buffers: table.Buffers, Capacity: 1 << 20}
		if len(p.Buffers) <= 12 {
			if _, err := Solve(p, Options{NodeLimit: 2000}); err != nil {
				var in *InputError
				var fe *FitError
				if !errors.As(err, &in) && !errors.As(err, &fe) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
			}
		}
		var out bytes.Buffer
		if err := table.Write(&out, make([]int64, len(table.Buffers))); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMain_CLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"), 0o644)
	out := filepath.Join(dir, "out.csv")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"flags after file", []string{in, "--capacity=12", "-o", out}, 0, "fit: 5 buffers, capacity 12, peak 12, max-live 12"},
		{"flags before file", []string{"--capacity", "12", "--timeout=5s", in}, 0, "fit"},
		{"infeasible", []string{in, "--capacity=11"}, 1, "INFEASIBLE"},
		{"minimize", []string{"--minimize", in}, 0, "peak 12"},
		{"minimize says optimal", []string{"--minimize", in}, 0, "optimal: the peak equals the lower bound"},
		{"missing capacity", []string{in}, 1, ""},
		{"two files", []string{in, in, "--capacity=12"}, 1, ""},
		{"bad flag", []string{in, "--bogus"}, 1, ""},
		{"missing file", []string{filepath.Join(dir, "nope.csv"), "--capacity=1"}, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(tc.args, &stdout, &stderr)
			if code != tc.wantCode || !strings.Contains(stdout.String(), tc.wantOut) {
				t.Fatalf("code %d stdout %q stderr %q", code, stdout.String(), stderr.String())
			}
		})
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	table, err := ReadCSV(bytes.NewReader(data), out)
	if err != nil {
		t.Fatal(err)
	}
	offs := make([]int64, len(table.Buffers))
	for i, b := range table.Buffers {
		offs[i] = *b.Fixed
	}
	if msg := independentCheck(Problem{Buffers: table.Buffers, Capacity: 12}, offs); msg != "" {
		t.Fatal(msg)
	}
	// Bad input: one line naming file and line, exit 1.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,lower,upper,size\n1,0,5,4\n2,7,3,4\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{bad, "--capacity=8"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "bad.csv:3:") || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("bad input: code %d stderr %q", code, stderr.String())
	}
}
