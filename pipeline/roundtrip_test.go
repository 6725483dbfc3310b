package pipeline

import (
	"bytes"
	"github.com/narwhal-compiler/narwhal/passtest"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
)

// TestRoundTrip_Kernels checks the two serialized forms on every built-in
// kernel (every test spec and the defaults), as built and after the default
// pipeline:
//
//   - text: print(parse(print(m))) == print(m);
//   - JSON: encode(decode(encode(m))) == encode(m), byte for byte;
//   - across: print(decode(encode(m))) == print(m), so the JSON form keeps
//     everything the text form shows.
func TestRoundTrip_Kernels(t *testing.T) {
	for _, k := range kernels.All() {
		specs := append([]string{k.Name}, k.TestSpecs()...)
		seen := map[string]bool{}
		for _, spec := range specs {
			if seen[spec] {
				continue
			}
			seen[spec] = true
			t.Run(spec, func(t *testing.T) {
				m, err := kernels.Build(spec)
				if err != nil {
					t.Fatalf("building %s: %v", spec, err)
				}
				checkRoundTrip(t, "built", m)
				if _, err := Table.Run(m, pass.Config{}); err != nil {
					t.Fatalf("default pipeline: %v", err)
				}
				checkRoundTrip(t, "after the default pipeline", m)
			})
		}
	}
}

func checkRoundTrip(t *testing.T, when string, m *bir.Module) {
	t.Helper()
	text := bir.Format(m)
	mt, err := bir.Parse("rt.bir", []byte(text))
	if err != nil {
		t.Fatalf("%s: the printed text does not parse: %v", when, err)
	}
	if again := bir.Format(mt); again != text {
		t.Errorf("%s: print(parse(print(m))) != print(m):\n%s", when, passtest.LineDiff(text, again))
	}
	js, err := birjson.Encode(m)
	if err != nil {
		t.Fatalf("%s: encode: %v", when, err)
	}
	mj, err := birjson.Decode(js, "rt.json")
	if err != nil {
		t.Fatalf("%s: the encoded JSON does not decode: %v", when, err)
	}
	js2, err := birjson.Encode(mj)
	if err != nil {
		t.Fatalf("%s: re-encode: %v", when, err)
	}
	if !bytes.Equal(js, js2) {
		t.Errorf("%s: encode(decode(encode(m))) != encode(m):\n%s", when, passtest.LineDiff(string(js), string(js2)))
	}
	if across := bir.Format(mj); across != text {
		t.Errorf("%s: print(decode(encode(m))) != print(m):\n%s", when, passtest.LineDiff(text, across))
	}
}
