// generator.go: generators (functions with yield, and generator
// expressions), lazy as in CPython. A generator's body runs on its own
// goroutine as a coroutine of the consumer: next() hands control to it
// and waits; yield hands a value back and waits. Exactly one of the two
// runs at any time (the handoffs are channel operations, so the Thread's
// state is never touched concurrently), and the generator's frame is on
// the Thread's call stack exactly while its body runs, as in CPython's
// tracebacks.
//
// A generator dropped before its end is closed when the garbage
// collector finds it unreachable: its goroutine ends at the yield it is
// suspended at, without running the body's finally blocks (CPython would
// raise GeneratorExit there). close() ends it the same way at once;
// send() is supported; throw() is NotSupported.
package tracer

import (
	"fmt"
	"runtime"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

type coMsg struct {
	v     Value
	err   error
	done  bool
	close bool
}

// coroutine is the goroutine side of a generator.
type coroutine struct {
	in, out       chan coMsg
	started, done bool
	closing       bool // set on the producer side before it exits
	body          func(co *coroutine) error
	push, pop     func()
}

func newCoroutine(body func(co *coroutine) error, push, pop func()) *coroutine {
	return &coroutine{in: make(chan coMsg), out: make(chan coMsg), body: body, push: push, pop: pop}
}

// resume runs the producer until it yields (ok true) or ends.
func (co *coroutine) resume(send Value) (Value, bool, error) {
	if co.done {
		return nil, false, nil
	}
	if !co.started {
		if send != nil && send != Value(None) {
			return nil, false, Errorf("TypeError", "can't send non-None value to a just-started generator")
		}
		co.started = true
		go co.run()
	} else {
		co.in <- coMsg{v: send}
	}
	m := <-co.out
	if m.done {
		co.done = true
		return nil, false, m.err
	}
	return m.v, true, nil
}

func (co *coroutine) run() {
	var err error
	defer func() {
		if co.closing {
			return // closed at a yield: nobody waits
		}
		if r := recover(); r != nil {
			err = &Error{Kind: "InternalError", Msg: fmt.Sprintf("narwhal's tracer failed in a generator: %v", r), Code: CodeNotSupported}
		}
		co.pop()
		co.out <- coMsg{done: true, err: err}
	}()
	co.push()
	err = co.body(co)
}

// yield hands v to the consumer and returns the value sent back (None
// for next()). It runs on the producer's goroutine.
func (co *coroutine) yield(v Value) Value {
	co.pop()
	co.out <- coMsg{v: v}
	m := <-co.in
	if m.close {
		co.closing = true
		runtime.Goexit()
	}
	co.push()
	if m.v == nil {
		return None
	}
	return m.v
}

// close ends a suspended producer.
func (co *coroutine) close() {
	if co.started && !co.done {
		co.done = true
		co.in <- coMsg{close: true}
	}
}

// genIter is the consumer side: what the generator object iterates.
type genIter struct {
	co   *coroutine
	name string
}

func newGenIter(co *coroutine, name string) *genIter {
	g := &genIter{co: co, name: name}
	runtime.SetFinalizer(g, func(g *genIter) {
		if g.co.started && !g.co.done {
			select {
			case g.co.in <- coMsg{close: true}:
			default:
			}
		}
	})
	return g
}

func (g *genIter) Next(th *Thread) (Value, bool, error) {
	v, ok, err := g.co.resume(None)
	if err != nil {
		if e, isErr := err.(*Error); isErr && e.isStopIteration() {
			err = Errorf("RuntimeError", "generator raised StopIteration")
		}
	}
	return v, ok, err
}

// newGenerator makes the generator object of a call of a generator
// function whose frame is ready (parameters bound).
func newGenerator(th *Thread, f *Function, fr *frame) Value {
	co := newCoroutine(func(co *coroutine) error {
		fr.co = co
		if len(th.stack) >= th.maxDepth {
			return Errorf("RecursionError", "maximum recursion depth exceeded")
		}
		_, err := th.execBlock(fr, f.code.body)
		return err
	}, func() { th.stack = append(th.stack, fr) }, func() { th.stack = th.stack[:len(th.stack)-1] })
	return &generatorObj{iterObj: iterObj{name: "generator", it: newGenIter(co, f.name)}, co: co, name: f.qualname}
}

// generatorObj is a generator: an iterator with send() and close().
type generatorObj struct {
	iterObj
	co   *coroutine
	name string
}

func (g *generatorObj) String() string { return "<generator object " + g.name + ">" }
func (g *generatorObj) Iterate(*Thread) (Iterator, error) {
	return g, nil
}
func (g *generatorObj) Attr(th *Thread, name string) (Value, error) {
	switch name {
	case "send":
		return NewBuiltin("send", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("send", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			v, ok, err := g.co.resume(args[0])
			if err != nil {
				return nil, err
			}
			if !ok {
				g.done = true
				return nil, &Error{Kind: "StopIteration", Exc: newException(th, stopIterationClass, nil)}
			}
			return v, nil
		}), nil
	case "close":
		return NewBuiltin("close", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			g.co.close()
			g.done = true
			return None, nil
		}), nil
	case "throw":
		return NewBuiltin("throw", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return nil, NotSupportedf("generator.throw() is not supported")
		}), nil
	case "__next__":
		return NewBuiltin("__next__", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return builtinNext(th, []Value{g}, nil)
		}), nil
	}
	return nil, nil
}
func (g *generatorObj) AttrNames() []string { return []string{"close", "send", "throw"} }

// newGenExp makes the lazy iterator of a generator expression whose
// first iterable has been evaluated; run produces the elements through
// yield.
func newGenExp(run func(co *coroutine) error) Value {
	co := newCoroutine(run, func() {}, func() {})
	return &generatorObj{iterObj: iterObj{name: "generator", it: newGenIter(co, "<genexpr>")}, co: co, name: "<genexpr>"}
}

func (th *Thread) evalYield(fr *frame, n *syntax.Yield) (Value, error) {
	var v Value = None
	if n.Value != nil {
		var err error
		if v, err = th.eval(fr, n.Value); err != nil {
			return nil, err
		}
	}
	if fr.co == nil {
		return nil, NotSupportedf("yield outside a generator function's body")
	}
	return fr.co.yield(v), nil
}

func (th *Thread) evalYieldFrom(fr *frame, n *syntax.YieldFrom) (Value, error) {
	v, err := th.eval(fr, n.Value)
	if err != nil {
		return nil, err
	}
	if fr.co == nil {
		return nil, NotSupportedf("yield from outside a generator function's body")
	}
	err = Iterate(th, v, func(x Value) error {
		fr.co.yield(x)
		return nil
	})
	return None, err
}
