package interp

import (
	"errors"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/bug"
)

// parseModule parses a text-form module for the budget tests.
func parseModule(t *testing.T, src string) *bir.Module {
	t.Helper()
	m, err := bir.Parse("test.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// copyModule is x [128, 4] f32 copied to z through a loop header.
func copyModule(loop, extra string) string {
	return `module arch=trn2

func @main {
  tensor %x_set: f32[128, 4] kind=Input
    loc %x: Input 128x16
  tensor %z_set: f32[128, 4] kind=Output
    loc %z: Output 128x16
` + extra + `
Block1:
  loop_i = Loop i in ` + loop + ` {
  Block_i:
    ld = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %z_set[block=0, ap=[[4,128],[1,4]]] f32
  }
}
`
}

func TestRun_MemoryBudget(t *testing.T) {
	big := copyModule("[0, 1)", `  tensor %big_set: f32[1048576, 1048576] kind=Internal
    loc %big: DRAM 1048576x4194304
`)
	// A step-0 pattern walks 2^24 elements of a 16-byte location: small
	// storage, large scratch.
	scratch := strings.Replace(copyModule("[0, 1)", ""), "ld = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %z_set[block=0, ap=[[4,128],[1,4]]] f32",
		"ld = Load %x_set[block=0, ap=[[0,4096],[0,4096]]] f32 -> %z_set[block=0, ap=[[0,4096],[0,4096]]] f32", 1)
	bigAccess := strings.Replace(big, "ld = Load %x_set", "tch = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %big_set[block=0, ap=[[4,128],[1,4]]] f32\n    ld = Load %x_set", 1)
	tests := []struct {
		name   string
		src    string
		opt    Options
		kind   ErrorKind
		frags  []string
		wantOK bool
	}{
		{"4 TiB location under the default budget", bigAccess, Options{}, ErrLimit, []string{"location big", "budget of 2 GiB", MaxMemoryFlag}, false},
		{"scratch of 2^24 elements under 64 MiB", scratch, Options{MaxMemory: 64 << 20}, ErrLimit, []string{"16777216 elements", MaxMemoryFlag}, false},
		{"scratch of 2^24 elements under the default", scratch, Options{}, 0, nil, true},
		{"small module, small budget", copyModule("[0, 2)", ""), Options{MaxMemory: 64 << 10}, 0, nil, true},
		{"inputs over a tiny budget", copyModule("[0, 1)", ""), Options{MaxMemory: 1024}, ErrLimit, []string{"input x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parseModule(t, tt.src)
			_, err := Run(m, RandomInputs(m, 1), tt.opt)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("want success, have %v", err)
				}
				return
			}
			wantErr(t, err, tt.kind, "", tt.frags...)
			if errors.Is(err, bug.ErrInternal) {
				t.Errorf("a budget error is marked internal: %v", err)
			}
		})
	}
}

func TestCheckInputs_Table(t *testing.T) {
	big := strings.Replace(copyModule("[0, 1)", ""), "f32[128, 4] kind=Input\n    loc %x: Input 128x16", "f32[1048576, 1048576] kind=Input\n    loc %x: Input 1048576x4194304", 1)
	tests := []struct {
		name string
		src  string
		opt  Options
		want string // "" : nil
	}{
		{"small", copyModule("[0, 1)", ""), Options{}, ""},
		{"4 TiB input", big, Options{}, "input x (float32 [1048576 1048576], 4 TiB)"},
		{"4 TiB input, no limit", big, Options{MaxMemory: -1}, ""},
		{"small input, 1 KiB budget", copyModule("[0, 1)", ""), Options{MaxMemory: 1024}, "budget of 1 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckInputs(parseModule(t, tt.src), tt.opt)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("want nil, have %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRun_InstructionLimit(t *testing.T) {
	m := parseModule(t, copyModule("[0, 4611686018427387904)", ""))
	_, err := Run(m, RandomInputs(m, 1), Options{MaxInstructions: 1000})
	wantErr(t, err, ErrLimit, "loop_i", "executed more than 1000 instructions", MaxInstructionsFlag)
	if got := (&Options{}).instLimit(); got != DefaultMaxInstructions {
		t.Errorf("zero MaxInstructions: limit %d, want the default %d", got, DefaultMaxInstructions)
	}
	if got := (&Options{MaxInstructions: -1}).instLimit(); got != 0 {
		t.Errorf("MaxInstructions -1: limit %d, want none (0)", got)
	}
	if got := (&Options{}).memLimit(); got != DefaultMaxMemory {
		t.Errorf("zero MaxMemory: limit %d, want the default %d", got, DefaultMaxMemory)
	}
}

// TestRun_LoopBoundsNearInt64 runs loops whose value stepping past ub
// would wrap: each must run exactly its trip count.
func TestRun_LoopBoundsNearInt64(t *testing.T) {
	tests := []struct {
		loop  string
		trips int64
	}{
		{"[0, 9223372036854775807) step 4611686018427387904", 2},
		{"[9223372036854775800, 9223372036854775807) step 3", 3},
		{"[-9223372036854775808, -9223372036854775806)", 2},
	}
	for _, tt := range tests {
		t.Run(tt.loop, func(t *testing.T) {
			m := parseModule(t, copyModule(tt.loop, ""))
			var loads int64
			testHookExec = func(op bir.Opcode) {
				if op == bir.OpLoad {
					loads++
				}
			}
			defer func() { testHookExec = nil }()
			if _, err := Run(m, RandomInputs(m, 1), Options{MaxInstructions: 100}); err != nil {
				t.Fatal(err)
			}
			if loads != tt.trips {
				t.Errorf("%d loads, want %d (the trip count)", loads, tt.trips)
			}
		})
	}
}

func TestBytes_Table(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{512, "512 B"}, {2 << 30, "2 GiB"}, {1536 << 20, "1.5 GiB"}, {4 << 40, "4 TiB"}}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// FuzzRun_Budgets runs mutations of hostile text modules (locations of
// TiBs, a step-0 access of 2^24 elements, loops of 2^62 trips and strides
// that wrap int64, 2^40 blocks) under a 64 MiB memory budget and a
// 100,000-instruction limit, without the verifier: every outcome must be
// an *Error that is not internal, and the budgets must hold (the fuzzer's
// own memory limit catches an allocation that escaped them).
func FuzzRun_Budgets(f *testing.F) {
	for _, src := range []string{
		copyModule("[0, 2)", ""),
		copyModule("[0, 4611686018427387904)", ""),
		copyModule("[0, 9223372036854775807) step 4611686018427387904", ""),
		copyModule("[0, 1)", "  tensor %big_set: f32[1048576, 1048576] kind=Internal\n    loc %big: DRAM 1048576x4194304\n"),
		strings.Replace(copyModule("[0, 1)", ""), "ap=[[4,128],[1,4]]] f32 -> %z_set", "ap=[[0,4096],[0,4096]]] f32 -> %z_set", 1),
		strings.Replace(copyModule("[0, 2)", "  tensor %t_set: f32[128, 4] class=NeuronSBTensor blocks=1099511627776\n    loc %t: SB 128x16\n"),
			"ld = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %z_set[block=0, ap=[[4,128],[1,4]]] f32",
			"ld = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %t_set[block=i, ap=[[4,128],[1,4]]] f32\n    st = Save %t_set[block=i, ap=[[4,128],[1,4]]] f32 -> %z_set[block=0, ap=[[4,128],[1,4]]] f32", 1),
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 8192 {
			return
		}
		m, err := bir.Parse("fuzz.bir", src)
		if err != nil {
			return
		}
		opt := Options{MaxInstructions: 100_000, MaxMemory: 64 << 20}
		if CheckInputs(m, opt) != nil {
			return
		}
		_, err = Run(m, RandomInputs(m, 1), opt)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *interp.Error", err)
		}
		if errors.Is(err, bug.ErrInternal) {
			t.Fatalf("%v\ninput:\n%s", err, src)
		}
	})
}
