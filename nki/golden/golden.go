// Package golden reads the independent references of NKI kernels: a
// manifest (golden/manifest.json) listing test cases — a kernel file, the
// kernel, its input tensors, --arg values, the grid, the outputs and the
// tolerance with its reason — and one .npz per case with the inputs
// ("in.<param>") and the expected outputs ("out.<key>", keys as `narwhal
// run` names outputs). kernels/nki/refgen.py writes them from plain numpy;
// the kernel suite's harness and `narwhal run KERNEL.py --check` compare
// with them.
//
// Value format ("float16-or-float32-values"): a float array holds values
// (float16 where that is exact, else float32), converted to the case's
// dtype on reading, which must not round; integer arrays are their own
// dtype.
package golden

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/npy"
)

// ValueFormat is the manifest's value_format this package reads.
const ValueFormat = "float16-or-float32-values"

// Manifest is golden/manifest.json.
type Manifest struct {
	Comment     string `json:"comment"`
	ValueFormat string `json:"value_format"`
	Cases       []Case `json:"cases"`
	// Dir is the directory the manifest's paths are relative to (the
	// parent of the golden directory); set by Read.
	Dir string `json:"-"`
}

// Case is one test case.
type Case struct {
	Name      string            `json:"name"`
	File      string            `json:"file"`
	Kernel    string            `json:"kernel"`
	Inputs    []Tensor          `json:"inputs"`
	Args      map[string]string `json:"args"`
	Grid      []int64           `json:"grid"`
	Outputs   []Output          `json:"outputs"`
	Tolerance Tolerance         `json:"tolerance"`
	Golden    string            `json:"golden"`
	API       string            `json:"api,omitempty"`
	Path      []string          `json:"path,omitempty"`
	Twin      *string           `json:"twin,omitempty"`
}

// Tensor is an input's name, dtype and shape.
type Tensor struct {
	Name  string  `json:"name"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// Output is an expected output: its run key, dtype and shape.
type Output struct {
	Key   string  `json:"key"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// Tolerance is |got - want| <= Abs + Rel*|want|, with why.
type Tolerance struct {
	Abs    float64 `json:"abs"`
	Rel    float64 `json:"rel"`
	Reason string  `json:"reason"`
}

func (t Tolerance) String() string {
	if t.Abs == 0 && t.Rel == 0 {
		return "exact"
	}
	return fmt.Sprintf("abs %g + rel %g", t.Abs, t.Rel)
}

// Read reads a manifest file.
func Read(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if m.ValueFormat != ValueFormat {
		return nil, fmt.Errorf("%s: value_format %q, want %q", path, m.ValueFormat, ValueFormat)
	}
	m.Dir = filepath.Dir(filepath.Dir(path))
	return &m, nil
}

// Locate finds the manifest that covers a kernel file: golden/manifest.json
// in the file's directory or any directory above it (at most four levels),
// listing a case whose file is this one. It returns nil when there is none.
func Locate(kernelFile string) (*Manifest, error) {
	abs, err := filepath.Abs(kernelFile)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	for range 5 {
		p := filepath.Join(dir, "golden", "manifest.json")
		if _, err := os.Stat(p); err == nil {
			m, err := Read(p)
			if err != nil {
				return nil, err
			}
			for i := range m.Cases {
				if same(m.path(m.Cases[i].File), abs) {
					return m, nil
				}
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return nil, nil
}

func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// path resolves a manifest-relative path.
func (m *Manifest) path(p string) string { return filepath.Join(m.Dir, p) }

// Match returns the cases of kernel in kernelFile whose args, grid and (when
// inputs is not nil) input shapes are the given ones.
func (m *Manifest) Match(kernelFile, kernel string, args map[string]string, grid []int64, inputs map[string][]int64) []*Case {
	abs, _ := filepath.Abs(kernelFile)
	var out []*Case
	for i := range m.Cases {
		c := &m.Cases[i]
		if c.Kernel != kernel || !same(m.path(c.File), abs) || !slices.Equal(c.Grid, grid) {
			continue
		}
		if !sameArgs(c.Args, args) {
			continue
		}
		if inputs != nil {
			ok := len(inputs) >= len(c.Inputs)
			for _, in := range c.Inputs {
				if s, has := inputs[in.Name]; !has || !slices.Equal(s, in.Shape) {
					ok = false
				}
			}
			if !ok {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func sameArgs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.TrimSpace(b[k]) != strings.TrimSpace(v) {
			return false
		}
	}
	return true
}

// Golden is a case's inputs (by parameter name, in the case's dtypes) and
// expected outputs (by output key, as float64 values).
type Golden struct {
	Inputs map[string]*interp.Tensor
	Want   map[string][]float64
}

// Load reads the case's .npz.
func (m *Manifest) Load(c *Case) (*Golden, error) {
	a, err := npy.OpenNPZ(m.path(c.Golden))
	if err != nil {
		return nil, err
	}
	defer a.Close()
	g := &Golden{Inputs: map[string]*interp.Tensor{}, Want: map[string][]float64{}}
	for _, in := range c.Inputs {
		dt, err := bir.ParseDtype(in.Dtype)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", in.Name, err)
		}
		vals, err := readValues(a, "in."+in.Name, in.Shape)
		if err != nil {
			return nil, err
		}
		t, err := ref.FromFloats(in.Name, dt, in.Shape, vals)
		if err != nil {
			return nil, err
		}
		back, _ := ref.Floats(t)
		for i := range vals {
			if back[i] != vals[i] && !(math.IsNaN(back[i]) && math.IsNaN(vals[i])) {
				return nil, fmt.Errorf("input %s element %d: %v is not exact in %s", in.Name, i, vals[i], dt)
			}
		}
		g.Inputs[in.Name] = t
	}
	for _, o := range c.Outputs {
		vals, err := readValues(a, "out."+o.Key, o.Shape)
		if err != nil {
			return nil, err
		}
		g.Want[o.Key] = vals
	}
	return g, nil
}

func readValues(a *npy.Archive, name string, shape []int64) ([]float64, error) {
	t, err := a.Read(name)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("%s: shape %v, the manifest says %v", name, t.Shape, shape)
	}
	return ref.Floats(t)
}

// Errors are the largest errors of one output and the elements outside
// the tolerance.
type Errors struct {
	MaxAbs, MaxRel float64
	Bad, First     int // elements outside the tolerance, the first of them (-1: none)
}

// Compare checks |got - want| <= abs + rel*|want| element by element (NaN
// equals NaN).
func Compare(got, want []float64, tol Tolerance) Errors {
	e := Errors{First: -1}
	for i := range want {
		g, w := got[i], want[i]
		d := math.Abs(g - w)
		if math.IsNaN(g) != math.IsNaN(w) {
			d = math.Inf(1)
		} else if math.IsNaN(g) || g == w {
			d = 0
		}
		e.MaxAbs = max(e.MaxAbs, d)
		if w != 0 {
			e.MaxRel = max(e.MaxRel, d/math.Abs(w))
		} else if d > 0 {
			e.MaxRel = math.Inf(1)
		}
		if d > tol.Abs+tol.Rel*math.Abs(w) {
			if e.Bad == 0 {
				e.First = i
			}
			e.Bad++
		}
	}
	return e
}

// Check compares run outputs (by output key) with the case's goldens. It
// returns one line per output and the first mismatch.
func Check(c *Case, g *Golden, outs map[string]*interp.Tensor) ([]string, error) {
	var lines []string
	for _, o := range c.Outputs {
		t := outs[o.Key]
		if t == nil {
			return lines, fmt.Errorf("output %s is missing from the run (have %s)", o.Key, strings.Join(slices.Sorted(maps.Keys(outs)), ", "))
		}
		if t.Dtype.String() != o.Dtype || !slices.Equal(t.Shape, o.Shape) {
			return lines, fmt.Errorf("output %s: %s %v, the reference is %s %v", o.Key, t.Dtype, t.Shape, o.Dtype, o.Shape)
		}
		vals, err := ref.Floats(t)
		if err != nil {
			return lines, fmt.Errorf("output %s: %v", o.Key, err)
		}
		e := Compare(vals, g.Want[o.Key], c.Tolerance)
		if e.Bad > 0 {
			return lines, fmt.Errorf("output %s: %d of %d elements outside %s (%s); the first, element %v: got %v, want %v",
				o.Key, e.Bad, len(vals), c.Tolerance, c.Tolerance.Reason, ref.Coord(o.Shape, int64(e.First)), vals[e.First], g.Want[o.Key][e.First])
		}
		lines = append(lines, fmt.Sprintf("%s matches the reference of case %s (max |error| %.3g, %s)", o.Key, c.Name, e.MaxAbs, c.Tolerance))
	}
	return lines, nil
}
