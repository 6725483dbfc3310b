package sched_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// TestSchedule_Orders schedules kernels through the default pipeline
// with each set of orders: more orders never give a longer schedule (the
// shortest is kept), orders=ddg alone is the seed's algorithm (the DDG
// list order, the baseline), an order other than the DDG list one is kept
// somewhere, shorter than the DDG list order (it acts; incoming on softmax
// 1024x512 at unlimited memory and rmsnorm, ASAP where it wins), and the
// pass's schedule there is translation-validated.
func TestSchedule_Orders(t *testing.T) {
	otherWins := 0
	for _, tc := range []struct{ spec, mode, arch string }{
		{"matmul:m=512,k=512,n=1024", "logical", "trn2"},
		{"matmul:m=512,k=512,n=1024", "physical", "trn2"},
		{"matmul:m=512,k=512,n=1024,dtype=bfloat16,arch=trn3", "physical", "trn3"},
		{"tensor_add", "physical", "trn2"},
		{"softmax:rows=1024,cols=512", "logical", "trn2"},
		{"attention:seq=512", "physical", "trn2"},
		{"rmsnorm:rows=1024,d=512", "physical", "trn2"},
	} {
		model, _ := arch.Lookup(tc.arch)
		spec := tc.spec + " " + tc.mode + " " + tc.arch
		text := beforeScheduler(t, tc.spec, tc.mode)
		spans := map[string]int64{}
		var order string
		for _, orders := range []string{"ddg", "ddg,incoming", "auto"} {
			m := cloneModule(t, text)
			rep, err := sched.Schedule(m.Main(), model, sched.Options{Window: sched.DefaultWindow, Orders: orders})
			if err != nil {
				t.Fatal(err)
			}
			spans[orders] = rep.Makespan
			if orders == "ddg" && rep.Order != "DDG list" {
				t.Errorf("%s: orders=ddg linearized the %s order", spec, rep.Order)
			}
			if orders == "auto" {
				order = rep.Order
			}
		}
		if spans["ddg,incoming"] > spans["ddg"] || spans["auto"] > spans["ddg,incoming"] {
			t.Errorf("%s: makespans %v: more orders gave a longer schedule", spec, spans)
		}
		if order != "DDG list" && spans["auto"] < spans["ddg"] {
			otherWins++
			if otherWins == 1 {
				// Translation validation of a schedule linearized from
				// another order: the pass with its default orders, the
				// scheduled order interpreted against program order.
				passtest.CheckPass(t, cloneModule(t, text), &sched.TimeAwareSchedulerPass, passtest.Arch(model), passtest.InputsFunc(kernelInputs(tc.spec)))
			}
		}
		t.Logf("%-28s ddg %9.3f us, ddg+incoming %9.3f us, auto %9.3f us (%s)", spec, float64(spans["ddg"])/1e6, float64(spans["ddg,incoming"])/1e6, float64(spans["auto"])/1e6, order)
	}
	if otherWins == 0 {
		t.Error("no order but the DDG list one shortened a schedule")
	}
}

// TestParseOrders_Errors: a name that is not an order is refused, naming it.
func TestParseOrders_Errors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"ddg,fifo", `"fifo" is not an order`},
		{"asap,", `"" is not an order`},
	} {
		if _, err := sched.ParseOrders(tc.in, 10); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseOrders(%q) = %v, want an error containing %s", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		n    int
		want sched.Orders
	}{
		{"auto", 10, sched.OrderDDG | sched.OrderIncoming | sched.OrderASAP},
		{"auto", sched.MaxASAPInsts + 1, sched.OrderDDG | sched.OrderIncoming},
		{"incoming, asap", 10, sched.OrderIncoming | sched.OrderASAP},
	} {
		if got, err := sched.ParseOrders(tc.in, tc.n); err != nil || got != tc.want {
			t.Errorf("ParseOrders(%q, %d) = %v, %v; want %v", tc.in, tc.n, got, err, tc.want)
		}
	}
}

// beforeScheduler is kernel spec through the default pipeline up to the
// scheduler (performance tiling included), the dependencies of mode
// (physical or logical).
func beforeScheduler(t *testing.T, spec, mode string) *bir.Module {
	t.Helper()
	var before []string
	for _, p := range pipeline.Table.Passes {
		if p.Name == "time_aware_scheduler" {
			break
		}
		if p.Default && p.Gate == "" {
			before = append(before, p.Name)
		}
	}
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pass.Config{Passes: before, Options: map[string]map[string]string{"anti_dependency_analyzer": {"mode": mode}}}
	if _, err := pipeline.Table.Run(inst.Module, cfg); err != nil {
		t.Fatal(err)
	}
	return inst.Module
}

// TestReport_FeedTermKernels: on the default tensor_add, matmul and
// transpose2d the lower bound is one of the two terms that join the
// engines to the DMAs (the feed term: matmul; the DMA-engine term:
// tensor_add, transpose2d), above the three older terms, and equals the
// makespan: the terms act, and they show those schedules optimal.
func TestReport_FeedTermKernels(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	for _, tc := range []struct {
		spec string
		feed bool // the feed term binds (else the DMA-engine term)
	}{{"tensor_add", false}, {"matmul", true}, {"transpose2d", false}} {
		m := beforeScheduler(t, tc.spec, "physical")
		rep, err := sched.Schedule(m.Main(), model, sched.Options{Window: sched.DefaultWindow})
		if err != nil {
			t.Fatal(err)
		}
		others := max(rep.CriticalPath, rep.EngineTerm, rep.DMATerm)
		term, name := rep.DMAEngineTerm, rep.DMAEngineName
		if tc.feed {
			term, name = rep.FeedTerm, rep.FeedName
		}
		if term != rep.LowerBound || term <= others || rep.Makespan != rep.LowerBound {
			t.Errorf("%s: makespan %d, lower bound %d (%s), feed term %d, DMA-engine term %d, the other terms %d: want the %s term to bind, at the makespan", tc.spec, rep.Makespan, rep.LowerBound, rep.Binding, rep.FeedTerm, rep.DMAEngineTerm, others, name)
		}
		t.Logf("%-12s makespan = lower bound %.3f us (%s); the older terms %.3f us", tc.spec, float64(rep.Makespan)/1e6, name, float64(others)/1e6)
	}
}

// TestReport_CallPricedByCalleeBound (issue 28 item 3): a function that
// only calls a kernel reports its callee's lower bound and gap, not "gap
// 0.0%" by construction (the bound used to price the call at the callee's
// achieved makespan). The callee is trn2 softmax, whose schedule sits
// above its bound.
func TestReport_CallPricedByCalleeBound(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	m := beforeScheduler(t, "softmax", "physical")
	kern := m.Main()
	kern.Name = "softmax_kernel"
	b := bir.NewBuilder(m, "main")
	b.Inst(bir.OpNKIKernel, "call_softmax", bir.EngUnassigned, nil, nil, bir.Attrs("func", "softmax_kernel"))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	callee, err := sched.Schedule(kern, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	if callee.Gap() <= 0 {
		t.Fatalf("callee gap %.1f%%: want a callee above its bound for the test to mean something", callee.Gap())
	}
	for _, recorded := range []bool{false, true} {
		opt := sched.Options{Window: sched.DefaultWindow}
		if recorded {
			opt.CalleeBound = func(name string) (int64, bool) { return callee.LowerBound, name == "softmax_kernel" }
		}
		caller, err := sched.Schedule(m.Func("main"), model, opt)
		if err != nil {
			t.Fatal(err)
		}
		if caller.Makespan != callee.Makespan || caller.LowerBound != callee.LowerBound || caller.Gap() != callee.Gap() {
			t.Errorf("recorded %v: caller makespan %d, bound %d, gap %.1f%%; want the callee's %d, %d, %.1f%%", recorded, caller.Makespan, caller.LowerBound, caller.Gap(), callee.Makespan, callee.LowerBound, callee.Gap())
		}
	}
}
