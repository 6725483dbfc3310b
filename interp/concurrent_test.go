package interp

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/stream"
)

// pipe3 builds load (queue 0) -> scale on Vector -> save (queue 1), with
// the synchronization alloc_semaphores would give it: the load updates
// semaphore 0, the scale waits $S[0]>=1 and updates semaphore 1, the save
// waits $S[1]>=1 and updates semaphore 2; the Sync engine fires both DMAs,
// drains, and every engine halts. It returns the module and the ids.
func pipe3(t *testing.T) (*bir.Module, map[string]bir.InstID) {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 128, 64)
	y := b.Output("y", bir.Float32, 128, 64)
	tt := b.SBUF("t", bir.Float32, 128, 64)
	u := b.SBUF("u", bir.Float32, 128, 64)
	ids := map[string]bir.InstID{}
	ids["load"] = b.Load("load", tt.All(), x.All())
	ids["scale"] = b.TensorScalar("scale", bir.EngDVE, u.All(), tt.All(), "mult", 2, "bypass", 0)
	ids["save"] = b.Save("save", y.All(), u.All())
	ids["drain"] = b.Inst(bir.OpDrain, "drain", bir.EngSP, nil, nil, bir.AttrSet{})
	for _, e := range stream.Engines {
		ids["halt_"+e.String()] = b.Inst(bir.OpHalt, "halt_"+e.String(), e, nil, nil, bir.AttrSet{})
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	f.Sched = bir.NewSchedule(f.NumInstSlots())
	f.Sched.Queue[ids["load"]], f.Sched.Queue[ids["save"]] = 0, 1
	sy := bir.NewSync(f.NumInstSlots())
	f.Sync = sy
	sy.Trigger[ids["load"]], sy.Trigger[ids["save"]] = bir.EngSP, bir.EngSP
	sy.SetUpdates(ids["load"], []bir.SemCmd{{Sem: 0, Value: 1}})
	sy.SetWaits(ids["scale"], []bir.SemCmd{{Sem: 0, Value: 1}})
	sy.SetUpdates(ids["scale"], []bir.SemCmd{{Sem: 1, Value: 1}})
	sy.SetWaits(ids["save"], []bir.SemCmd{{Sem: 1, Value: 1}})
	sy.SetUpdates(ids["save"], []bir.SemCmd{{Sem: 2, Value: 1}})
	return m, ids
}

func pipeInputs() map[string]*Tensor {
	return map[string]*Tensor{"x": f32Tensor("x", []int64{128, 64}, seq(128*64, func(i int) float64 { return float64(i % 97) })...)}
}

// TestRunConcurrent_Policies: the correctly synchronized pipeline runs
// without race, deadlock or late DMA under every policy and many seeds,
// and computes what the sequential run computes.
func TestRunConcurrent_Policies(t *testing.T) {
	m, _ := pipe3(t)
	want := mustRun(t, m, pipeInputs(), Options{})
	policies := []string{"random", "late-dma", "starve:Vector", "starve:Sync", "starve:queue0", "starve:queue1"}
	for _, p := range policies {
		pol, starve, err := ParsePolicy(p)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(0); seed < 20; seed++ {
			res, err := RunConcurrent(m, pipeInputs(), ConcurrentOptions{Policy: pol, Starve: starve, Seed: seed})
			if err != nil {
				t.Fatalf("%s seed %d: %v", p, seed, err)
			}
			if !res.OK() {
				t.Fatalf("%s seed %d: races %v, deadlock %v, late %v", p, seed, res.Races, res.Deadlock, res.Late)
			}
			if string(res.Outputs["y"].Data) != string(want["y"].Data) {
				t.Fatalf("%s seed %d: y differs from the sequential run", p, seed)
			}
		}
	}
}

// TestRunConcurrent_Findings: each broken synchronization is reported:
// a missing wait as a race naming both instructions and the bytes, a
// wait nobody satisfies as a deadlock naming the stream and the
// semaphore, a missing Drain as a DMA in flight after every engine
// halted.
func TestRunConcurrent_Findings(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(f *bir.Function, ids map[string]bir.InstID)
		want   []string
	}{
		{"RAW", func(f *bir.Function, ids map[string]bir.InstID) { f.Sync.SetWaits(ids["scale"], nil) },
			[]string{"race:", "instruction load (Load on DMA queue 0) writes", "instruction scale (TensorScalar on Vector) reads", "SBUF partitions 0..127"}},
		{"RAW save", func(f *bir.Function, ids map[string]bir.InstID) { f.Sync.SetWaits(ids["save"], nil) },
			[]string{"instruction scale (TensorScalar on Vector) writes", "instruction save (Save on DMA queue 1) reads"}},
		{"deadlock", func(f *bir.Function, ids map[string]bir.InstID) {
			f.Sync.SetWaits(ids["save"], []bir.SemCmd{{Sem: 1, Value: 2}})
		}, []string{"deadlock", "Sync: instruction save (Save) waits for $S[1]>=2 (semaphore 1 is at 1)"}},
		{"late", func(f *bir.Function, ids map[string]bir.InstID) { f.Remove(ids["drain"]) },
			[]string{"DMA save on DMA queue 1 is still in flight when every engine has halted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			for seed := uint64(0); seed < 20 && !found; seed++ {
				m, ids := pipe3(t)
				tc.break_(m.Main(), ids)
				res, err := RunConcurrent(m, pipeInputs(), ConcurrentOptions{Seed: seed, Policy: PolicyLateDMA})
				if err != nil {
					t.Fatal(err)
				}
				var all []string
				for _, r := range res.Races {
					all = append(all, r.String())
				}
				if res.Deadlock != nil {
					all = append(all, res.Deadlock.String())
				}
				all = append(all, res.Late...)
				text := strings.Join(all, "\n")
				found = true
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						found = false
						if seed == 19 {
							t.Errorf("report:\n%s\nwant %q", text, w)
						}
					}
				}
			}
		})
	}
}

// TestRunConcurrent_RaceIsStatic: a missing wait is a race in every
// interleaving (happens-before is a property of the program), also when
// the interleaving happens to run the instructions in order.
func TestRunConcurrent_RaceIsStatic(t *testing.T) {
	m, ids := pipe3(t)
	m.Main().Sync.SetWaits(ids["scale"], nil)
	for seed := uint64(0); seed < 10; seed++ {
		for _, p := range []Policy{PolicyRandom, PolicyLateDMA} {
			res, err := RunConcurrent(m, pipeInputs(), ConcurrentOptions{Seed: seed, Policy: p})
			if err != nil {
				t.Fatal(err)
			}
			if res.RacesFound == 0 {
				t.Fatalf("policy %d seed %d: the missing wait went unreported", p, seed)
			}
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct {
		in     string
		pol    Policy
		starve stream.ID
		ok     bool
	}{
		{"random", PolicyRandom, stream.None, true},
		{"", PolicyRandom, stream.None, true},
		{"late-dma", PolicyLateDMA, stream.None, true},
		{"starve:GpSimd", PolicyStarve, stream.EngineStream(bir.EngPool), true},
		{"starve:queue2", PolicyStarve, stream.QueueStream(2), true},
		{"starve:nowhere", 0, stream.None, false},
		{"eager", 0, stream.None, false},
	} {
		pol, s, err := ParsePolicy(tc.in)
		if (err == nil) != tc.ok || tc.ok && (pol != tc.pol || s != tc.starve) {
			t.Errorf("ParsePolicy(%q) = %v, %v, %v", tc.in, pol, s, err)
		}
	}
}
