// resolve.go: scope analysis. Before a module runs, its tree is resolved
// once: every function, lambda, comprehension and class body becomes a
// scope, and every name used in a scope gets a binding, as CPython's
// symbol table decides it:
//
//   - in a function (or lambda, or comprehension) a name assigned
//     anywhere in its body is local (a slot of the frame) unless
//     declared global or nonlocal; a local captured by an inner
//     function is a cell; a name bound in an enclosing function is a
//     free variable (the inner function's closure holds the cell);
//     any other name is global (the module, then the builtins);
//   - in a class body, names are looked up in the class namespace, then
//     (for free variables) the enclosing function's cell, then the
//     globals; functions inside a class body do not see its names;
//   - at module level every name is global;
//   - a comprehension is its own scope (its first iterable is evaluated
//     in the enclosing one); a walrus inside it binds in the nearest
//     enclosing function or module scope.
//
// Constants are converted to Values here, once.
package tracer

import (
	"math/big"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

type scopeKind uint8

const (
	scopeModule scopeKind = iota
	scopeClass
	scopeFunction
	scopeComprehension
)

type bindKind uint8

const (
	bindGlobal    bindKind = iota // module globals, then builtins
	bindLocal                     // frame slot
	bindCell                      // frame cell (own captured local or free variable)
	bindClass                     // class namespace, then globals
	bindClassCell                 // class namespace, then a cell
)

type binding struct {
	kind bindKind
	idx  int
}

// scope is one function, lambda, comprehension, class body or module.
type scope struct {
	kind   scopeKind
	parent *scope
	name   string
	node   syntax.Node

	loops     int             // for/while bodies the walk is inside (break and continue need one)
	bound     map[string]bool // names assigned in this scope
	globals   map[string]bool
	nonlocals map[string]bool
	used      map[string]bool
	children  []*scope

	// Layout (functions and comprehensions): slots and cells.
	params    []string // parameter names in slot order
	slots     map[string]int
	nSlots    int
	cellIdx   map[string]int // own captured locals and free variables
	cellNames []string       // cellIdx's names in index order (own cells first)
	nOwnCells int
	freeNames []string // free variables, cells nOwnCells.. in order
	captured  map[string]bool
	bind      map[string]binding

	isGenerator bool
	names       []string // allNames, once computed
	// resolved marks a scope whose layout is final.
	resolved bool
}

// funcCode is what a def or lambda compiles to.
type funcCode struct {
	scope                    *scope
	name                     string
	file                     *syntax.File
	body                     []syntax.Stmt // nil for a lambda
	expr                     syntax.Expr   // a lambda's body
	args                     *syntax.Arguments
	posOnly, posOrKw, kwOnly int
	varArg, kwArg            int // slots, -1 when absent
	paramIndex               map[string]int
	pos                      syntax.Span
	res                      *resolved
}

// resolved is the analysis of one file.
type resolved struct {
	file   *syntax.File
	module *scope
	scopes map[syntax.Node]*scope // def, lambda, class and comprehension nodes
	consts map[*syntax.Constant]Value
	codes  map[syntax.Node]*funcCode
	err    error
	// refs are the Name nodes with their scopes; names their bindings
	// once laid out (the evaluator's fast path).
	refs  []nameRef
	names map[*syntax.Name]binding
}

type nameRef struct {
	n  *syntax.Name
	sc *scope
}

func resolveFile(f *syntax.File) (*resolved, error) {
	r := &resolved{file: f, scopes: map[syntax.Node]*scope{}, consts: map[*syntax.Constant]Value{}, codes: map[syntax.Node]*funcCode{}}
	r.module = newScope(scopeModule, nil, "<module>", nil)
	r.stmts(r.module, f.Body)
	if r.err != nil {
		return nil, r.err
	}
	r.layout(r.module)
	if r.err != nil {
		return nil, r.err
	}
	r.names = make(map[*syntax.Name]binding, len(r.refs))
	for _, ref := range r.refs {
		b, ok := ref.sc.bind[ref.n.ID]
		if !ok {
			b = binding{kind: bindGlobal}
			if ref.sc.kind == scopeClass {
				b.kind = bindClass
			}
		}
		r.names[ref.n] = b
	}
	r.refs = nil
	return r, nil
}

func newScope(kind scopeKind, parent *scope, name string, node syntax.Node) *scope {
	s := &scope{kind: kind, parent: parent, name: name, node: node,
		bound: map[string]bool{}, globals: map[string]bool{}, nonlocals: map[string]bool{}, used: map[string]bool{}}
	if parent != nil {
		parent.children = append(parent.children, s)
	}
	return s
}

func (r *resolved) fail(n syntax.Node, kind, msg string) {
	if r.err == nil {
		e := &Error{Kind: kind, Msg: msg, Pos: spanPos(r.file, n.Extent()), Code: codeForKind(kind)}
		r.err = e
	}
}

func (r *resolved) bindName(s *scope, name string) {
	s.bound[name] = true
}

// walrusScope is the scope a walrus in s binds in.
func walrusScope(s *scope) *scope {
	for s.kind == scopeComprehension {
		s = s.parent
	}
	return s
}

func (r *resolved) stmts(s *scope, list []syntax.Stmt) {
	for _, st := range list {
		r.stmt(s, st)
	}
}

func (r *resolved) stmt(s *scope, st syntax.Stmt) {
	switch n := st.(type) {
	case *syntax.FunctionDef:
		for _, d := range n.DecoratorList {
			r.expr(s, d)
		}
		r.arguments(s, n.Args)
		if n.Returns != nil {
			r.expr(s, n.Returns)
		}
		r.bindName(s, n.Name)
		fs := newScope(scopeFunction, s, n.Name, n)
		r.scopes[n] = fs
		r.params(fs, n.Args)
		r.stmts(fs, n.Body)
		r.codes[n] = r.makeCode(fs, n.Name, n.Args, n.Body, nil, n.Span)
	case *syntax.ClassDef:
		for _, d := range n.DecoratorList {
			r.expr(s, d)
		}
		for _, b := range n.Bases {
			r.expr(s, b)
		}
		for _, k := range n.Keywords {
			r.expr(s, k.Value)
		}
		r.bindName(s, n.Name)
		cs := newScope(scopeClass, s, n.Name, n)
		r.scopes[n] = cs
		r.stmts(cs, n.Body)
	case *syntax.Return:
		if s.kind != scopeFunction {
			r.fail(n, "SyntaxError", "'return' outside function")
		}
		if n.Value != nil {
			r.expr(s, n.Value)
		}
	case *syntax.Break:
		if s.loops == 0 {
			r.fail(n, "SyntaxError", "'break' outside loop")
		}
	case *syntax.Continue:
		if s.loops == 0 {
			r.fail(n, "SyntaxError", "'continue' not properly in loop")
		}
	case *syntax.Delete:
		for _, t := range n.Targets {
			r.target(s, t)
		}
	case *syntax.Assign:
		r.expr(s, n.Value)
		for _, t := range n.Targets {
			r.target(s, t)
		}
	case *syntax.AugAssign:
		r.expr(s, n.Value)
		r.target(s, n.Target)
		if nm, ok := n.Target.(*syntax.Name); ok {
			s.used[nm.ID] = true
		}
	case *syntax.AnnAssign:
		if n.Value != nil {
			r.expr(s, n.Value)
		}
		if s.kind != scopeFunction {
			r.expr(s, n.Annotation)
		}
		r.target(s, n.Target)
	case *syntax.For:
		r.expr(s, n.Iter)
		r.target(s, n.Target)
		s.loops++
		r.stmts(s, n.Body)
		s.loops--
		r.stmts(s, n.OrElse)
	case *syntax.While:
		r.expr(s, n.Test)
		s.loops++
		r.stmts(s, n.Body)
		s.loops--
		r.stmts(s, n.OrElse)
	case *syntax.If:
		r.expr(s, n.Test)
		r.stmts(s, n.Body)
		r.stmts(s, n.OrElse)
	case *syntax.With:
		for _, it := range n.Items {
			r.expr(s, it.ContextExpr)
			if it.OptionalVars != nil {
				r.target(s, it.OptionalVars)
			}
		}
		r.stmts(s, n.Body)
	case *syntax.Match:
		r.expr(s, n.Subject)
		for _, c := range n.Cases {
			r.stmts(s, c.Body)
		}
	case *syntax.Raise:
		if n.Exc != nil {
			r.expr(s, n.Exc)
		}
		if n.Cause != nil {
			r.expr(s, n.Cause)
		}
	case *syntax.Try:
		r.stmts(s, n.Body)
		for _, h := range n.Handlers {
			if h.Type != nil {
				r.expr(s, h.Type)
			}
			if h.Name != "" {
				r.bindName(s, h.Name)
			}
			r.stmts(s, h.Body)
		}
		r.stmts(s, n.OrElse)
		r.stmts(s, n.FinalBody)
	case *syntax.Assert:
		r.expr(s, n.Test)
		if n.Msg != nil {
			r.expr(s, n.Msg)
		}
	case *syntax.Import:
		for _, a := range n.Names {
			name := a.AsName
			if name == "" {
				name = a.Name
				for i := 0; i < len(name); i++ {
					if name[i] == '.' {
						name = name[:i]
						break
					}
				}
			}
			r.bindName(s, name)
		}
	case *syntax.ImportFrom:
		for _, a := range n.Names {
			if a.Name == "*" {
				if s.kind != scopeModule {
					r.fail(n, "SyntaxError", "import * only allowed at module level")
				}
				continue
			}
			name := a.AsName
			if name == "" {
				name = a.Name
			}
			r.bindName(s, name)
		}
	case *syntax.Global:
		for _, name := range n.Names {
			if s.bound[name] || s.used[name] {
				r.fail(n, "SyntaxError", "name '"+name+"' is used prior to global declaration")
			}
			s.globals[name] = true
		}
	case *syntax.Nonlocal:
		if s.kind == scopeModule {
			r.fail(n, "SyntaxError", "nonlocal declaration not allowed at module level")
		}
		for _, name := range n.Names {
			s.nonlocals[name] = true
		}
	case *syntax.ExprStmt:
		r.expr(s, n.Value)
	}
}

// target records the names a target binds (and evaluates the parts of
// attribute and subscript targets).
func (r *resolved) target(s *scope, t syntax.Expr) {
	switch n := t.(type) {
	case *syntax.Name:
		r.bindName(s, n.ID)
		r.refs = append(r.refs, nameRef{n, s})
	case *syntax.Tuple:
		for _, e := range n.Elts {
			r.target(s, e)
		}
	case *syntax.List:
		for _, e := range n.Elts {
			r.target(s, e)
		}
	case *syntax.Starred:
		r.target(s, n.Value)
	case *syntax.Attribute:
		r.expr(s, n.Value)
	case *syntax.Subscript:
		r.expr(s, n.Value)
		r.expr(s, n.Slice)
	default:
		r.expr(s, t)
	}
}

func (r *resolved) arguments(s *scope, a *syntax.Arguments) {
	if a == nil {
		return
	}
	for _, d := range a.Defaults {
		r.expr(s, d)
	}
	for _, d := range a.KwDefaults {
		if d != nil {
			r.expr(s, d)
		}
	}
	ann := func(arg *syntax.Arg) {
		if arg != nil && arg.Annotation != nil {
			r.expr(s, arg.Annotation)
		}
	}
	for _, p := range a.PosOnlyArgs {
		ann(p)
	}
	for _, p := range a.Args {
		ann(p)
	}
	ann(a.VarArg)
	for _, p := range a.KwOnlyArgs {
		ann(p)
	}
	ann(a.KwArg)
}

func (r *resolved) params(fs *scope, a *syntax.Arguments) {
	if a == nil {
		return
	}
	add := func(p *syntax.Arg) {
		if p == nil {
			return
		}
		if fs.bound[p.Arg] {
			r.fail(p, "SyntaxError", "duplicate argument '"+p.Arg+"' in function definition")
			return
		}
		fs.params = append(fs.params, p.Arg)
		fs.bound[p.Arg] = true
	}
	for _, p := range a.PosOnlyArgs {
		add(p)
	}
	for _, p := range a.Args {
		add(p)
	}
	add(a.VarArg)
	for _, p := range a.KwOnlyArgs {
		add(p)
	}
	add(a.KwArg)
}

func (r *resolved) makeCode(fs *scope, name string, a *syntax.Arguments, body []syntax.Stmt, expr syntax.Expr, span syntax.Span) *funcCode {
	c := &funcCode{scope: fs, name: name, file: r.file, body: body, expr: expr, args: a, varArg: -1, kwArg: -1,
		paramIndex: map[string]int{}, pos: span, res: r}
	if a != nil {
		c.posOnly, c.posOrKw, c.kwOnly = len(a.PosOnlyArgs), len(a.Args), len(a.KwOnlyArgs)
		i := c.posOnly + c.posOrKw
		if a.VarArg != nil {
			c.varArg = i
			i++
		}
		i += c.kwOnly
		if a.KwArg != nil {
			c.kwArg = i
		}
	}
	for i, p := range fs.params {
		c.paramIndex[p] = i
	}
	return c
}

func (r *resolved) exprs(s *scope, list []syntax.Expr) {
	for _, e := range list {
		r.expr(s, e)
	}
}

func (r *resolved) expr(s *scope, e syntax.Expr) {
	switch n := e.(type) {
	case nil:
	case *syntax.BoolOp:
		r.exprs(s, n.Values)
	case *syntax.NamedExpr:
		r.expr(s, n.Value)
		if nm, ok := n.Target.(*syntax.Name); ok {
			ws := walrusScope(s)
			if ws.kind == scopeClass && s.kind == scopeComprehension {
				r.fail(n, "SyntaxError", "assignment expression within a comprehension cannot be used in a class body")
			}
			r.bindName(ws, nm.ID)
			r.refs = append(r.refs, nameRef{nm, s})
			for x := s; x != ws; x = x.parent {
				// The comprehensions between see it as free.
				x.used[nm.ID] = true
			}
			ws.used[nm.ID] = true
		}
	case *syntax.BinOp:
		r.expr(s, n.Left)
		r.expr(s, n.Right)
	case *syntax.UnaryOp:
		r.expr(s, n.Operand)
	case *syntax.Lambda:
		r.arguments(s, n.Args)
		fs := newScope(scopeFunction, s, "<lambda>", n)
		r.scopes[n] = fs
		r.params(fs, n.Args)
		r.expr(fs, n.Body)
		r.codes[n] = r.makeCode(fs, "<lambda>", n.Args, nil, n.Body, n.Span)
	case *syntax.IfExp:
		r.expr(s, n.Test)
		r.expr(s, n.Body)
		r.expr(s, n.OrElse)
	case *syntax.Dict:
		for i := range n.Keys {
			if n.Keys[i] != nil {
				r.expr(s, n.Keys[i])
			}
			r.expr(s, n.Values[i])
		}
	case *syntax.Set:
		r.exprs(s, n.Elts)
	case *syntax.ListComp:
		r.comprehension(s, n, n.Generators, "<listcomp>", n.Elt)
	case *syntax.SetComp:
		r.comprehension(s, n, n.Generators, "<setcomp>", n.Elt)
	case *syntax.GeneratorExp:
		r.comprehension(s, n, n.Generators, "<genexpr>", n.Elt)
	case *syntax.DictComp:
		r.comprehension(s, n, n.Generators, "<dictcomp>", n.Key, n.Value)
	case *syntax.Await:
		r.expr(s, n.Value)
	case *syntax.Yield:
		r.markGenerator(s, n)
		r.expr(s, n.Value)
	case *syntax.YieldFrom:
		r.markGenerator(s, n)
		r.expr(s, n.Value)
	case *syntax.Compare:
		r.expr(s, n.Left)
		r.exprs(s, n.Comparators)
	case *syntax.Call:
		r.expr(s, n.Func)
		r.exprs(s, n.Args)
		for _, k := range n.Keywords {
			r.expr(s, k.Value)
		}
	case *syntax.FormattedValue:
		r.expr(s, n.Value)
		r.expr(s, n.FormatSpec)
	case *syntax.JoinedStr:
		r.exprs(s, n.Values)
	case *syntax.Constant:
		r.consts[n] = constValue(n)
	case *syntax.Attribute:
		r.expr(s, n.Value)
	case *syntax.Subscript:
		r.expr(s, n.Value)
		r.expr(s, n.Slice)
	case *syntax.Starred:
		r.expr(s, n.Value)
	case *syntax.Name:
		if n.Ctx == syntax.Load {
			s.used[n.ID] = true
		} else {
			r.bindName(s, n.ID)
		}
		r.refs = append(r.refs, nameRef{n, s})
		if n.ID == "super" && s.kind == scopeFunction {
			s.used["__class__"] = true
		}
	case *syntax.List:
		r.exprs(s, n.Elts)
	case *syntax.Tuple:
		r.exprs(s, n.Elts)
	case *syntax.Slice:
		r.expr(s, n.Lower)
		r.expr(s, n.Upper)
		r.expr(s, n.Step)
	}
}

func (r *resolved) markGenerator(s *scope, n syntax.Node) {
	switch s.kind {
	case scopeFunction:
		s.isGenerator = true
	case scopeComprehension:
		r.fail(n, "SyntaxError", "'yield' inside "+comprehensionWord(s.name))
	default:
		r.fail(n, "SyntaxError", "'yield' outside function")
	}
}

func comprehensionWord(name string) string {
	switch name {
	case "<listcomp>":
		return "list comprehension"
	case "<setcomp>":
		return "set comprehension"
	case "<dictcomp>":
		return "dict comprehension"
	}
	return "generator expression"
}

func (r *resolved) comprehension(s *scope, node syntax.Node, gens []*syntax.Comprehension, name string, elts ...syntax.Expr) {
	if len(gens) == 0 {
		return
	}
	// The first iterable belongs to the enclosing scope.
	r.expr(s, gens[0].Iter)
	cs := newScope(scopeComprehension, s, name, node)
	r.scopes[node] = cs
	for i, g := range gens {
		if i > 0 {
			r.expr(cs, g.Iter)
		}
		r.target(cs, g.Target)
		r.exprs(cs, g.Ifs)
	}
	for _, e := range elts {
		r.expr(cs, e)
	}
}

// constValue converts a literal.
func constValue(c *syntax.Constant) Value {
	switch c.Kind {
	case syntax.ConstNone:
		return None
	case syntax.ConstBool:
		b, _ := c.Value.(bool)
		return Bool(b)
	case syntax.ConstInt:
		if b, ok := c.Value.(*big.Int); ok && b != nil {
			return MakeBigInt(b)
		}
		return intValue(0)
	case syntax.ConstFloat:
		f, _ := c.Value.(float64)
		return Float(f)
	case syntax.ConstStr:
		s, _ := c.Value.(string)
		return String(s)
	case syntax.ConstEllipsis:
		return Ellipsis
	case syntax.ConstComplex:
		return &unsupportedConst{what: "complex numbers (an imaginary literal)"}
	case syntax.ConstBytes:
		return &unsupportedConst{what: "bytes literals"}
	}
	return None
}

// unsupportedConst stands for a literal narwhal does not support; the
// evaluator reports it where it is evaluated.
type unsupportedConst struct{ what string }

func (u *unsupportedConst) Type() string   { return "unsupported" }
func (u *unsupportedConst) String() string { return "<" + u.what + ">" }
func (u *unsupportedConst) Truth() (bool, error) {
	return false, NotSupportedf("%s are not supported", u.what)
}

// ---------------------------------------------------------------------------
// Layout: decide every name's binding, cells and slots.

// findEnclosing returns the function scope enclosing s (skipping class
// scopes) that binds name as a local or has it free, or nil.
func findEnclosing(s *scope, name string) *scope {
	for p := s.parent; p != nil; p = p.parent {
		switch p.kind {
		case scopeModule:
			return nil
		case scopeClass:
			continue
		}
		if p.globals[name] {
			return nil
		}
		if p.nonlocals[name] || p.bound[name] {
			return p
		}
	}
	return nil
}

// markFree makes name free in s and every scope between s and def (the
// function scope whose local it is), and a captured local of def.
func markFree(s, def *scope, name string) {
	for p := s; p != def; p = p.parent {
		if p.captured == nil {
			p.captured = map[string]bool{}
		}
		p.captured["free:"+name] = true
	}
	if def.captured == nil {
		def.captured = map[string]bool{}
	}
	def.captured["cell:"+name] = true
}

func (r *resolved) layout(root *scope) {
	// Pass 1: find every free variable (top-down order does not matter:
	// the marks accumulate).
	var mark func(s *scope)
	mark = func(s *scope) {
		if s.kind != scopeModule {
			for _, n := range allNames(s) {
				if s.globals[n] {
					continue
				}
				isLocal := s.bound[n] && !s.nonlocals[n] && s.kind != scopeClass
				if isLocal {
					continue
				}
				if s.kind == scopeClass && s.bound[n] && !s.nonlocals[n] {
					continue
				}
				if n == "__class__" {
					continue
				}
				owner := findEnclosing(s, n)
				if owner == nil {
					if s.nonlocals[n] {
						r.fail(s.node, "SyntaxError", "no binding for nonlocal '"+n+"' found")
					}
					continue
				}
				for owner.nonlocals[n] {
					next := findEnclosing(owner, n)
					if next == nil {
						r.fail(owner.node, "SyntaxError", "no binding for nonlocal '"+n+"' found")
						break
					}
					owner = next
				}
				markFree(s, owner, n)
			}
		}
		for _, c := range s.children {
			mark(c)
		}
	}
	mark(root)
	// Pass 2: slots, cells and bindings.
	var lay func(s *scope)
	lay = func(s *scope) {
		s.bind = map[string]binding{}
		switch s.kind {
		case scopeModule:
			// Everything global.
		case scopeClass:
			s.cellIdx = map[string]int{}
			for k := range s.captured {
				if len(k) > 5 && k[:5] == "free:" {
					s.freeNames = append(s.freeNames, k[5:])
				}
			}
			sortStrings(s.freeNames)
			for i, n := range s.freeNames {
				s.cellIdx[n] = i
				s.cellNames = append(s.cellNames, n)
			}
			names := allNames(s)
			for _, n := range names {
				switch {
				case s.globals[n]:
					s.bind[n] = binding{kind: bindGlobal}
				case s.nonlocals[n]:
					s.bind[n] = binding{kind: bindCell, idx: s.cellIdx[n]}
				case s.bound[n]:
					s.bind[n] = binding{kind: bindClass}
				default:
					if i, ok := s.cellIdx[n]; ok {
						s.bind[n] = binding{kind: bindClassCell, idx: i}
					} else {
						s.bind[n] = binding{kind: bindClass}
					}
				}
			}
		default:
			s.slots = map[string]int{}
			s.cellIdx = map[string]int{}
			// Parameters first, in order.
			for _, p := range s.params {
				if _, dup := s.slots[p]; !dup {
					s.slots[p] = s.nSlots
					s.nSlots++
				}
			}
			names := allNames(s)
			for _, n := range names {
				if s.bound[n] && !s.globals[n] && !s.nonlocals[n] {
					if _, ok := s.slots[n]; !ok {
						s.slots[n] = s.nSlots
						s.nSlots++
					}
				}
			}
			var own []string
			for k := range s.captured {
				if len(k) > 5 && k[:5] == "cell:" {
					own = append(own, k[5:])
				}
			}
			sortStrings(own)
			for _, n := range own {
				s.cellIdx[n] = len(s.cellNames)
				s.cellNames = append(s.cellNames, n)
			}
			s.nOwnCells = len(own)
			for k := range s.captured {
				if len(k) > 5 && k[:5] == "free:" {
					s.freeNames = append(s.freeNames, k[5:])
				}
			}
			sortStrings(s.freeNames)
			for _, n := range s.freeNames {
				if _, ok := s.cellIdx[n]; !ok {
					s.cellIdx[n] = len(s.cellNames)
					s.cellNames = append(s.cellNames, n)
				}
			}
			for _, n := range names {
				switch {
				case s.globals[n]:
					s.bind[n] = binding{kind: bindGlobal}
				default:
					if i, ok := s.cellIdx[n]; ok {
						s.bind[n] = binding{kind: bindCell, idx: i}
					} else if i, ok := s.slots[n]; ok {
						s.bind[n] = binding{kind: bindLocal, idx: i}
					} else {
						s.bind[n] = binding{kind: bindGlobal}
					}
				}
			}
		}
		s.resolved = true
		for _, c := range s.children {
			lay(c)
		}
	}
	lay(root)
}

// allNames lists the names a scope uses, binds or declares, sorted (once:
// the scope's sets are complete before the layout starts).
func allNames(s *scope) []string {
	if s.names != nil {
		return s.names
	}
	set := map[string]bool{}
	for n := range s.used {
		set[n] = true
	}
	for n := range s.bound {
		set[n] = true
	}
	for n := range s.globals {
		set[n] = true
	}
	for n := range s.nonlocals {
		set[n] = true
	}
	for _, p := range s.params {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sortStrings(out)
	s.names = out
	return out
}
