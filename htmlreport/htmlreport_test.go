package htmlreport

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
)

// twoPassTable renames an instruction (a change the diff marks), then
// either succeeds or fails.
func twoPassTable(fail bool) pass.Table {
	return pass.Table{Passes: []pass.Pass{
		{Name: "rename", Order: 3, Default: true, Run: func(ctx *pass.Context) error {
			f := ctx.Module.Main()
			i, _ := f.InstByName("ld")
			f.Rename(i, "ld_renamed")
			ctx.Count("renamed", 1)
			ctx.AddReport("Rename Statistic:", " renamed: 1")
			ctx.Logf("renamed ld")
			return nil
		}},
		{Name: "gated", Default: true, Gate: "never-on", Run: func(*pass.Context) error { return nil }},
		{Name: "last", Default: true, Run: func(ctx *pass.Context) error {
			if fail {
				return errors.New("function main: <b>broken</b>")
			}
			return nil
		}},
	}}
}

func module(t *testing.T) *bir.Module {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	s := b.SBUF("s<script>", bir.Float32, 128, 64)
	b.At(bir.Pos{File: "k.py", Line: 3, Col: 4})
	b.Load("ld", s.All(), x.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func render(t *testing.T, fail bool, maxInsts int64, attach bool) string {
	t.Helper()
	m := module(t)
	r := New("kernel.bir", "narwhal compile kernel.bir --html k.html")
	r.MaxInsts = maxInsts
	if attach {
		r.AddSVG("Allocation map", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>`))
		r.AddTrace("Timeline", "k.trace.json", []byte(`{"traceEvents":[]}`))
	}
	tab := twoPassTable(fail)
	rep, err := tab.Run(m, pass.Config{Observer: r})
	if fail != (err != nil) {
		t.Fatalf("run error %v, want failure %v", err, fail)
	}
	var b bytes.Buffer
	if werr := r.Write(&b, rep, m, err); werr != nil {
		t.Fatal(werr)
	}
	return b.String()
}

func TestRecorder_Write(t *testing.T) {
	page := render(t, false, 0, true)
	for _, want := range []string{
		"<title>narwhal: kernel.bir</title>", `<span class="status ok">compiled</span>`,
		`id="summary"`, `id="passtable"`, `<a href="#pass-0" data-open="pass-0">rename</a>`,
		"skipped: gate never-on is off", `id="pass-0"`, "renamed", "Rename Statistic:", "renamed ld",
		`<span class="del">-   ld = Load`, `<span class="add">&#43;   ld_renamed = Load`, `loc(&#34;k.py&#34;:3:4)`,
		"source positions", "Allocation map", "<svg", `download="k.trace.json"`,
		"data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(`{"traceEvents":[]}`)),
		`s&lt;script&gt;`, "2 IR lines changed", "The pass did not change the IR text.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "s<script>") {
		t.Error("a tensor name reached the page unescaped")
	}
	for _, external := range []string{"http://", "https://", "src=\"", "<link"} {
		if k := strings.Index(page, external); k >= 0 && !strings.Contains(page[max(0, k-40):k], "xmlns") {
			t.Errorf("the page refers to something outside itself: %q", page[max(0, k-20):min(len(page), k+40)])
		}
	}
}

func TestRecorder_Failure(t *testing.T) {
	page := render(t, true, 0, false)
	for _, want := range []string{`<span class="status failed">failed</span>`, `id="error"`, "&lt;b&gt;broken&lt;/b&gt;",
		`class="failedrow"`, `<details class="pass" id="pass-2" open>`, `id="no-attachments"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the failure page lacks %q", want)
		}
	}
}

// TestRecorder_Large: beyond MaxInsts the IR is left out and the page
// says why.
func TestRecorder_Large(t *testing.T) {
	if page := render(t, false, 0, false); !strings.Contains(page, "ld_renamed = Load") {
		t.Fatal("the small page lacks the IR")
	}
	page := render(t, false, -1, false)
	if strings.Contains(page, "ld_renamed = Load") || !strings.Contains(page, "more than the page shows") {
		t.Error("a module over MaxInsts was printed, or the page does not say why it is not")
	}
}

// TestRecorder_KernelSource: the page lists the kernel's source lines the
// instructions came from, with their text and instruction counts.
func TestRecorder_KernelSource(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "k.py")
	if err := os.WriteFile(py, []byte("import nki\n\n    t = nl.load(x)  # <b>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	b.At(bir.Pos{File: py, Line: 3, Col: 5})
	b.Load("ld", s.All(), x.All())
	b.Load("ld2", s.All(), x.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	r := New("k.py", "narwhal compile k.py --html k.html")
	tab := twoPassTable(false)
	rep, err := tab.Run(m, pass.Config{Observer: r})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.Write(&out, rep, m, nil); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{`id="sourcetable"`, py + `:3</td><td class="n">2</td><td class="n">2</td>`, "<code>t = nl.load(x)  # &lt;b&gt;</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A position whose file cannot be read (a KLR kernel's kernels.py)
	// keeps its counts, without text.
	if p := render(t, false, 0, false); !strings.Contains(p, `k.py:3</td><td class="n">1</td><td class="n">1</td><td><code></code>`) {
		t.Errorf("a position naming a missing file: want its row without text")
	}
}
