"""Canonical dump of CPython's ast, for python/syntax's comparison test.

Reads a JSON list of jobs on stdin, each {"name": ..., "path": FILE} or
{"name": ..., "src": TEXT} (with "mode": "eval" for an expression, whose
body is dumped), parses each with ast.parse (bytes from a file, text as
given) and writes a JSON list of results: {"name", "dump"} or
{"name", "error": {"kind", "msg", "line", "offset"}}. The dump format is the
one python/syntax's Dump writes (see dump.go): one node or field per line,
one space of indentation per level, CPython's _fields in order without
type_comment, type_ignores and type_params, positions after the names of
nodes whose _attributes have them. It walks _fields itself so that it is
stable across Python versions (ast.dump's format is not).
"""

import ast
import json
import sys
import warnings

SKIP = {"type_comment", "type_ignores", "type_params"}


def quote_str(s):
    out = []
    for c in s:
        if " " <= c <= "~" and c not in "\\'":
            out.append(c)
        else:
            out.append("\\u{%x}" % ord(c))
    return "'" + "".join(out) + "'"


def quote_bytes(b):
    out = []
    for c in b:
        if 0x20 <= c < 0x7F and c not in b"\\'":
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "b'" + "".join(out) + "'"


def scalar(v):
    if v is None:
        return "None"
    if v is True:
        return "True"
    if v is False:
        return "False"
    if v is Ellipsis:
        return "..."
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, complex):
        return repr(v.real) + "+" + repr(v.imag) + "j"
    if isinstance(v, str):
        return quote_str(v)
    if isinstance(v, bytes):
        return quote_bytes(v)
    raise TypeError(type(v).__name__)


def dump(node, out, depth, prefix):
    ind = " " * depth
    if isinstance(node, ast.AST):
        pos = ""
        if "lineno" in node._attributes:
            pos = " %d:%d-%d:%d" % (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        out.append(ind + prefix + type(node).__name__ + pos)
        for f in node._fields:
            if f in SKIP:
                continue
            dump(getattr(node, f, None), out, depth + 1, f + ": ")
    elif isinstance(node, list):
        if not node:
            out.append(ind + prefix + "[]")
            return
        out.append(ind + prefix + "[")
        for x in node:
            dump(x, out, depth + 1, "")
        out.append(ind + "]")
    else:
        out.append(ind + prefix + scalar(node))


def main():
    # Deprecation and syntax warnings (invalid escapes, 1if) are not errors.
    warnings.simplefilter("ignore")
    jobs = json.load(sys.stdin)
    results = []
    for job in jobs:
        r = {"name": job["name"]}
        try:
            if "path" in job:
                with open(job["path"], "rb") as f:
                    src = f.read()
            else:
                src = job["src"]
            out = []
            if job.get("mode") == "eval":
                dump(ast.parse(src, mode="eval").body, out, 0, "")
            else:
                dump(ast.parse(src), out, 0, "")
            r["dump"] = "\n".join(out) + "\n"
        except SyntaxError as e:
            r["error"] = {"kind": type(e).__name__, "msg": e.msg, "line": e.lineno, "offset": e.offset}
        except (ValueError, RecursionError, MemoryError) as e:
            r["error"] = {"kind": type(e).__name__, "msg": str(e), "line": 0, "offset": 0}
        results.append(r)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
