package birjson

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// FuzzDecode: no input panics (the recover at the API boundary must never
// fire: its "internal error" is a bug), errors are one-line *Error values,
// and whatever loads re-encodes to bytes that decode to the same module
// (same text form) and re-encode identically.
//
//	go test ./bir/birjson -run '^$' -fuzz FuzzDecode -fuzztime 5m
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(base))
	f.Add([]byte(dtypeModule(`"bfloat16"`)))
	for _, s := range []string{
		`{"functions":[]}`,
		`{"functions":[{"name":"f","blocks":[{"name":"B","instructions":[{"opcode":"Loop","LoopAxis":{"name":"i","lb":0,"ub":2,"stride":1},"blocks":[{"name":"C","instructions":[{"opcode":"NoOp","name":"n","predicate":"i >= 1","deps":[{"on":"n","kind":"FLOW","carry_axis":"i","carry_distance":1}]}]}]}]}]}]}`,
		`{"functions":[{"name":"f","blocks":[{"name":"B","instructions":[{"opcode":"X","name":"x","v":[1e400,-0.0,"nan",{"":null}]}]}]}]}`,
		"\xef\xbb\xbf{\"functions\":[{\"name\":\"\\u00e9\\ud83d\\ude00\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, "fuzz.json")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("decoder bug caught by the safety net: %v", err)
			}
			return
		}
		enc1, err := Encode(m)
		if err != nil {
			t.Fatalf("a module the reader accepted does not encode: %v", err)
		}
		m2, err := Decode(enc1, "enc1.json")
		if err != nil {
			t.Fatalf("our own output does not decode: %v\n%s", err, enc1)
		}
		enc2, err := Encode(m2)
		if err != nil {
			t.Fatalf("re-encoding failed: %v", err)
		}
		if !bytes.Equal(enc1, enc2) {
			t.Fatalf("re-encoding differs:\n%s\n----\n%s", enc1, enc2)
		}
		// The re-loaded module is the loaded one, as far as the text form
		// shows it (the first save lost nothing).
		if p1, p2 := bir.Format(m), bir.Format(m2); p1 != p2 {
			t.Fatalf("the saved module loads to a different module:\n%s\n----\n%s", p1, p2)
		}
	})
}
