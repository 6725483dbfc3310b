package main

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestVerify_Stage: `narwhal verify --stage allocated` accepts a compiled
// module, rejects one that stopped before allocation, names an unknown
// stage, and catches an address corrupted so that two live tiles overlap
// (the overlap rule, which also runs without --stage on allocated input).
func TestVerify_Stage(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done.bir")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=512", "-o", done); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := narwhal(t, "verify", done, "--stage", "allocated"); code != 0 || !okAtStage(stdout, "allocated") {
		t.Fatalf("verify --stage allocated: exit %d, %q, %q", code, stdout, stderr)
	}
	early := filepath.Join(dir, "early.bir")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=512", "--passes", "full_unroll", "-o", early); code != 0 {
		t.Fatalf("compile --passes full_unroll: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", early); code != 0 {
		t.Fatalf("verify without a stage: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", early, "--stage", "allocated"); code != 1 || !strings.Contains(stderr, "[allocated]") {
		t.Fatalf("an unallocated module at stage allocated: exit %d, %q", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", done, "--stage", "alocated"); code != 1 || !strings.Contains(stderr, "unknown verifier stage") {
		t.Fatalf("unknown stage: exit %d, %q", code, stderr)
	}
	// Move the second x tile onto the first one's bytes: both are live
	// at once (loaded before the first add).
	text, err := os.ReadFile(done)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^(    loc %y_tile_set_sub0: SB 128x2048) addr=\d+ allocated$`)
	if !re.Match(text) {
		t.Fatalf("no placed y_tile_set_sub0 in:\n%s", text)
	}
	bad := filepath.Join(dir, "bad.bir")
	if err := os.WriteFile(bad, re.ReplaceAll(text, []byte("$1 allocated")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := narwhal(t, "verify", bad)
	if code != 1 || !strings.Contains(stderr, "[overlap]") || !strings.Contains(stderr, "y_tile_set_sub0") {
		t.Fatalf("overlapping placement: exit %d, %q", code, stderr)
	}
}

// TestCompile_MemmapAndDump: --memmap FILE.svg draws the allocation (well
// formed SVG, a rectangle per location named on hover, the carve-out
// shaded, a live-bytes curve), --memmap FILE.csv lists every placed
// location, and --dump-alloc-problem writes the problem that narwhal alloc
// reads back and fits.
func TestCompile_MemmapAndDump(t *testing.T) {
	dir := t.TempDir()
	svgPath, csvPath, dump := filepath.Join(dir, "m.svg"), filepath.Join(dir, "m.csv"), filepath.Join(dir, "p.csv")
	if code, _, stderr := narwhal(t, "compile", "builtin:attention", "--memmap", svgPath, "--dump-alloc-problem", dump); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "compile", "builtin:attention", "--memmap", csvPath); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well formed: %v", err)
		}
	}
	if clash := overlappingTexts(t, svg); len(clash) > 0 {
		t.Errorf("the SVG's labels overlap: %v", clash)
	}
	for _, want := range []string{"<title>kT_sb (tensor kT_sb_set): partitions 0-63", "runtime carve-out", "live bytes (max", "bank 7"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the SVG has no %q", want)
		}
	}
	rows, err := csv.NewReader(mustOpen(t, csvPath)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0][1] != "location" {
		t.Fatalf("memmap CSV: %v", rows)
	}
	mems := map[string]int{}
	for _, r := range rows[1:] {
		mems[r[3]]++
	}
	if mems["SBUF"] == 0 || mems["PSUM"] == 0 {
		t.Errorf("memmap CSV rows by memory: %v, want SBUF and PSUM rows", mems)
	}
	for _, p := range []string{dump, filepath.Join(dir, "p-psum.csv")} {
		capacity := "--capacity=212992"
		if strings.HasSuffix(p, "-psum.csv") {
			capacity = "--capacity=16384"
		}
		code, stdout, stderr := narwhal(t, "alloc", p, capacity)
		if code != 0 || !strings.Contains(stdout, "fit") {
			t.Errorf("narwhal alloc %s: exit %d, %q, %q", p, code, stdout, stderr)
		}
	}
	if code, _, stderr := narwhal(t, "compile", "builtin:attention", "--memmap", filepath.Join(dir, "m.png")); code != 1 || !strings.Contains(stderr, "want a .svg or .csv") {
		t.Errorf("--memmap m.png: exit %d, %q", code, stderr)
	}
	if code, _, stderr := narwhal(t, "compile", "builtin:attention", "--passes", "full_unroll", "--memmap", svgPath); code != 1 || !strings.Contains(stderr, "alloc pass") {
		t.Errorf("--memmap without the alloc pass: exit %d, %q", code, stderr)
	}
}

// overlappingTexts returns the pairs of <text> labels of an SVG whose
// boxes intersect, each box estimated from the position, the anchor, the
// font size (the root's, or the element's) and an average glyph width of
// 0.6 em: the title over the first panel's label was such a pair.
func overlappingTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	type box struct {
		x0, y0, x1, y1 float64
		text           string
	}
	var boxes []box
	dec := xml.NewDecoder(bytes.NewReader(svg))
	rootSize := 16.0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
		}
		if se.Name.Local == "svg" {
			if v, err := strconv.ParseFloat(attr["font-size"], 64); err == nil {
				rootSize = v
			}
			continue
		}
		if se.Name.Local != "text" {
			continue
		}
		var text string
		if err := dec.DecodeElement(&text, &se); err != nil {
			t.Fatal(err)
		}
		x, errX := strconv.ParseFloat(attr["x"], 64)
		y, errY := strconv.ParseFloat(attr["y"], 64)
		if errX != nil || errY != nil {
			t.Fatalf("text %q at x=%q y=%q", text, attr["x"], attr["y"])
		}
		fs := rootSize
		if v, err := strconv.ParseFloat(attr["font-size"], 64); err == nil {
			fs = v
		}
		w := 0.6 * fs * float64(len([]rune(text)))
		b := box{x, y - 0.8*fs, x + w, y + 0.2*fs, text}
		switch attr["text-anchor"] {
		case "end":
			b.x0, b.x1 = x-w, x
		case "middle":
			b.x0, b.x1 = x-w/2, x+w/2
		}
		boxes = append(boxes, b)
	}
	var clash []string
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			a, b := boxes[i], boxes[j]
			if a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				clash = append(clash, fmt.Sprintf("%q / %q", a.text, b.text))
			}
		}
	}
	return clash
}

func mustOpen(t *testing.T, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// okAtStage reports whether verify's output says the module is ok at a
// set of stages that includes stage (verify --stage S checks S and the
// stages it implies, and names them all: "ok at stage a|b|S|c").
func okAtStage(stdout, stage string) bool {
	_, rest, ok := strings.Cut(stdout, "ok at stage ")
	if !ok {
		return false
	}
	stages, _, _ := strings.Cut(rest, " ")
	return slices.Contains(strings.Split(stages, "|"), stage)
}
