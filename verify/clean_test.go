package verify

import "testing"

func TestClean(t *testing.T) {
	m, _ := legal(t)
	for _, d := range diags(t, Module(m, Options{Stage: AllStages})) {
		t.Error(d)
	}
	m2, _ := tiledAdd(t)
	for _, d := range diags(t, Module(m2, Options{Stage: AllStages &^ StageUnrolled})) {
		t.Error(d)
	}
}
