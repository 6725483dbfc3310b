// Package kernels holds narwhal's built-in example kernels: the embedded
// default that `narwhal compile` runs with no input, and the workloads of
// tests and benchmarks. Each kernel is built with the bir.Builder API and is
// parameterized (sizes, dtype); `builtin:NAME` with optional parameters,
// e.g. `builtin:tensor_add:rows=1024,cols=512,dtype=bf16`, names one
// wherever a FILE is accepted.
package kernels

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Param declares one kernel parameter.
type Param struct {
	Name    string
	Default string
	Doc     string
}

// Kernel is a registered built-in kernel.
type Kernel struct {
	Name   string
	Doc    string
	Params []Param
	// Build constructs the module for the given (complete) parameters.
	Build func(p Params) (*bir.Module, error)
}

// Params are resolved kernel parameters (defaults filled in).
type Params map[string]string

// Int returns an integer parameter.
func (p Params) Int(name string) (int64, error) {
	v, err := strconv.ParseInt(p[name], 0, 64)
	if err != nil {
		return 0, fmt.Errorf("parameter %s=%q: want an integer", name, p[name])
	}
	return v, nil
}

// Dtype returns a dtype parameter.
func (p Params) Dtype(name string) (bir.Dtype, error) {
	d, err := bir.ParseDtype(p[name])
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %w", name, err)
	}
	return d, nil
}

// Str returns a string parameter.
func (p Params) Str(name string) string { return p[name] }

var registry = map[string]*Kernel{}

// Register adds a kernel; it panics on a duplicate name (init-time error).
func Register(k *Kernel) {
	if _, dup := registry[k.Name]; dup {
		panic("kernels: duplicate kernel " + k.Name)
	}
	registry[k.Name] = k
}

// All returns the registered kernels sorted by name.
func All() []*Kernel {
	out := make([]*Kernel, 0, len(registry))
	for _, k := range registry {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the kernel named name.
func Lookup(name string) (*Kernel, bool) {
	k, ok := registry[name]
	return k, ok
}

// DefaultKernel is the kernel `narwhal compile` runs with no input.
const DefaultKernel = "tensor_add"

// ParseSpec splits "NAME[:k=v,k=v]" (the part after "builtin:") and
// resolves the parameters against the kernel's declarations.
func ParseSpec(spec string) (*Kernel, Params, error) {
	name, args, _ := strings.Cut(spec, ":")
	k, ok := registry[name]
	if !ok {
		var names []string
		for _, k := range All() {
			names = append(names, k.Name)
		}
		return nil, nil, fmt.Errorf("unknown built-in kernel %q (known: %s)", name, strings.Join(names, ", "))
	}
	p := Params{}
	for _, d := range k.Params {
		p[d.Name] = d.Default
	}
	if args != "" {
		for _, kv := range strings.Split(args, ",") {
			key, val, ok := strings.Cut(kv, "=")
			if !ok || key == "" {
				return nil, nil, fmt.Errorf("builtin:%s: parameter %q: want key=value", name, kv)
			}
			if _, known := p[key]; !known {
				var known []string
				for _, d := range k.Params {
					known = append(known, d.Name)
				}
				return nil, nil, fmt.Errorf("builtin:%s: unknown parameter %q (known: %s)", name, key, strings.Join(known, ", "))
			}
			p[key] = val
		}
	}
	return k, p, nil
}

// Build constructs the module named by a spec "NAME[:k=v,...]".
func Build(spec string) (*bir.Module, error) {
	k, p, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	m, err := k.Build(p)
	if err != nil {
		return nil, fmt.Errorf("builtin:%s: %w", k.Name, err)
	}
	return m, nil
}

// Describe returns "name  k=default k=default  doc" for listings.
func (k *Kernel) Describe() string {
	var sb strings.Builder
	sb.WriteString(k.Name)
	for _, p := range k.Params {
		sb.WriteString(" ")
		sb.WriteString(p.Name)
		sb.WriteString("=")
		sb.WriteString(p.Default)
	}
	if k.Doc != "" {
		sb.WriteString("  # ")
		sb.WriteString(k.Doc)
	}
	return sb.String()
}
