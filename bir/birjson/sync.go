// The "sync" extension: an instruction's entry in its function's
// synchronization side table (bir.Sync; docs/bir-json.md, "Instruction:
// sync").
//
//	"sync": {"trigger": "SP", "waits": [[3, 5], [7, 2]], "updates": [[1, 1]]}
//
// trigger (a DMA's trigger engine, BIR-JSON's engine spelling) and the
// wait and update lists ([semaphore, value] pairs) are each optional; the
// writer writes "sync" after "schedule" for every instruction that has a
// trigger or a command; the reader gives a function a table as soon as
// one of its instructions carries "sync", covering every instruction slot.
// The wire limit (2 waits, 1 update) is the verifier's rule, not the
// reader's: a file may hold more and is then rejected by `narwhal verify`
// with the seed's "Too many sync wait commands".
package birjson

import (
	"math"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// syncEntry is one decoded "sync" object.
type syncEntry struct {
	trigger bir.Engine
	waits   []bir.SemCmd
	iters   []bir.ExprID // the waits' iteration terms (nil: none)
	updates []bir.SemCmd
	hasW    bool
	hasU    bool
}

// hasSyncEntry reports whether some instruction of s has a trigger or a
// command (it stops at the first, a function's first DMA in practice).
func hasSyncEntry(s *bir.Sync) bool {
	for i := range s.Len() {
		if s.Has(bir.InstID(i)) {
			return true
		}
	}
	return false
}

// appendSync appends `,"sync":{...}` for instruction i of table s when it
// has a trigger or a command.
func appendSync(b []byte, s *bir.Sync, i bir.InstID, iterText func(bir.ExprID) (string, error)) ([]byte, error) {
	if !s.Has(i) {
		return b, nil
	}
	b = append(b, `,"sync":{`...)
	var err error
	sep := false
	if t := s.Trigger[i]; t != bir.EngUnassigned {
		b = append(b, `"trigger":`...)
		b = bir.AppendQuoted(b, t.String())
		sep = true
	}
	list := func(key string, cmds []bir.SemCmd, iters []bir.ExprID) {
		if len(cmds) == 0 {
			return
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":[`...)
		for k, c := range cmds {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(c.Sem), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(c.Value), 10)
			if k < len(iters) && iters[k] != 0 && err == nil {
				var t string
				if t, err = iterText(iters[k]); err == nil {
					b = append(b, ',')
					b = append(b, t...)
				}
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	list("waits", s.Waits(i), s.WaitIters(i))
	list("updates", s.Updates(i), nil)
	return append(b, '}'), err
}

// syncEntry reads a "sync" object at the cursor.
func (d *decoder) syncEntry() (syncEntry, error) {
	x := syncEntry{trigger: bir.EngUnassigned}
	more, err := d.beginObject("sync")
	if err != nil {
		return x, err
	}
	var seen uint8
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return x, err
		}
		var bit uint8
		switch string(key) {
		case "trigger":
			bit = 1
			d.ws()
			pos := d.pos
			s, err := d.str()
			if err != nil {
				return x, err
			}
			e, err := d.engine(pos, s)
			if err != nil {
				return x, err
			}
			x.trigger = e
		case "waits":
			bit = 2
			x.waits, x.iters, err = d.semCmds("sync.waits")
			x.hasW = true
		case "updates":
			bit = 4
			var iters []bir.ExprID
			x.updates, iters, err = d.semCmds("sync.updates")
			if err == nil && iters != nil {
				err = d.errf(kpos, "sync.updates: an update adds a constant: want [semaphore, value] pairs")
			}
			x.hasU = true
		default:
			return x, d.errf(kpos, "sync: unknown key %q (want trigger, waits, updates)", key)
		}
		if err != nil {
			return x, err
		}
		if seen&bit != 0 {
			return x, d.errf(kpos, "sync: duplicate key %q", key)
		}
		seen |= bit
		if more, err = d.nextField(); err != nil {
			return x, err
		}
	}
	return x, nil
}

// semCmds reads [[semaphore, value], ...]: semaphore an integer >= 0,
// value an integer, both within int32; a wait of a loop body may have a
// third element, its iteration term as affine text over the enclosing
// loops' axes ([semaphore, value, "4*i"]; bir.Sync.SetWaitsIter).
func (d *decoder) semCmds(key string) ([]bir.SemCmd, []bir.ExprID, error) {
	d.ws()
	more, err := d.beginArray(key)
	var out []bir.SemCmd
	var iters []bir.ExprID
	for err == nil && more {
		d.ws()
		pos := d.pos
		var sem, val int64
		var it bir.ExprID
		n := 0
		var inner bool
		if inner, err = d.beginArray(key); err != nil {
			return nil, nil, err
		}
		for err == nil && inner {
			d.ws()
			epos := d.pos
			switch {
			case n < 2:
				var v int64
				if v, err = d.int(); err != nil {
					return nil, nil, err
				}
				if n == 0 {
					sem = v
				} else {
					val = v
				}
			case n == 2 && d.peek() == '"':
				var text []byte
				if text, err = d.str(); err != nil {
					return nil, nil, err
				}
				if it, err = d.exprText(epos, key+" iteration term", text); err != nil {
					return nil, nil, err
				}
			default:
				return nil, nil, d.errf(epos, "%s: want [semaphore, value] or [semaphore, value, \"iteration term\"], found %s", key, d.found(epos))
			}
			n++
			inner, err = d.nextElem()
		}
		if err != nil {
			return nil, nil, err
		}
		if n < 2 {
			return nil, nil, d.errf(pos, "%s: want [semaphore, value] pairs, have a list of %d", key, n)
		}
		if sem < 0 || sem > math.MaxInt32 || val < math.MinInt32 || val > math.MaxInt32 {
			return nil, nil, d.errf(pos, "%s: [%d, %d]: want a semaphore in 0..%d and a 32-bit value", key, sem, val, math.MaxInt32)
		}
		if len(out) >= bir.MaxSemCmds {
			return nil, nil, d.errf(pos, "%s: more than %d commands", key, bir.MaxSemCmds)
		}
		if it != 0 {
			// The term's constant belongs to the value (the writer keeps
			// terms constant-free).
			e := d.m.Expr(it)
			if e.Const != 0 {
				val += e.Const
				it = d.m.InternExpr(affine.AddConst(e, -e.Const))
				if val < math.MinInt32 || val > math.MaxInt32 {
					return nil, nil, d.errf(pos, "%s: value %d: want a 32-bit value", key, val)
				}
			}
			if iters == nil {
				iters = make([]bir.ExprID, len(out))
			}
		}
		out = append(out, bir.SemCmd{Sem: int32(sem), Value: int32(val)})
		if iters != nil {
			iters = append(iters, it)
		}
		more, err = d.nextElem()
	}
	return out, iters, err
}

// setSync records x as instruction id's synchronization entry.
func (d *decoder) setSync(id bir.InstID, x syncEntry) {
	f := d.f
	if f.Sync == nil {
		f.Sync = bir.NewSync(0)
	}
	f.Sync.Grow(int(id) + 1)
	f.Sync.Trigger[id] = x.trigger
	if len(x.waits) > 0 {
		f.Sync.SetWaitsIter(id, x.waits, x.iters)
	}
	if len(x.updates) > 0 {
		f.Sync.SetUpdates(id, x.updates)
	}
}
