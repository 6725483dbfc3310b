package birjson

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestRoundTrip_LoopScheduleAndSync: a loop's period_ps and a body wait's
// iteration term ([S, V, "4*i"]) survive BIR-JSON.
func TestRoundTrip_LoopScheduleAndSync(t *testing.T) {
	src := `module arch=trn2

func @main {
Block1:
  l = Loop i in [0, 4) sched(start=0, end=90, period=20) {
  Block_i:
    a = Halt on PE sched(start=0, end=10, order=0) sync(waits=[[2, 1 + 4*i], [0, 7]], updates=[[1, 1]])
  }
}
`
	m, err := bir.Parse("s.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"period_ps":20`, `[2,1,"4*i"]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("BIR-JSON lacks %s:\n%s", want, data)
		}
	}
	back, err := Decode(data, "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := bir.Format(back); got != src {
		t.Errorf("after BIR-JSON:\n%s\nwant\n%s", got, src)
	}
}

// TestRoundTrip_CarryAll: "carry_all" survives BIR-JSON.
func TestRoundTrip_CarryAll(t *testing.T) {
	src := `module arch=trn2

func @main {
Block1:
  l = Loop i in [0, 2) {
  Block_i:
    lk = Loop k in [0, 3) {
    Block_k:
      a = Halt on PE deps [ANTI b carry(i, 1, all)]
      b = Halt on DVE deps [FLOW a]
    }
  }
}
`
	m, err := bir.Parse("s.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"carry_all":true`) {
		t.Errorf("BIR-JSON lacks carry_all:\n%s", data)
	}
	back, err := Decode(data, "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := bir.Format(back); got != src {
		t.Errorf("after BIR-JSON:\n%s", got)
	}
}
