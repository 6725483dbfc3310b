package klrtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/klr"
)

const fixtureDir = "../../../shared/fixtures/klr"

// TestEncode_Fixtures: decoding a fixture written by the KLR toolchain and
// encoding it again gives the toolchain's bytes, for every fixture whose
// operators the encoder covers (the others must be refused, not
// miswritten).
func TestEncode_Fixtures(t *testing.T) {
	same := 0
	for _, name := range sharedtest.KLRNames(t, fixtureDir) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixtureDir, name+".klr"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := klr.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Encode(f)
			if err != nil {
				if !strings.Contains(err.Error(), "is not encoded") {
					t.Fatalf("Encode: %v", err)
				}
				t.Logf("not covered: %v", err)
				return
			}
			if !bytes.Equal(got, data) {
				k := 0
				for k < len(got) && k < len(data) && got[k] == data[k] {
					k++
				}
				t.Fatalf("re-encoded %d bytes differ from the file's %d at byte %d", len(got), len(data), k)
			}
			same++
		})
	}
	if same < 4 {
		t.Errorf("%d fixtures round-trip, want at least 4 (tensor_add, tensor_add_lnc2, the kernel variant, memset_fill)", same)
	}
}

// TestEncode_AccessForms: every Access form and Index kind survives
// encode -> decode.
func TestEncode_AccessForms(t *testing.T) {
	tn := klr.TensorName{Name: "t", Dtype: 5, Shape: klr.Shape{ParDim: 4, FreeDims: []uint64{2, 3}}, FreeElements: 6,
		Address: klr.Address{Name: "t", Memory: klr.MemSBUF, ParSize: 4, FreeSize: 24, ParOffset: klr.Some[uint64](0), FreeOffset: klr.Some[uint64](64)}}
	forms := []*klr.Access{
		{Kind: klr.AccessKindSimple, Simple: &tn},
		{Kind: klr.AccessKindBasic, Basic: &klr.AccessBasic{Tensor: tn, Indexes: []klr.Index{
			{Kind: klr.IndexSlice, Slice: klr.Slice{L: 3, U: 0, Step: -1}}, {Kind: klr.IndexCoord, Coord: 1}, {Kind: klr.IndexSlice, Slice: klr.Slice{L: 0, U: 3, Step: 2}}}}},
		{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: tn, ParNum: 2, Pattern: []klr.APPair{{Step: 1, Num: 6}}, ParOffset: 1, FreeOffset: 0,
			FixedAxis: klr.Raw{Kind: klr.RawCtor, Type: 0xff}}},
		{Kind: klr.AccessKindBirPattern, Bir: &klr.BirAccessPattern{Tensor: tn, Offset: 7, Pattern: []klr.APPair{{Step: 6, Num: 2, Offset: 1}, {Step: 1, Num: 1, Offset: 1}}}},
	}
	var ops []klr.Stmt
	for i, a := range forms {
		ops = append(ops, klr.Stmt{Op: &klr.NcCopy{Dst: klr.TensorRef{Kind: klr.RefAbstract, Access: a}, Src: klr.TensorRef{Kind: klr.RefAbstract, Access: a}, Engine: 3},
			Pos: klr.Pos{Line: uint64(i + 1)}})
	}
	k := &klr.LncKernel{Name: "forms", Bodies: [][]klr.Block{{{Label: "b", Body: ops}}}}
	data, err := Encode(LncFile(k))
	if err != nil {
		t.Fatal(err)
	}
	f, err := klr.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	body := f.Contents.Lnc.Bodies[0][0].Body
	for i, s := range body {
		got := s.Op.(*klr.NcCopy).Src.Access
		if got.Kind != forms[i].Kind || fmt.Sprint(accessValue(got)) != fmt.Sprint(accessValue(forms[i])) {
			t.Errorf("form %d: decoded %+v, want %+v", i, accessValue(got), accessValue(forms[i]))
		}
	}
}

func accessValue(a *klr.Access) any {
	switch a.Kind {
	case klr.AccessKindSimple:
		return *a.Simple
	case klr.AccessKindBasic:
		return *a.Basic
	case klr.AccessKindPattern:
		p := *a.Pattern
		p.FixedAxis.Offset = 0
		return p
	}
	return *a.Bir
}
