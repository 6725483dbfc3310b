"""The part of a kernel's file that narwhal needs to trace the kernel.

`narwhal run FILE` runs FILE's whole top level before it traces the kernel.
NKI's own API tests keep their kernels in the test file, beside ``import
unittest`` / ``import pytest``, TestCase classes and parametrized tests;
narwhal has none of those modules, so tracing the file as it is fails on
its first line although the kernel never uses them. (CPython has already
run the whole top level when the test imported the file, so nothing the
kernel does not use can fail there.)

slice_source computes the kernel's slice of the top level: the kernel's
own statement, then every top-level statement that binds a name a kept
statement reads (imports, defs, classes, assignments), to a fixed point;
the roots also hold the first names of the --arg dotted expressions
(``np`` of ``np.subtract``), which narwhal resolves in the module. A
statement's reads are its Name loads, less, inside functions and lambdas,
the names local to them (parameters and assigned names not declared
global): an over-approximation, so a statement is dropped only when
nothing kept can read what it binds. ``from __future__`` imports and star
imports are always kept.

The slice is used only when it drops an import statement (a test file:
something is imported that the kernel does not need); a kernel file whose
imports the kernel all needs goes to narwhal as it is. The sliced source
keeps every line in place (dropped statements become empty lines), so
narwhal's positions are the original file's.
"""

import ast


def _stored(node):
    """Names a statement binds (Store contexts, defs, imports), walking
    into nested blocks but not into function or class bodies."""
    names = set()

    def walk(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
            return
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                names.add(a.asname or a.name.split(".")[0])
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        if isinstance(n, ast.Lambda):
            return
        for c in ast.iter_child_nodes(n):
            walk(c)

    walk(node)
    return names


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _function_locals(fn):
    """Parameters and names bound in a function's own scope (not in nested
    functions, classes, lambdas or comprehensions), less those declared
    global. Missing a local only keeps a statement too many."""
    args = fn.args
    local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    for a in (args.vararg, args.kwarg):
        if a is not None:
            local.add(a.arg)
    declared_global = set()

    def walk(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(n.name)
            return
        if isinstance(n, _SCOPES):
            return
        if isinstance(n, ast.Global):
            declared_global.update(n.names)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if a.name != "*":
                    local.add(a.asname or a.name.split(".")[0])
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            local.add(n.id)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            local.add(n.name)
        for c in ast.iter_child_nodes(n):
            walk(c)

    for stmt in (fn.body if isinstance(fn.body, list) else [fn.body]):
        walk(stmt)
    return local - declared_global


def _reads(node):
    """Names node may read from the module namespace."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        outer = set()
        args = node.args
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            outer |= _reads(d)
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None and a.annotation is not None:
                outer |= _reads(a.annotation)
        if not isinstance(node, ast.Lambda):
            for d in node.decorator_list:
                outer |= _reads(d)
            if node.returns is not None:
                outer |= _reads(node.returns)
            body = node.body
        else:
            body = [node.body]
        inner = set()
        for stmt in body:
            inner |= _reads(stmt)
        return outer | (inner - _function_locals(node))
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) else set()
    names = set()
    for c in ast.iter_child_nodes(node):
        names |= _reads(c)
    return names


def _first_line(stmt):
    lines = [stmt.lineno]
    for d in getattr(stmt, "decorator_list", []):
        lines.append(d.lineno)
    return min(lines)


def slice_source(source, kernel_name, roots=()):
    """The source narwhal should trace for kernel_name, or None when the
    file goes as it is. roots: extra module names the kernel's --arg
    expressions read."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # narwhal reports it, with its position
    body = tree.body
    binds = [_stored(s) for s in body]
    kernel = [i for i, s in enumerate(body)
              if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == kernel_name]
    if not kernel:
        return None  # defined some other way: narwhal decides
    keep = set(kernel)
    for i, s in enumerate(body):
        if isinstance(s, ast.ImportFrom) and (s.module == "__future__" or any(a.name == "*" for a in s.names)):
            keep.add(i)
    need = set(roots)
    for i in keep:
        need |= _reads(body[i])
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(body):
            if i not in keep and binds[i] & need:
                keep.add(i)
                need |= _reads(s)
                changed = True
    dropped = [body[i] for i in range(len(body)) if i not in keep]
    if not any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in dropped):
        return None
    lines = source.splitlines(True)
    kept_lines = set()
    for i in keep:
        s = body[i]
        kept_lines.update(range(_first_line(s), s.end_lineno + 1))
    out = []
    for n, line in enumerate(lines, start=1):
        if n in kept_lines:
            out.append(line)
            continue
        owner = None
        for s in dropped:
            if _first_line(s) <= n <= s.end_lineno:
                owner = s
                break
        out.append("\n" if owner is not None else line)
    return "".join(out)
