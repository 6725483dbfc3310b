package bir

import (
	"slices"
	"strings"
	"testing"
)

const expandSrc = `module arch=trn2

func @main {
  tensor %x_set: f32[512, 64] kind=Input
    loc %x: Input 512x256
  tensor %z_set: f32[512, 64] kind=Output
    loc %z: Output 512x256
  tensor %t_set: f32[128, 64] class=NeuronSBTensor blocks=4
    loc %t: SB 128x256 allocated

Block1:
  first = Halt on SP sched(start=0, end=1, order=0)
  loop_i = Loop i in [0, 3) sched(start=1, end=40, period=10) {
  Block_i:
    ld = Load %x_set[block=0, offset=8192*i, ap=[[64,128],[1,64]]] f32 -> %t_set[block=i, ap=[[64,128],[1,64]]] f32 deps [ANTI st carry(i, 1)] sched(start=1, end=6, queue=2) sync(trigger=SP, waits=[[5, -1 + 2*i]], updates=[[0, 1]])
    st = Save %t_set[block=i, ap=[[64,128],[1,64]]] f32 -> %z_set[block=0, offset=8192*i, ap=[[64,128],[1,64]]] f32 deps [FLOW ld] sched(start=6, end=11, queue=3) sync(trigger=SP)
    odd = Halt on PE if (i == 1) sched(start=2, end=3, order=0)
  }
  last = Halt on SP deps [FLOW st, ORDERED loop_i] sched(start=41, end=42, order=9)
}
`

// TestExpand_Instances: a loop of three iterations becomes its nine
// instances with physical operands, evaluated predicates, instance
// dependencies (carried ones from the previous iteration, the one after
// the loop on every instance), shifted schedule entries and evaluated
// waits.
func TestExpand_Instances(t *testing.T) {
	m, err := Parse("e.bir", []byte(expandSrc))
	if err != nil {
		t.Fatal(err)
	}
	x, err := Expand(m, ExpandOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fx := x.Funcs[0]
	if fx == nil {
		t.Fatal("main has loops: want an expansion")
	}
	g := fx.F
	if HasLoops(g) || !HasLoops(m.Main()) {
		t.Fatalf("the copy keeps loops (%v) or the source lost them", HasLoops(g))
	}
	var names []string
	for _, i := range fx.Instances {
		names = append(names, g.InstName(i))
	}
	want := "first ld@i=0 st@i=0 odd@i=0 ld@i=1 st@i=1 odd@i=1 ld@i=2 st@i=2 odd@i=2 last"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("instances %q\nwant %q", got, want)
	}
	id := func(n string) InstID {
		i, ok := g.InstByName(n)
		if !ok {
			t.Fatalf("no %s", n)
		}
		return i
	}
	ld1 := id("ld@i=1")
	if o := g.Ins(ld1)[0]; o.Kind != OpdPhysAP || o.Offset != 8192 {
		t.Errorf("ld@i=1 source %v: want a physical AP at offset 8192", o)
	}
	deps := func(n string) string {
		var s []string
		for _, d := range g.Deps(id(n)) {
			s = append(s, d.Kind.String()+" "+g.InstName(d.On))
		}
		slices.Sort(s)
		return strings.Join(s, ", ")
	}
	for _, c := range []struct{ inst, want string }{
		{"ld@i=0", ""},
		{"ld@i=1", "ANTI st@i=0"},
		{"st@i=2", "FLOW ld@i=2"},
		{"last", "FLOW st@i=0, FLOW st@i=1, FLOW st@i=2, ORDERED ld@i=0, ORDERED ld@i=1, ORDERED ld@i=2, ORDERED odd@i=0, ORDERED odd@i=1, ORDERED odd@i=2"},
		{"first", ""},
	} {
		if got := deps(c.inst); got != c.want {
			t.Errorf("%s depends on %q, want %q", c.inst, got, c.want)
		}
	}
	if g.Inst(id("odd@i=1")).Pred != 0 || g.Inst(id("odd@i=0")).Pred == 0 {
		t.Errorf("predicates not evaluated")
	}
	if s, e := g.Sched.Start[id("st@i=2")], g.Sched.End[id("st@i=2")]; s != 26 || e != 31 {
		t.Errorf("st@i=2 at [%d, %d): want [26, 31)", s, e)
	}
	if w := g.Sync.Waits(id("ld@i=2")); len(w) != 1 || w[0].Value != 3 {
		t.Errorf("ld@i=2 waits %v: want $S[5]>=3", w)
	}
	if g.Sync.Trigger[id("st@i=1")] != EngSP {
		t.Errorf("trigger not copied")
	}
	if it := fx.Iteration(id("st@i=2")); len(it) != 1 || it[0] != 2 {
		t.Errorf("iteration of st@i=2: %v", it)
	}
}

// TestExpand_RunTimeTripCount: a DoWhile has no expansion.
func TestExpand_RunTimeTripCount(t *testing.T) {
	src := "module arch=trn2\n\nfunc @main {\nBlock1:\n  w = DoWhile on SP d in [0, 1) {\n  Block_d:\n    a = Halt on PE\n  }\n}\n"
	m, err := Parse("e.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(m, ExpandOptions{}); err == nil || !strings.Contains(err.Error(), "run time") {
		t.Errorf("err %v: want the run-time trip count refused", err)
	}
}
