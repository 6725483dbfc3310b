package syntax

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDevStress(t *testing.T) {
	if os.Getenv("NARWHAL_DEV_STRESS") == "" {
		t.Skip()
	}
	var seeds [][]byte
	corpus, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.py"))
	for _, p := range corpus {
		b, _ := os.ReadFile(p)
		seeds = append(seeds, b)
	}
	for _, tt := range syntaxErrorTests {
		seeds = append(seeds, []byte(tt.src))
	}
	r := rand.New(rand.NewPCG(1, 2))
	toks := []string{"(", ")", "[", "]", "{", "}", ":", ",", "\n", " ", "\t", "'", "\"", "f'", "{x}", "\\", "#", "=", "*", "**", "if", "for", "in", "lambda", "match", "case", "async", "def", "class", "with", "as", "\n    ", "'''", "0x", "1e", "@", ".", ";", "!", "not", "is"}
	for iter := 0; iter < 200000; iter++ {
		src := append([]byte(nil), seeds[r.IntN(len(seeds))]...)
		for k := 1 + r.IntN(4); k > 0; k-- {
			if len(src) == 0 {
				break
			}
			i := r.IntN(len(src))
			switch r.IntN(4) {
			case 0:
				src = append(src[:i], src[min(len(src), i+1+r.IntN(8)):]...)
			case 1:
				tk := toks[r.IntN(len(toks))]
				src = append(src[:i], append([]byte(tk), src[i:]...)...)
			case 2:
				src[i] = byte(r.IntN(128))
			case 3:
				src = src[:i]
			}
		}
		done := make(chan bool, 1)
		go func(src []byte) {
			Parse("x.py", src)
			done <- true
		}(src)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			os.WriteFile("/tmp/hang.py", src, 0o644)
			fmt.Printf("HANG %q\n", src)
			t.Fatal("hang")
		}
	}
}
