// module.go: running modules (ExecFile), evaluating --arg expressions
// (EvalExpr), import statements, and generators.
//
// Generators are in generator.go.
package tracer

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// ExecFile runs a parsed module's top level as module moduleName and
// returns the module (also on error, with what ran so far). The module
// is registered under its name first, so that circular imports see it.
// A file named __init__.py is a package: relative imports in it start
// from moduleName itself; in other files from moduleName's parent.
func ExecFile(th *Thread, f *syntax.File, moduleName string) (m *Module, err error) {
	th.defaults()
	defer th.recoverPanic(&err)
	res, err := resolveFile(f)
	m = &Module{name: moduleName, members: newStrDict(16), serial: nextSerial(), file: f}
	m.pkg = moduleName
	if filepath.Base(f.Name) != "__init__.py" {
		if i := strings.LastIndexByte(moduleName, '.'); i >= 0 {
			m.pkg = moduleName[:i]
		} else {
			m.pkg = ""
		}
	}
	m.members.set("__name__", String(moduleName))
	m.members.set("__file__", String(f.Name))
	m.members.set("__package__", String(m.pkg))
	m.members.set("__doc__", None)
	if err != nil {
		return m, err
	}
	if th.modules == nil {
		th.modules = map[string]*Module{}
	}
	th.modules[moduleName] = m
	fr := &frame{name: "<module>", module: m, code: res.module, file: f, res: res, serial: nextSerial()}
	if len(th.stack) >= th.maxDepth {
		return m, Errorf("RecursionError", "maximum recursion depth exceeded while importing %s", moduleName)
	}
	th.stack = append(th.stack, fr)
	_, err = th.execBlock(fr, f.Body)
	th.stack = th.stack[:len(th.stack)-1]
	if err != nil {
		return m, err
	}
	return m, nil
}

// EvalExpr evaluates a Python expression (an --arg value) in module m's
// namespace.
func EvalExpr(th *Thread, m *Module, src string) (v Value, err error) {
	th.defaults()
	defer th.recoverPanic(&err)
	f, err := syntax.Parse("<arg>", []byte(src))
	if err != nil {
		return nil, err
	}
	if len(f.Body) != 1 {
		return nil, Errorf("SyntaxError", "expected one expression, got %q", src)
	}
	es, ok := f.Body[0].(*syntax.ExprStmt)
	if !ok {
		return nil, Errorf("SyntaxError", "expected an expression, got %q", src)
	}
	res, err := resolveFile(f)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = NewModule("__main__", nil)
	}
	fr := &frame{name: "<arg>", module: m, code: res.module, file: f, res: res, serial: nextSerial()}
	th.stack = append(th.stack, fr)
	v, err = th.eval(fr, es.Value)
	th.stack = th.stack[:len(th.stack)-1]
	return v, err
}

// recoverPanic turns a panic of the evaluator into an InternalError (a
// bug of narwhal's, reported with the position being traced) and
// restores the call stack, so that no panic escapes the tracer.
func (th *Thread) recoverPanic(err *error) {
	if r := recover(); r != nil {
		pos := th.Pos()
		th.stack = th.stack[:0]
		*err = &Error{Kind: "InternalError", Msg: fmt.Sprintf("narwhal's tracer failed: %v", r), Pos: pos, Code: CodeNotSupported}
	}
}

// ---------------------------------------------------------------------------
// Imports.

// Import returns the module named by the dotted name (the tracer's own
// modules, then the Thread's Importer).
func (th *Thread) Import(name string, level int, from Pos) (Value, error) {
	if level == 0 {
		if m, ok := th.modules[name]; ok {
			return m, nil
		}
		if mk, ok := stdlibModules[name]; ok {
			m := mk(th)
			if th.modules == nil {
				th.modules = map[string]*Module{}
			}
			th.modules[name] = m
			return m, nil
		}
	}
	if th.Importer != nil {
		v, err := th.Importer.Import(th, name, level, from)
		if err != nil {
			return nil, err
		}
		if m, ok := v.(*Module); ok && level == 0 {
			if th.modules == nil {
				th.modules = map[string]*Module{}
			}
			th.modules[name] = m
		}
		return v, nil
	}
	return nil, moduleNotFound(name)
}

func moduleNotFound(name string) error {
	return &Error{Kind: "ModuleNotFoundError", Msg: "No module named '" + name + "'", Code: CodePythonError}
}

func (th *Thread) execImport(fr *frame, n *syntax.Import) error {
	for _, a := range n.Names {
		m, err := th.Import(a.Name, 0, fr.posOf(a))
		if err != nil {
			return th.stamp(fr, err, a)
		}
		if a.AsName != "" {
			if err := th.storeName(fr, a.AsName, m); err != nil {
				return err
			}
			continue
		}
		top := a.Name
		if i := strings.IndexByte(top, '.'); i >= 0 {
			top = top[:i]
			tm, err := th.Import(top, 0, fr.posOf(a))
			if err != nil {
				return th.stamp(fr, err, a)
			}
			m = tm
		}
		if err := th.storeName(fr, top, m); err != nil {
			return err
		}
	}
	return nil
}

func (th *Thread) execImportFrom(fr *frame, n *syntax.ImportFrom) error {
	if n.Module == "__future__" && n.Level == 0 {
		for _, a := range n.Names {
			if a.Name == "annotations" {
				fr.module.futureAnnotations = true
			}
		}
		return nil
	}
	m, err := th.Import(n.Module, n.Level, fr.posOf(n))
	if err != nil {
		return err
	}
	modName := n.Module
	if mm, ok := m.(*Module); ok {
		modName = mm.name
	}
	for _, a := range n.Names {
		if a.Name == "*" {
			if err := th.importStar(fr, m); err != nil {
				return err
			}
			continue
		}
		v, err := getAttr(th, m, a.Name)
		if err != nil {
			return th.stamp(fr, err, a)
		}
		if v == nil {
			// A submodule of a package.
			sub := a.Name
			if n.Module != "" {
				sub = n.Module + "." + a.Name
			}
			sv, serr := th.Import(sub, n.Level, fr.posOf(a))
			if serr != nil {
				if e, ok := serr.(*Error); ok && e.Kind == "ModuleNotFoundError" {
					if mm, ok := m.(*Module); ok && mm.missing != nil {
						if e, ok := mm.missing(a.Name).(*Error); ok && e.Kind == "NotSupported" {
							return th.stamp(fr, e, a)
						}
					}
					return th.stamp(fr, Errorf("ImportError", "cannot import name '%s' from '%s' (unknown location)", a.Name, modName), a)
				}
				return th.stamp(fr, serr, a)
			}
			v = sv
		}
		name := a.AsName
		if name == "" {
			name = a.Name
		}
		if err := th.storeName(fr, name, v); err != nil {
			return err
		}
	}
	return nil
}

func (th *Thread) importStar(fr *frame, m Value) error {
	var names []string
	if all, _ := getAttr(th, m, "__all__"); all != nil {
		err := Iterate(th, all, func(v Value) error {
			s, ok := AsString(v)
			if !ok {
				return Errorf("TypeError", "Item in __all__ must be str, not %s", v.Type())
			}
			names = append(names, s)
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		for _, k := range attrNames(m) {
			if !strings.HasPrefix(k, "_") {
				names = append(names, k)
			}
		}
	}
	for _, k := range names {
		v, err := getAttrOrError(th, m, k)
		if err != nil {
			return err
		}
		if err := th.storeName(fr, k, v); err != nil {
			return err
		}
	}
	return nil
}
