package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestRunCores_Exchange: the exchange kernel's two cores compiled together
// (RunCores): the joint schedule (LncAwareSchedule) finds the two
// cross-core reads of shared HBM, each core's program is synchronized (its
// CoreBarriers and PTCOMs), and the two programs run at once on the
// concurrent interpreter give the single-core program's outputs. A kernel
// compiled for another number of cores than it has is refused.
func TestRunCores_Exchange(t *testing.T) {
	single, err := kernels.Instantiate("exchange:rows=128,cols=64")
	if err != nil {
		t.Fatal(err)
	}
	in := kernels.InputsFor(single.Kernel, single.Module, 1)
	want, err := interp.Run(single.Module, in, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cores := func(n int) []*bir.Module {
		var mods []*bir.Module
		for c := range n {
			inst, err := kernels.Instantiate(fmt.Sprintf("exchange:rows=128,cols=64,cores=2,core=%d", c))
			if err != nil {
				t.Fatal(err)
			}
			mods = append(mods, inst.Module)
		}
		return mods
	}
	mods := cores(2)
	reps, lrep, err := RunCores(mods, pass.Config{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	if lrep == nil || len(lrep.Cross) < 2 {
		t.Fatalf("joint schedule %v: want the cross-core reads of s", lrep)
	}
	for _, e := range lrep.Cross {
		from, to := mods[e.FromCore].Main().InstName(e.From), mods[e.ToCore].Main().InstName(e.To)
		h := fmt.Sprint(e.FromCore)
		if e.ToCore != 1-e.FromCore || !strings.HasPrefix(from, "save_s"+h) || !strings.HasPrefix(to, "load_s"+h) {
			t.Errorf("cross-core edge core %d %s -> core %d %s: want each core's write of its half of s before the other core's read of it", e.FromCore, from, e.ToCore, to)
		}
	}
	for c, m := range mods {
		if err := verify.Module(m, verify.Options{Stage: verify.StageSynchronized | verify.StageScheduled | verify.StageAllocated}); err != nil {
			t.Errorf("core %d: %v", c, err)
		}
		if r := reps[c].Result("alloc_semaphores"); r == nil || r.Skipped != "" {
			t.Errorf("core %d: alloc_semaphores did not run", c)
		}
	}
	for seed := range uint64(5) {
		res, err := interp.RunCores(mods, in, interp.ConcurrentOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("seed %d: races %v, deadlock %v", seed, res.Races, res.Deadlock)
		}
		for name, w := range want {
			if got := res.Outputs[name]; got == nil || string(got.Data) != string(w.Data) {
				t.Errorf("seed %d: output %s differs from the single-core program's", seed, name)
			}
		}
	}
	three := append(cores(2), cores(1)...)
	if _, _, err := RunCores(three, pass.Config{}); err == nil || diag.CodeOf(err) != diag.Usage || !strings.Contains(err.Error(), "runs on 2 logical core(s)") {
		t.Errorf("three programs of a two-core kernel: %v, want NW101 naming the count", err)
	}
}
