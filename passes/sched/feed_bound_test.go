package sched

import (
	"math/rand/v2"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// randomProblem builds a scheduling problem of about n instructions
// without a function, DMAs on the pool of the model's queues (some bound
// to one queue) and engine instructions (Tensor, Vector, Scalar) with
// random durations: half of them a random DAG, half groups of loads into
// an engine instruction followed by stores (with a few edges across
// groups), the shape the feed term is about.
func randomProblem(rng *rand.Rand, model *arch.Model, n int) *problem {
	nq := int32(model.DMAQueues)
	engines := []bir.Engine{bir.EngPE, bir.EngDVE, bir.EngAct}
	var res []int32
	var dur []int64
	var preds [][]int32
	dma := func() int32 {
		r := resQueue
		if rng.IntN(6) == 0 {
			r = firstQueue + rng.Int32N(nq)
		}
		res, dur, preds = append(res, r), append(dur, int64(2+rng.IntN(4))*1000), append(preds, nil)
		return int32(len(res) - 1)
	}
	if rng.IntN(2) == 0 {
		for k := range n {
			if rng.IntN(10) < 6 {
				dma()
			} else {
				res, dur, preds = append(res, int32(engines[rng.IntN(len(engines))])), append(dur, int64(1+rng.IntN(3))*1000), append(preds, nil)
			}
			for q := range k {
				if rng.IntN(3) == 0 {
					preds[k] = append(preds[k], int32(q))
				}
			}
		}
	} else {
		for len(res) < n {
			var in []int32
			for range 1 + rng.IntN(3) {
				in = append(in, dma())
			}
			if len(res) > 1 && rng.IntN(4) == 0 {
				in = append(in, rng.Int32N(int32(len(res))-1))
			}
			e := int32(len(res))
			res, dur, preds = append(res, int32(engines[rng.IntN(2)])), append(dur, int64(1+rng.IntN(5))*1000), append(preds, in)
			for range rng.IntN(3) {
				preds[dma()] = []int32{e}
			}
		}
	}
	return newSynthetic(model, res, dur, preds)
}

// newSynthetic builds a problem without a function from each position's
// resource, duration and predecessors (earlier positions).
func newSynthetic(model *arch.Model, res []int32, dur []int64, preds [][]int32) *problem {
	n := len(res)
	p := &problem{model: model, insts: make([]bir.InstID, n), block: make([]int32, n), dur: dur, res: res,
		ports: make([]uint8, n), nRes: firstQueue + int32(model.DMAQueues), portR: [2]int32{-1, -1}}
	p.stride = p.nRes
	p.predStart = make([]int32, n+1)
	for k, ps := range preds {
		p.pred = append(p.pred, ps...)
		p.predStart[k+1] = int32(len(p.pred))
	}
	p.successors()
	return p
}

// TestFeedBound_BelowOptimum checks the lower bound, feed term included,
// against the optimum of exhaustive search on random problems of 5 to 10
// instructions with 1 to 3 DMA queues and on tensor_add's structure at a
// small scale (tiles of DMAs into one Vector instruction each, then
// stores): the bound never exceeds the optimum, and on the tensor_add
// structure the feed term reaches the optimum where the other terms stay
// below it (the test logs how often the feed term raises the bound on
// the random problems).
func TestFeedBound_BelowOptimum(t *testing.T) {
	trn2, _ := arch.Lookup("trn2")
	rng := rand.New(rand.NewPCG(13, 7))
	raised, exact, solved := 0, 0, 0
	for it := range 600 {
		model := *trn2
		model.DMAQueues = int64(1 + it%3)
		p := randomProblem(rng, &model, 5+rng.IntN(6))
		bl := p.bottomLevels()
		r := &Report{Queues: int(model.DMAQueues)}
		p.bound(r, bl)
		tl := p.simulate(identity(len(p.insts)), DefaultWindow)
		opt, ok := p.optimum(tl.makespan+1, 2_000_000)
		if !ok {
			continue
		}
		solved++
		if r.LowerBound > opt {
			t.Fatalf("instance %d: lower bound %d (%s; feed %d) above the optimum %d", it, r.LowerBound, r.Binding, r.FeedTerm, opt)
		}
		if r.FeedTerm > max(r.CriticalPath, r.EngineTerm, r.DMATerm) {
			raised++
			if r.FeedTerm == opt {
				exact++
			}
		}
	}
	if solved < 500 {
		t.Errorf("only %d of 600 searches finished", solved)
	}
	t.Logf("%d instances solved; the feed term raised the bound on %d, to the optimum on %d", solved, raised, exact)

	// tensor_add's structure at a quarter of the queues: 4 tiles of 2
	// loads, an add each, 1 store; every DMA 12.0 us, every add 4.4 us, 4
	// queues (tensor_add: 8 loads, 4 stores, 16 queues), and 3 tiles on 3 queues.
	for _, tc := range []struct{ tiles, loads, stores, q int }{{4, 2, 1, 4}, {3, 2, 1, 3}} {
		model := *trn2
		model.DMAQueues = int64(tc.q)
		p := tiledProblem(&model, tc.tiles, tc.loads, tc.stores, 12_000, 4_400)
		r := &Report{Queues: tc.q}
		p.bound(r, p.bottomLevels())
		tl := p.simulate(identity(len(p.insts)), DefaultWindow)
		opt, ok := p.optimum(tl.makespan+1, 20_000_000)
		if !ok {
			t.Fatalf("%+v: the search did not finish", tc)
		}
		others := max(r.CriticalPath, r.EngineTerm, r.DMATerm)
		if r.LowerBound > opt || r.FeedTerm != opt || others >= opt {
			t.Errorf("%+v: lower bound %d (%s), feed term %d, the other terms %d, optimum %d: want the feed term alone at the optimum", tc, r.LowerBound, r.Binding, r.FeedTerm, others, opt)
		}
	}
}

// tiledProblem is tensor_add's dependence structure: per tile, loads
// DMAs, one Vector add after them, stores DMAs after it.
func tiledProblem(model *arch.Model, tiles, loads, stores int, d, a int64) *problem {
	var res []int32
	var dur []int64
	var preds [][]int32
	for range tiles {
		var in []int32
		for range loads {
			in = append(in, int32(len(res)))
			res, dur, preds = append(res, resQueue), append(dur, d), append(preds, nil)
		}
		add := int32(len(res))
		res, dur, preds = append(res, int32(bir.EngDVE)), append(dur, a), append(preds, in)
		for range stores {
			res, dur, preds = append(res, resQueue), append(dur, d), append(preds, []int32{add})
		}
	}
	return newSynthetic(model, res, dur, preds)
}

func identity(n int) []int32 {
	out := make([]int32, n)
	for k := range out {
		out[k] = int32(k)
	}
	return out
}
