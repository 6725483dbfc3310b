package arch

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestLookup_Names(t *testing.T) {
	tests := []struct {
		name  string
		want  string
		level int
	}{
		{"trn1", "trn1", 20}, {"TRN1", "trn1", 20}, {"sunda", "trn1", 20}, {"gen2", "trn1", 20},
		{"NC-v2", "trn1", 20}, {"ncv2", "trn1", 20}, {"nc_v2", "trn1", 20}, {"NeuronCore-v2", "trn1", 20},
		{"inf2", "trn1", 20}, {"CoreV2", "trn1", 20},
		{"trn2", "trn2", 30}, {"cayman", "trn2", 30}, {"gen3", "trn2", 30}, {"NC-v3", "trn2", 30},
		{"Cayman", "trn2", 30}, {"corev3", "trn2", 30},
		{"trn3", "trn3", 40}, {"gen4", "trn3", 40}, {"NC-v4", "trn3", 40}, {"mariana", "trn3", 40},
		{"inf1", "inf1", 10}, {"tonga", "inf1", 10}, {"gen1", "inf1", 10}, {"NC-v1", "inf1", 10},
		{"Inferentia", "inf1", 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != tc.want || m.ArchLevel != tc.level {
				t.Errorf("Lookup(%q) = %s level %d, want %s level %d", tc.name, m.Name, m.ArchLevel, tc.want, tc.level)
			}
		})
	}
}

func TestLookup_Unknown(t *testing.T) {
	for _, name := range []string{"", "trn9", "gen5", "h100"} {
		_, err := Lookup(name)
		if err == nil {
			t.Fatalf("Lookup(%q) succeeded", name)
		}
		for _, want := range []string{"unknown architecture", "trn1", "trn2", "trn3", "inf1", "gen3", "cayman"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Lookup(%q) error %q does not mention %q", name, err, want)
			}
		}
	}
}

func TestLookup_Fresh(t *testing.T) {
	a, _ := Lookup("trn2")
	a.MaxCceDmaSource = 3
	a.Notes[0] = "changed"
	b, _ := Lookup("trn2")
	if b.MaxCceDmaSource == 3 || b.Notes[0] == "changed" {
		t.Error("Lookup returned shared state")
	}
	c := b.Clone()
	c.Notes[0] = "x"
	if b.Notes[0] == "x" {
		t.Error("Clone shares Notes")
	}
}

func TestLookupLevel(t *testing.T) {
	for _, tc := range []struct {
		level int
		want  string
	}{{10, "inf1"}, {20, "trn1"}, {30, "trn2"}, {40, "trn3"}} {
		m, err := LookupLevel(tc.level)
		if err != nil || m.Name != tc.want {
			t.Errorf("LookupLevel(%d) = %v, %v; want %s", tc.level, m, err, tc.want)
		}
	}
	for _, l := range []int{0, 11, 19, 21, 50} {
		if _, err := LookupLevel(l); err == nil {
			t.Errorf("LookupLevel(%d) succeeded", l)
		}
	}
}

func TestModel_Geometry(t *testing.T) {
	tests := []struct {
		name                     string
		partitions, sbuf, usable int64
		psum, banks, bank        int64
		pe, dve, act, pool       float64
		dmaBW                    float64
		hasPool                  bool
		matmulFP32, matmulBF16   int64
		shareSBUF, sharePSUM     bool
	}{
		{"trn1", 128, 192 * KiB, 176 * KiB, 16 * KiB, 8, 2 * KiB, 2.8, 1.12, 1.4, 1.4, 17, true, 512, 0, false, false},
		{"trn2", 128, 224 * KiB, 208 * KiB, 16 * KiB, 8, 2 * KiB, 2.4, 0.96, 1.2, 1.2, 23, true, 512, 0, true, true},
		{"trn3", 128, 256 * KiB, 240 * KiB, 16 * KiB, 8, 2 * KiB, 2.4, 1.2, 1.2, 1.2, 33, true, 4096, 8192, true, true},
		{"inf1", 128, 0, 0, 0, 0, 0, 2.8, 1.12, 1.4, 0, 13.4 / 16, false, 512, 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if m.Partitions != tc.partitions || m.SBUFBytesPerPartition != tc.sbuf || m.UsableSBUFBytes() != tc.usable {
				t.Errorf("SBUF: partitions %d bytes %d usable %d; want %d %d %d", m.Partitions, m.SBUFBytesPerPartition, m.UsableSBUFBytes(), tc.partitions, tc.sbuf, tc.usable)
			}
			if m.PSUMBytesPerPartition() != tc.psum || m.PSUMBanks != tc.banks || m.PSUMBankBytes != tc.bank {
				t.Errorf("PSUM: %d = %d x %d; want %d = %d x %d", m.PSUMBytesPerPartition(), m.PSUMBanks, m.PSUMBankBytes, tc.psum, tc.banks, tc.bank)
			}
			for _, c := range []struct {
				e    bir.Engine
				want float64
			}{{bir.EngPE, tc.pe}, {bir.EngDVE, tc.dve}, {bir.EngAct, tc.act}, {bir.EngPool, tc.pool}} {
				if got := m.Clock(c.e); got != c.want {
					t.Errorf("clock %s = %v, want %v", c.e, got, c.want)
				}
			}
			if m.HasEngine(bir.EngPool) != tc.hasPool {
				t.Errorf("HasEngine(Pool) = %v", m.HasEngine(bir.EngPool))
			}
			if m.HasEngine(bir.EngUnassigned) {
				t.Error("Unassigned is an engine")
			}
			if m.DMABytesPerNs != tc.dmaBW || m.DMAEngines != 16 || m.DMAQueues != 16 || m.DMAPartitionsPerEngine() != 8 {
				t.Errorf("DMA: %v B/ns per engine, %d engines of %d partitions, %d queues; want %v, 16 of 8, 16", m.DMABytesPerNs, m.DMAEngines, m.DMAPartitionsPerEngine(), m.DMAQueues, tc.dmaBW)
			}
			if m.MatmulMaxN(bir.Float32) != tc.matmulFP32 || m.MatmulMaxN(bir.BFloat16) != tc.matmulBF16 || m.MatmulMaxN(bir.Int8) != 0 {
				t.Errorf("MatmulMaxN fp32 %d bf16 %d", m.MatmulMaxN(bir.Float32), m.MatmulMaxN(bir.BFloat16))
			}
			if m.DVEPoolShareSBUF != tc.shareSBUF || m.DVEActSharePSUM != tc.sharePSUM {
				t.Errorf("sharing: sbuf %v psum %v", m.DVEPoolShareSBUF, m.DVEActSharePSUM)
			}
			if m.MaxCceDmaSource != 16 || m.Tile.PMax != 128 || m.Tile.PSUMFMax != 512 || m.MaxFreeDims != 4 {
				t.Errorf("constants: cce %d pmax %d psum_fmax %d free dims %d", m.MaxCceDmaSource, m.Tile.PMax, m.Tile.PSUMFMax, m.MaxFreeDims)
			}
			if m.MaxAPNum != 65535 || m.MinAPStep != -32768 || m.MaxAPStep != 32767 {
				t.Errorf("AP encoding: num %d step [%d, %d]", m.MaxAPNum, m.MinAPStep, m.MaxAPStep)
			}
			if m.Tile.PSUMFMax*4 != 2*KiB {
				t.Error("psum_fmax is not one bank of fp32")
			}
		})
	}
}

func TestModel_Budgets(t *testing.T) {
	m, _ := Lookup("inf1")
	if _, err := m.SBUFBudget(); err == nil || !strings.Contains(err.Error(), "arch.sbuf-bytes-per-partition") {
		t.Errorf("inf1 SBUFBudget error = %v", err)
	}
	if _, err := m.PSUMBudget(); err == nil || !strings.Contains(err.Error(), "arch.psum-banks") {
		t.Errorf("inf1 PSUMBudget error = %v", err)
	}
	if err := m.Set("sbuf-bytes-per-partition", "196608"); err != nil {
		t.Fatal(err)
	}
	if b, err := m.SBUFBudget(); err != nil || b != 196608 {
		t.Errorf("after override SBUFBudget = %d, %v", b, err)
	}
	t2, _ := Lookup("trn2")
	if b, err := t2.PSUMBudget(); err != nil || b != 16*KiB {
		t.Errorf("trn2 PSUMBudget = %d, %v", b, err)
	}
	if got := t2.PSUMAddress(3, 100); got != 3*2048+100 {
		t.Errorf("PSUMAddress(3, 100) = %d", got)
	}
}

func TestModel_Set(t *testing.T) {
	tests := []struct {
		key, val string
		check    func(*Model) bool
		err      string
	}{
		{"max-cce-dma-source", "8", func(m *Model) bool { return m.MaxCceDmaSource == 8 }, ""},
		{"max-cce-dma-source", "0x20", func(m *Model) bool { return m.MaxCceDmaSource == 32 }, ""},
		{"dma-bytes-per-ns", "27.5", func(m *Model) bool { return m.DMABytesPerNs == 27.5 }, ""},
		{"max-free-dims", "5", func(m *Model) bool { return m.MaxFreeDims == 5 }, ""},
		{"max-free-dims", "3", nil, "want 4..16"},
		{"semaphore-bits", "1000", nil, "want 1..31"},
		{"psum-bank-bytes", "3", nil, "want a power of two 512..1048576"},
		{"matmul-max-n-bf16", "0", func(m *Model) bool { return m.MatmulMaxNBF16Dst == 0 }, ""},
		{"partitions", "4294967296", nil, "want 32..128"},
		{"hwdge-fixed-ns", "9223372036854775807", nil, "want a number 0..1e+07"},
		{"dve-act-share-psum", "true", func(m *Model) bool { return m.DVEActSharePSUM }, ""},
		{"pool-clock-ghz", "1.0", func(m *Model) bool { return m.Clock(bir.EngPool) == 1.0 }, ""},
		{"max-cce-dma-source", "-1", nil, "want 1..1024"},
		{"max-cce-dma-source", "many", nil, "want 1..1024"},
		{"dma-bytes-per-ns", "NaN", nil, "want a number 0.01..100000"},
		{"dve-act-share-psum", "maybe", nil, "true or false"},
		{"no-such-option", "1", nil, "unknown option"},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			m, _ := Lookup("trn1")
			err := m.Set(tc.key, tc.val)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Set error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(m) {
				t.Error("field not set")
			}
		})
	}
	if len(OptionNames()) != len(options) {
		t.Error("OptionNames incomplete")
	}
}

func TestForModule(t *testing.T) {
	m := bir.NewModule("gen2")
	m.Config.Options["arch.max-cce-dma-source"] = "4"
	m.Config.Options["gen-stride-dma"] = "true" // not ours: ignored
	a, err := ForModule(m)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "trn1" || a.MaxCceDmaSource != 4 {
		t.Errorf("ForModule = %s cce %d", a.Name, a.MaxCceDmaSource)
	}
	if a, err := ForModule(bir.NewModule("")); err != nil || a.Name != DefaultName {
		t.Errorf("empty arch: %v, %v", a, err)
	}
	if _, err := ForModule(bir.NewModule("gen9")); err == nil || !strings.Contains(err.Error(), "module arch") {
		t.Errorf("unknown arch error = %v", err)
	}
	bad := bir.NewModule("trn2")
	bad.Config.Options["arch.partitions"] = "lots"
	if _, err := ForModule(bad); err == nil || !strings.Contains(err.Error(), "arch option partitions") {
		t.Errorf("bad option error = %v", err)
	}
	if _, err := ForModule(nil); err == nil {
		t.Error("ForModule(nil) succeeded")
	}
}

// TestSBSizeLegalizationGate: seed 000's gate, "if arch == 0xa: // 10 =
// gen1 Inferentia: special path", "else if arch <= 0x13: // <= 19: pass
// is a NO-OP", else full, written out level by level (not recomputed).
func TestSBSizeLegalizationGate(t *testing.T) {
	for _, tc := range []struct {
		level int
		want  SBGate
	}{
		{-1, SBGateNoOp}, {0, SBGateNoOp}, {1, SBGateNoOp}, {9, SBGateNoOp},
		{10, SBGateSpecial},
		{11, SBGateNoOp}, {18, SBGateNoOp}, {19, SBGateNoOp},
		{20, SBGateFull}, {21, SBGateFull}, {30, SBGateFull}, {40, SBGateFull}, {1000, SBGateFull},
	} {
		if got := SBSizeLegalizationGate(tc.level); got != tc.want {
			t.Errorf("gate(%d) = %s, want %s", tc.level, got, tc.want)
		}
	}
	// narwhal's level binding: inf1 takes the special path, the others the
	// full one; no modelled generation is a no-op.
	for name, want := range map[string]SBGate{"inf1": SBGateSpecial, "trn1": SBGateFull, "trn2": SBGateFull, "trn3": SBGateFull} {
		m, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := SBSizeLegalizationGate(m.ArchLevel); got != want {
			t.Errorf("%s (level %d): gate %s, want %s", name, m.ArchLevel, got, want)
		}
	}
}

// TestOptions_EveryParameter: every numeric or boolean field of Model,
// nested ones included, is settable by exactly one option; a field added
// without an option fails here.
func TestOptions_EveryParameter(t *testing.T) {
	base, err := Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	var leaves []string
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				if i == int(bir.EngUnassigned) && v.Type().Elem() == reflect.TypeOf(EngineInfo{}) {
					continue // never present
				}
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool:
			leaves = append(leaves, path)
		}
	}
	walk(reflect.ValueOf(base).Elem(), "Model")

	reached := map[string]string{}
	for _, o := range options {
		m := base.Clone()
		// A value in the option's range that differs from the base's.
		var val string
		switch p := o.ptr(m).(type) {
		case *bool:
			val = fmt.Sprint(!*p)
		case *int64:
			val = fmt.Sprint(o.lo)
			if *p == o.lo {
				val = fmt.Sprint(o.hi)
			}
		case *int:
			val = fmt.Sprint(o.lo)
			if int64(*p) == o.lo {
				val = fmt.Sprint(o.hi)
			}
		case *float64:
			val = fmt.Sprint(o.flo)
			if *p == o.flo {
				val = fmt.Sprint(o.fhi)
			}
		}
		if o.lo == o.hi && o.flo == o.fhi && o.ptr(m) != nil {
			if _, isBool := o.ptr(m).(*bool); !isBool {
				reached["Model.QuadrantPartitions"] = o.name
				continue // a single admitted value (quadrant-partitions)
			}
		}
		if err := m.Set(o.name, val); err != nil {
			t.Fatalf("Set(%s, %s): %v", o.name, val, err)
		}
		var changed []string
		for _, l := range leaves {
			if fmt.Sprint(field(base, l)) != fmt.Sprint(field(m, l)) {
				changed = append(changed, l)
			}
		}
		// A clock also marks its engine present (Present may already be).
		if len(changed) == 0 || len(changed) > 2 || (len(changed) == 2 && !strings.HasSuffix(changed[1], ".Present")) {
			t.Errorf("option %s changes %v: want one field", o.name, changed)
			continue
		}
		if prev, dup := reached[changed[0]]; dup {
			t.Errorf("options %s and %s both set %s", prev, o.name, changed[0])
		}
		reached[changed[0]] = o.name
	}
	for _, l := range leaves {
		if _, ok := reached[l]; !ok {
			t.Errorf("machine parameter %s has no option: add it to arch's options table", l)
		}
	}
}

// field returns the value at a path built by TestOptions_EveryParameter.
func field(m *Model, path string) any {
	v := reflect.ValueOf(m).Elem()
	for _, part := range strings.Split(strings.TrimPrefix(path, "Model."), ".") {
		name, idx, isIdx := strings.Cut(part, "[")
		v = v.FieldByName(name)
		if isIdx {
			var i int
			fmt.Sscanf(idx, "%d]", &i)
			v = v.Index(i)
		}
	}
	return v.Interface()
}

// TestRetarget: --arch, the module's arch.* options and --option
// arch.NAME=VALUE, in the documented precedence, recorded in the module.
func TestRetarget(t *testing.T) {
	newMod := func() *bir.Module {
		m := bir.NewModule("trn2")
		m.Config.Options["arch.max-cce-dma-source"] = "4"
		m.Config.Options["arch.dma-queues"] = "8"
		return m
	}
	for _, tc := range []struct {
		name     string
		archName string
		opts     map[string]string
		wantArch string
		cce      int64
		queues   int64
		err      string
	}{
		{"module only", "", nil, "trn2", 4, 8, ""},
		{"--arch keeps module options", "inf1", nil, "inf1", 4, 8, ""},
		{"--arch spelling is canonical", "NC-v2", nil, "trn1", 4, 8, ""},
		{"command line over module", "", map[string]string{"max-cce-dma-source": "3"}, "trn2", 3, 8, ""},
		{"both", "trn3", map[string]string{"dma-queues": "2"}, "trn3", 4, 2, ""},
		{"unknown arch", "gen9", nil, "", 0, 0, "--arch: arch: unknown architecture"},
		{"unknown option", "", map[string]string{"no-such": "1"}, "", 0, 0, "--option arch.no-such=1: arch: unknown option"},
		{"bad value", "", map[string]string{"max-cce-dma-source": "-2"}, "", 0, 0, "--option arch.max-cce-dma-source=-2: arch option max-cce-dma-source: want 1..1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMod()
			a, err := Retarget(m, tc.archName, tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if m.Arch != "trn2" || len(m.Config.Options) != 2 {
					t.Fatalf("a failed Retarget changed the module: arch %s options %v", m.Arch, m.Config.Options)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != tc.wantArch || a.MaxCceDmaSource != tc.cce || a.DMAQueues != tc.queues {
				t.Fatalf("model %s cce %d queues %d, want %s %d %d", a.Name, a.MaxCceDmaSource, a.DMAQueues, tc.wantArch, tc.cce, tc.queues)
			}
			// The module records the result: ForModule agrees.
			b, err := ForModule(m)
			if err != nil {
				t.Fatal(err)
			}
			if b.Name != a.Name || b.MaxCceDmaSource != a.MaxCceDmaSource || b.DMAQueues != a.DMAQueues {
				t.Fatalf("ForModule after Retarget: %s %d %d, want %s %d %d", b.Name, b.MaxCceDmaSource, b.DMAQueues, a.Name, a.MaxCceDmaSource, a.DMAQueues)
			}
		})
	}
}

func TestNames(t *testing.T) {
	names := Names()
	for _, n := range names {
		if _, err := Lookup(n); err != nil {
			t.Errorf("listed name %q does not resolve: %v", n, err)
		}
	}
	if names[0] != "trn1" {
		t.Errorf("Names()[0] = %q", names[0])
	}
}

func TestModel_NotesAndFinite(t *testing.T) {
	for _, m := range All() {
		if len(m.Notes) == 0 {
			t.Errorf("%s: no notes on inferred figures", m.Name)
		}
		for e := range m.Engines {
			if c := m.Engines[e].ClockGHz; math.IsNaN(c) || c < 0 {
				t.Errorf("%s: bad clock for %s", m.Name, bir.Engine(e))
			}
		}
	}
}

// TestPartitionContiguous: the DMA descriptor rule of R0 (passes/dma's
// file comment argues it): each partition's data is one contiguous run.
func TestPartitionContiguous(t *testing.T) {
	for _, tc := range []struct {
		p    bir.Pattern
		want bool
	}{
		{bir.Pattern{{Step: 1024, Num: 128}, {Step: 1, Num: 512}}, true},  // rows apart, each row contiguous: left alone
		{bir.Pattern{{Step: 1024, Num: 128}, {Step: 2, Num: 512}}, false}, // every other element: rewritten
		{bir.Pattern{{Step: 1, Num: 128}, {Step: 128, Num: 128}}, false},  // the transposing load
		{bir.Pattern{{Step: 512, Num: 128}, {Step: 64, Num: 8}, {Step: 1, Num: 64}}, true},
		{bir.Pattern{{Step: 512, Num: 128}, {Step: 65, Num: 8}, {Step: 1, Num: 64}}, false},
		{bir.Pattern{{Step: 512, Num: 128}, {Step: 7, Num: 1}, {Step: 1, Num: 64}}, true}, // num 1 pairs are ignored
		{bir.Pattern{{Step: 512, Num: 128}, {Step: -1, Num: 4}}, false},
		{bir.Pattern{{Step: 3, Num: 128}}, true},
		{nil, true},
	} {
		if got := PartitionContiguous(tc.p); got != tc.want {
			t.Errorf("PartitionContiguous(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestOptions_EveryRange: every numeric machine parameter declares a
// documented range with its reason, the trn2 value lies inside it, and
// the values just outside it are refused naming the option and the
// range.
func TestOptions_EveryRange(t *testing.T) {
	base, _ := Lookup("trn2")
	for _, o := range options {
		switch p := o.ptr(base).(type) {
		case *bool:
			continue
		case *int64, *int:
			v := int64(0)
			if q, ok := p.(*int64); ok {
				v = *q
			} else {
				v = int64(*p.(*int))
			}
			if o.why == "" || o.lo > o.hi {
				t.Errorf("%s: range %d..%d, reason %q", o.name, o.lo, o.hi, o.why)
			}
			if (v < o.lo || v > o.hi) && !(v == 0 && o.zeroOK) {
				t.Errorf("%s: trn2's %d is outside %s", o.name, v, o.rangeText())
			}
			for _, bad := range []int64{o.lo - 1, o.hi + 1} {
				if bad == 0 && o.zeroOK {
					continue
				}
				err := base.Clone().Set(o.name, fmt.Sprint(bad))
				if err == nil || !strings.Contains(err.Error(), o.name) || !strings.Contains(err.Error(), o.rangeText()) {
					t.Errorf("%s=%d: error %v, want the option and its range", o.name, bad, err)
				}
			}
		case *float64:
			if o.why == "" || o.flo > o.fhi || *p < o.flo && *p != 0 || *p > o.fhi {
				t.Errorf("%s: range %g..%g, reason %q, trn2 %g", o.name, o.flo, o.fhi, o.why, *p)
			}
			for _, bad := range []string{"NaN", "+Inf", fmt.Sprint(o.fhi * 2), "-1"} {
				if err := base.Clone().Set(o.name, bad); err == nil {
					t.Errorf("%s=%s: accepted", o.name, bad)
				}
			}
		}
	}
}

// TestModel_SBUFBudgetAtTheCarveOut: an SBUF size at or below the runtime
// carve-out is set, not unpublished: the message says so with both
// numbers (a value below 4 KiB is refused by the option's range first).
func TestModel_SBUFBudgetAtTheCarveOut(t *testing.T) {
	// 4096: the least arch.sbuf-bytes-per-partition accepts.
	for _, size := range []string{"4096", "16384"} {
		m, _ := Lookup("trn2")
		if err := m.Set("sbuf-bytes-per-partition", size); err != nil {
			t.Fatal(err)
		}
		_, err := m.SBUFBudget()
		want := "arch.sbuf-bytes-per-partition=" + size + " is at or below the runtime's SBUF carve-out of 16384 bytes per partition"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "not published") {
			t.Errorf("size %s: err %v, want one containing %q", size, err, want)
		}
	}
	m, _ := Lookup("trn2")
	if err := m.Set("sbuf-bytes-per-partition", "16385"); err != nil {
		t.Fatal(err)
	}
	if b, err := m.SBUFBudget(); err != nil || b != 1 {
		t.Errorf("one byte above the carve-out: %d, %v", b, err)
	}
}
