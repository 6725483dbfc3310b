package pass

import (
	"sync/atomic"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Observer follows a run: the command line's log lines ("Running
// <pass>"), its progress line and the HTML report hook in here (package
// console and htmlreport). The methods are called on the goroutine that
// runs the passes, in order; they must not modify the module.
type Observer interface {
	// Start is called once the input has verified, before the first pass.
	Start(m *bir.Module)
	// PassStart is called before pass p runs on m.
	PassStart(p *Pass, m *bir.Module)
	// Log receives each log line of the running pass (Context.Logf).
	Log(p *Pass, line string)
	// PassEnd is called after p ran and, when it is verified, after the
	// verifier: res is its report line; err is its failure (then the run
	// stops).
	PassEnd(p *Pass, res *PassResult, m *bir.Module, err error)
}

// Observers combines observers (nil ones are skipped).
func Observers(obs ...Observer) Observer {
	var list multi
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	if len(list) == 0 {
		return nil
	}
	return list
}

type multi []Observer

func (l multi) Start(m *bir.Module) {
	for _, o := range l {
		o.Start(m)
	}
}

func (l multi) PassStart(p *Pass, m *bir.Module) {
	for _, o := range l {
		o.PassStart(p, m)
	}
}

func (l multi) Log(p *Pass, line string) {
	for _, o := range l {
		o.Log(p, line)
	}
}

func (l multi) PassEnd(p *Pass, res *PassResult, m *bir.Module, err error) {
	for _, o := range l {
		o.PassEnd(p, res, m, err)
	}
}

// Progress is the running pass's progress, written by the pass
// (Context.Progress) and read by another goroutine (the progress line),
// hence atomic. Done and Total count instructions (or whatever unit the
// pass reports in); Total 0 means the pass reports none.
type Progress struct {
	done, total atomic.Int64
}

// Snapshot returns the last reported done and total.
func (p *Progress) Snapshot() (done, total int64) {
	return p.done.Load(), p.total.Load()
}

func (p *Progress) reset() {
	p.done.Store(0)
	p.total.Store(0)
}

// Progress reports how far the pass is: done of total units
// (instructions cloned, visited, ...). Cheap (two atomic stores) but not
// free: call it every few thousand items, not per item.
func (c *Context) Progress(done, total int64) {
	if c.progress != nil {
		c.progress.total.Store(total)
		c.progress.done.Store(done)
	}
}
