package cputime

import "testing"

func TestNow_Increases(t *testing.T) {
	a, ok := Now()
	if !ok {
		t.Skip("no CPU time on this platform")
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ x>>3
	}
	b, _ := Now()
	if b <= a || x == 42 {
		t.Fatalf("CPU time %v then %v: want it to grow across a busy loop", a, b)
	}
}
