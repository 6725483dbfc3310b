// The layout of an access pattern over an on-chip location (seed 004's
// isShiftedPartitionAccess, hasCrossChannelAccess, isPartitionContiguous
// and getElementRangeInPartition): which partitions it walks and which
// elements of each partition it touches, or why it cannot be so
// decomposed.
package footprint

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
)

// APClass classifies an access pattern over an on-chip location.
type APClass uint8

const (
	// APContiguous: the access walks partitions with at most one pair whose
	// step is a whole number of partitions, outermost among the moving
	// pairs, and its other pairs stay inside one partition.
	APContiguous APClass = iota
	// APShifted: a pair moves by a step larger than a partition that is not
	// a whole number of partitions (a shifted-partition, non-contiguous
	// access).
	APShifted
	// APTranspose: partitions are walked by a pair inside an in-partition
	// pair, or by two pairs (differing partition steps).
	APTranspose
	// APCrossChannel: the in-partition pairs leave the partition they start
	// in (an access across channels).
	APCrossChannel
	// APInvalid: a negative offset or a location without elements.
	APInvalid
)

var apClassNames = [...]string{"partition-contiguous", "shifted-partition", "transposed", "cross-channel", "invalid"}

func (c APClass) String() string {
	if int(c) < len(apClassNames) {
		return apClassNames[c]
	}
	return fmt.Sprintf("apclass(%d)", uint8(c))
}

// APLayout is an access pattern decomposed over an on-chip location of E
// elements per partition: element offset + sum(i_k * step_k) lies in
// partition PartFirst + j*PartStep (j < PartCount) at in-partition element
// index ElemLo..ElemHi. The fields other than Class are meaningful only
// for APContiguous.
type APLayout struct {
	Class APClass
	// PartPair is the index of the pair that walks partitions, -1 when the
	// access stays in one partition.
	PartPair  int
	PartFirst int64 // partition of the first element (offset / E)
	PartStep  int64 // partitions per step of the partition pair (may be negative; 0 without one)
	PartCount int64 // partitions walked (the partition pair's num, 1 without one)
	// ElemLo and ElemHi bound the in-partition element index (inclusive).
	ElemLo, ElemHi int64
	// BadPair is the pair that made the access non-contiguous (Class
	// APShifted or APTranspose), -1 otherwise.
	BadPair int
}

// PartMin returns the lowest partition the access touches.
func (l *APLayout) PartMin() int64 {
	if l.PartStep < 0 {
		return l.PartFirst + l.PartStep*(l.PartCount-1)
	}
	return l.PartFirst
}

// PartMax returns the highest partition the access touches.
func (l *APLayout) PartMax() int64 {
	if l.PartStep > 0 {
		return l.PartFirst + l.PartStep*(l.PartCount-1)
	}
	return l.PartFirst
}

// OnChipLayout decomposes the access (offset, pat) of an on-chip location
// of e elements per partition. Pairs with num <= 1 or step 0 do not move
// and are ignored (a step-0 pair re-reads the same elements). It does not
// allocate.
func OnChipLayout(offset int64, pat bir.Pattern, e int64) APLayout {
	lay := APLayout{Class: APInvalid, PartPair: -1, PartCount: 1, BadPair: -1}
	if e <= 0 || offset < 0 {
		return lay
	}
	pl := patternLayout(pat, e)
	lay = APLayout{Class: pl.class, PartPair: pl.partPair, BadPair: pl.badPair, PartFirst: offset / e, PartStep: pl.partStep, PartCount: pl.partCount}
	if pl.class != APContiguous {
		return lay
	}
	x0 := offset % e
	lay.ElemLo, lay.ElemHi = x0+pl.freeLo, x0+pl.freeHi
	if lay.ElemLo < 0 || lay.ElemHi >= e {
		lay.Class = APCrossChannel
	}
	return lay
}

// patLayout is the offset-independent part of OnChipLayout for one
// pattern and partition size.
type patLayout struct {
	e                 int64
	class             APClass // APContiguous, APShifted or APTranspose
	partPair, badPair int
	partStep          int64
	partCount         int64
	freeLo, freeHi    int64 // in-partition span of the free pairs
}

// LayoutCache memoizes the offset-independent part of OnChipLayout per
// interned pattern, so that decomposing the access patterns of a large
// function costs one division per access instead of several per pair.
// The zero value is ready to use; a cache serves one module.
type LayoutCache struct {
	byPat []patLayout // indexed by PatternID; e == 0: not computed
}

// Layout is OnChipLayout(offset, m.Pattern(pat), e), memoized on (pat, e)
// (a pattern used with several partition sizes is recomputed on change).
func (c *LayoutCache) Layout(m *bir.Module, offset int64, pat bir.PatternID, e int64) APLayout {
	if e <= 0 || offset < 0 || int(pat) < 0 || int(pat) >= m.NumPatterns() {
		return APLayout{Class: APInvalid, PartPair: -1, PartCount: 1, BadPair: -1}
	}
	if int(pat) >= len(c.byPat) {
		c.byPat = append(c.byPat, make([]patLayout, m.NumPatterns()-len(c.byPat))...)
	}
	pl := &c.byPat[pat]
	if pl.e != e {
		*pl = patternLayout(m.Pattern(pat), e)
	}
	lay := APLayout{Class: pl.class, PartPair: pl.partPair, BadPair: pl.badPair, PartFirst: offset / e, PartStep: pl.partStep, PartCount: pl.partCount}
	if pl.class != APContiguous {
		return lay
	}
	x0 := offset - lay.PartFirst*e
	lay.ElemLo, lay.ElemHi = x0+pl.freeLo, x0+pl.freeHi
	if lay.ElemLo < 0 || lay.ElemHi >= e {
		lay.Class = APCrossChannel
	}
	return lay
}

// patternLayout classifies the pairs of pat for partitions of e elements.
func patternLayout(pat bir.Pattern, e int64) patLayout {
	pl := patLayout{e: e, class: APContiguous, partPair: -1, badPair: -1, partCount: 1}
	seenFree := false
	for i, q := range pat {
		if q.Num <= 1 || q.Step == 0 {
			continue
		}
		if q.Step%e == 0 {
			if seenFree || pl.partPair >= 0 {
				pl.class, pl.badPair = APTranspose, i
				return pl
			}
			pl.partPair, pl.partStep, pl.partCount = i, q.Step/e, q.Num
			continue
		}
		a := q.Step
		if a < 0 {
			a = -a
		}
		if a > e {
			pl.class, pl.badPair = APShifted, i
			return pl
		}
		seenFree = true
		if d := q.Step * (q.Num - 1); d < 0 {
			pl.freeLo += d
		} else {
			pl.freeHi += d
		}
	}
	return pl
}
