package semaphores_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

func TestConcurrent_Scratch(t *testing.T) {
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
			t.Fatal(err)
		}
		in := interp.RandomInputs(m, 1)
		want, err := interp.Run(m, in, interp.Options{})
		if err != nil {
			t.Skip(err)
		}
		for seed := uint64(0); seed < 3; seed++ {
			for _, pol := range []interp.Policy{interp.PolicyRandom, interp.PolicyLateDMA} {
				res, err := interp.RunConcurrent(m, in, interp.ConcurrentOptions{Policy: pol, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if !res.OK() {
					t.Errorf("seed %d: races %v deadlock %v late %v", seed, res.Races, res.Deadlock, res.Late)
					continue
				}
				for k, v := range want {
					if string(v.Data) != string(res.Outputs[k].Data) {
						t.Errorf("seed %d: output %s differs", seed, k)
					}
				}
			}
		}
	})
}

func TestConcurrent_ScratchMutation(t *testing.T) {
	caught, total := 0, 0
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
			t.Fatal(err)
		}
		in := interp.RandomInputs(m, 1)
		if _, err := interp.Run(m, in, interp.Options{}); err != nil {
			t.Skip(err)
		}
		for _, f := range m.Funcs {
			sy := f.Sync
			for i := 0; i < sy.Len(); i++ {
				id := bir.InstID(i)
				ws := append([]bir.SemCmd(nil), sy.Waits(id)...)
				for k := range ws {
					rest := append(append([]bir.SemCmd(nil), ws[:k]...), ws[k+1:]...)
					sy.SetWaits(id, rest)
					res, err := interp.RunConcurrent(m, in, interp.ConcurrentOptions{Seed: 1})
					sy.SetWaits(id, ws)
					total++
					if err != nil {
						t.Fatal(err)
					}
					if res.OK() {
						t.Logf("%s/%s: removing %v not caught", f.Name, f.InstName(id), ws[k])
					} else {
						caught++
					}
				}
			}
		}
	})
	t.Logf("caught %d of %d", caught, total)
}
