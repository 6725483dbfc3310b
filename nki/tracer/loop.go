// loop.go: the loop protocol (value.go's Looper and LoopBody). A for
// loop over a Looper hands the Looper a loopBody; Checkpoint starts
// recording every mutation of Python-visible state on the Thread's undo
// trail (variables of frames and modules, contents of lists, dicts and
// sets, attributes of instances, classes and modules, print output),
// Rollback undoes them in reverse, Effects summarizes them. Recording
// happens only while some loop body holds a checkpoint; outside, a
// mutation costs one comparison.
//
// The speculation of a body ends when TraceLoop returns, or when its
// first checkpoint is rolled back; when no body speculates any more, the
// trail is dropped and the buffered print output written.
package tracer

import (
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

type loopBody struct {
	th     *Thread
	fr     *frame
	stmt   *syntax.For
	active bool // holds a speculation level
	first  Checkpoint
	// exits since the last rollback of the first checkpoint
	broke, returned bool
	targets         map[string]bool
}

func (th *Thread) traceLoop(fr *frame, n *syntax.For, lp Looper) (ctl, error) {
	b := &loopBody{th: th, fr: fr, stmt: n, targets: map[string]bool{}}
	targetNames(n.Target, b.targets)
	prev := fr.call
	fr.call = n.Iter
	err := lp.TraceLoop(th, b)
	fr.call = prev
	if b.active {
		b.active = false
		th.endSpeculation()
	}
	if err != nil {
		return ctlNormal, err
	}
	if b.returned {
		return ctlReturn, nil
	}
	if b.broke {
		return ctlNormal, nil
	}
	return th.execBlock(fr, n.OrElse)
}

func targetNames(t syntax.Expr, out map[string]bool) {
	switch n := t.(type) {
	case *syntax.Name:
		out[n.ID] = true
	case *syntax.Tuple:
		for _, e := range n.Elts {
			targetNames(e, out)
		}
	case *syntax.List:
		for _, e := range n.Elts {
			targetNames(e, out)
		}
	case *syntax.Starred:
		targetNames(n.Value, out)
	}
}

// Run executes the body once with the target bound to iter.
func (b *loopBody) Run(iter Value) (LoopExit, error) {
	th, fr := b.th, b.fr
	if err := th.tick(); err != nil {
		return LoopNormal, err
	}
	if err := th.assign(fr, b.stmt.Target, iter); err != nil {
		return LoopNormal, th.stamp(fr, err, b.stmt.Target)
	}
	c, err := th.execBlock(fr, b.stmt.Body)
	if err != nil {
		return LoopNormal, err
	}
	switch c {
	case ctlBreak:
		b.setFlag(&b.broke)
		return LoopBreak, nil
	case ctlReturn:
		b.setFlag(&b.returned)
		return LoopReturn, nil
	}
	return LoopNormal, nil
}

func (b *loopBody) setFlag(f *bool) {
	if b.th.spec > 0 && !*f {
		b.th.trail = append(b.th.trail, undoEntry{undo: func() { *f = false }})
	}
	*f = true
}

// Checkpoint marks the Python-visible state.
func (b *loopBody) Checkpoint() Checkpoint {
	th := b.th
	if !b.active {
		b.active = true
		th.spec++
		b.first = th.checkpoint()
		return b.first
	}
	return th.checkpoint()
}

// Rollback undoes every mutation since cp.
func (b *loopBody) Rollback(cp Checkpoint) {
	th := b.th
	if !b.active {
		return
	}
	// The return value recorded by an undone run is dropped too.
	ret := b.fr.ret
	th.rollback(cp)
	if cp.trail <= b.first.trail {
		b.broke, b.returned = false, false
		b.fr.ret = nil
		b.active = false
		th.endSpeculation()
		return
	}
	if !b.returned {
		b.fr.ret = nil
	} else {
		b.fr.ret = ret
	}
}

// Effects reports the mutations since cp of state that existed at cp
// (the loop's own target variables are left out).
func (b *loopBody) Effects(cp Checkpoint) Effects {
	if !b.active {
		return Effects{}
	}
	return b.th.effects(cp, b.targets)
}

// Pos is the for statement's position.
func (b *loopBody) Pos() Pos { return b.fr.posOf(b.stmt) }

// Target is the source of the loop target.
func (b *loopBody) Target() string { return sourceText(b.fr.file, b.stmt.Target) }
