package pipeline

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering_PassesDoNotImportEachOther checks design.md's rule "passes
// never import each other, except through a result type a pass declares"
// on the non-test sources of every package under passes/: a pass family
// may import only packages outside passes/ (its own sub-packages
// excepted). What one pass must know of another's rules lives in a shared
// package (footprint, for the footprint passes).
func TestLayering_PassesDoNotImportEachOther(t *testing.T) {
	const module = "github.com/narwhal-compiler/narwhal/"
	root := filepath.Join("..", "passes")
	families, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, fam := range families {
		if !fam.IsDir() {
			continue
		}
		own := module + "passes/" + fam.Name()
		err := filepath.WalkDir(filepath.Join(root, fam.Name()), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			if strings.Contains(filepath.ToSlash(path), "/testdata/") || strings.Contains(filepath.ToSlash(path), "footprinttest/") {
				return nil // test support, imported only by tests
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if strings.HasPrefix(p, module+"passes/") && p != own && !strings.HasPrefix(p, own+"/") {
					t.Errorf("%s imports %s: passes never import each other (share through a package outside passes/)", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d pass source files checked: the walk is broken", checked)
	}
}
