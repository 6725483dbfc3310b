// vn_splitter's rules that sb_size_legalization's plan must apply exactly
// as vn_splitter does (seed 004 §2.2, §2.4): its knobs (vn_limit, ratio,
// perSplitLimit, noSplitDRAM, foldIntoPredecessor, splitSB, skip) with
// their option names and defaults, and the per-group SB fit
// (ApGroup::isValidForSB). vn_splitter declares and parses its options
// through VNOptionDecls and ParseVNOptions; sb_size_legalization reads the
// same options of the run it is part of and parses them the same way.
package footprint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// VNOptions are vn_splitter's knobs.
type VNOptions struct {
	VNLimit             int64   // cap on the SB/PSUM locations of a function after splitting (0: none)
	Ratio               float64 // cap on elts/partition duplicated (0: none)
	PerSplitLimit       int64   // cap on the pieces of one location (0: none)
	NoSplitDRAM         bool    // leave internal DRAM locations alone
	FoldIntoPredecessor bool    // run VerticalFusion
	SplitSB             bool    // split SB/PSUM locations
	Skip                []string
}

// Defaults of vn_splitter's knobs.
const (
	DefaultVNLimit       = 1 << 20
	DefaultRatio         = 16.0
	DefaultPerSplitLimit = 16
)

// DefaultVNOptions returns vn_splitter's defaults.
func DefaultVNOptions() VNOptions {
	return VNOptions{VNLimit: DefaultVNLimit, Ratio: DefaultRatio, PerSplitLimit: DefaultPerSplitLimit,
		NoSplitDRAM: true, FoldIntoPredecessor: true, SplitSB: true}
}

// OptionDecl declares one option: its name, default and documentation.
type OptionDecl struct {
	Name, Default, Doc string
}

// VNOptionDecls are vn_splitter's options, with the seed's names.
func VNOptionDecls() []OptionDecl {
	return []OptionDecl{
		{"vn_limit", fmt.Sprint(DefaultVNLimit), "cap on the SB/PSUM locations of a function after splitting"},
		{"ratio", fmt.Sprint(DefaultRatio), "cap on elts/partition duplicated: the pieces' elements per partition summed, over the original's"},
		{"perSplitLimit", fmt.Sprint(DefaultPerSplitLimit), "cap on the pieces one location is split into"},
		{"noSplitDRAM", "true", "leave internal DRAM locations alone (false: split them, or move them to SB, when every group fits SB)"},
		{"foldIntoPredecessor", "true", "run VerticalFusion: fold single-use copies into their producer"},
		{"splitSB", "true", "split SB/PSUM locations"},
		{"skip", "", "comma-separated location names not to split"},
	}
}

// ParseVNOptions reads vn_splitter's options through get (the value of a
// declared option, its default when unset).
func ParseVNOptions(get func(name string) string) (VNOptions, error) {
	var o VNOptions
	var err error
	bad := func(name string, e error) error {
		return fmt.Errorf("pass vn_splitter: option %s=%q: %v", name, get(name), e)
	}
	if o.VNLimit, err = strconv.ParseInt(get("vn_limit"), 0, 64); err != nil {
		return o, bad("vn_limit", err)
	}
	if o.Ratio, err = strconv.ParseFloat(get("ratio"), 64); err != nil {
		return o, bad("ratio", err)
	}
	if o.PerSplitLimit, err = strconv.ParseInt(get("perSplitLimit"), 0, 64); err != nil {
		return o, bad("perSplitLimit", err)
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"noSplitDRAM", &o.NoSplitDRAM}, {"foldIntoPredecessor", &o.FoldIntoPredecessor}, {"splitSB", &o.SplitSB}} {
		if *b.dst, err = strconv.ParseBool(get(b.name)); err != nil {
			return o, bad(b.name, err)
		}
	}
	if s := get("skip"); s != "" {
		o.Skip = strings.Split(s, ",")
	}
	if o.VNLimit < 0 || o.PerSplitLimit < 0 || o.Ratio < 0 || o.Ratio != o.Ratio {
		return o, fmt.Errorf("pass vn_splitter: vn_limit=%d, perSplitLimit=%d, ratio=%g: want non-negative values", o.VNLimit, o.PerSplitLimit, o.Ratio)
	}
	return o, nil
}

// TooManyPieces reports whether perSplitLimit refuses a split into n
// pieces.
func (o *VNOptions) TooManyPieces(n int64) bool { return o.PerSplitLimit > 0 && n > o.PerSplitLimit }

// RatioExceeded reports whether ratio refuses a split whose pieces'
// elements per partition sum to dup times the original's.
func (o *VNOptions) RatioExceeded(dup float64) bool { return o.Ratio > 0 && dup > o.Ratio }

// Skips reports whether the user asked not to split the location named
// name.
func (o *VNOptions) Skips(name string) bool {
	for _, s := range o.Skip {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

// SkipsPrefix reports whether a skip entry could name a location whose
// name starts with prefix (a location FullUnroll will derive from one
// named prefix: its blocks and pieces).
func (o *VNOptions) SkipsPrefix(prefix string) bool {
	for _, s := range o.Skip {
		if s = strings.TrimSpace(s); s != "" && strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// IsValidForSB is ApGroup::isValidForSB: a group of count partitions
// (its partition range over its stride) whose highest in-partition element
// is hi fits when count does not exceed the partitions (narwhal reads the
// seed's "partitionDim >= partitionCount" as the group's highest partition
// relative to its piece's first, so a piece of exactly all the partitions
// fits) and (hi + 1) * ds bytes fit the per-partition budget of memory
// type mt. why says what fails.
func (g Geometry) IsValidForSB(count, hi, ds int64, mt bir.MemoryType) (ok bool, partitions bool, why string) {
	if count > g.Partitions {
		return false, true, fmt.Sprintf("spans %d partitions, more than %d", count, g.Partitions)
	}
	if b := (hi + 1) * ds; b > g.Budget(mt) {
		return false, false, fmt.Sprintf("needs %d bytes per partition, more than %d (%s)", b, g.Budget(mt), mt)
	}
	return true, false, ""
}
