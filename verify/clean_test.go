package verify

import "testing"

func TestClean(t *testing.T) {
	m, _ := legal(t)
	for _, d := range diags(t, Module(m, Options{Stage: unscheduled})) {
		t.Error(d)
	}
	m2, _ := tiledAdd(t)
	for _, d := range diags(t, Module(m2, Options{Stage: unscheduled &^ StageUnrolled})) {
		t.Error(d)
	}
}
