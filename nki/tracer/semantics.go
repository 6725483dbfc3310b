package tracer

// Semantics: where the tracer departs from CPython 3.11 (the reference),
// by decision. Everything not listed behaves as CPython does, down to the
// words of error messages; the corpus test (testdata/py, compared with
// CPython) shows it.
//
// Not supported, as a NotSupported error (NW421) naming the construct and
// carrying its position: match statements, async def/for/with and await,
// except*, complex numbers and bytes, metaclasses other than type,
// ABCMeta and EnumMeta, classes defining __getattribute__, super() with
// one argument, generator.throw(), open/input/eval/exec/compile/
// __import__, range bounds beyond 64 bits, enum.Flag and the functional
// Enum API, the parts of os and sys that touch the machine, and the
// standard-library modules the tracer does not provide (math, functools,
// itertools, operator, copy, typing, typing_extensions, abc, collections,
// collections.abc, dataclasses, enum, warnings, os, os.path, sys,
// numbers, builtins) unless the Importer serves them.
//
// Different by decision:
//   - A set iterates in insertion order (CPython: hash-table order).
//   - globals(), locals() and vars() return snapshots, not live views.
//   - print() writes to Thread.Print whatever file= says;
//     warnings.warn records Thread.Warnings() and prints nothing;
//     os.environ is empty and os.getenv returns its default, so that a
//     trace never depends on the machine.
//   - A generator dropped before its end, or closed, ends without running
//     its finally blocks (CPython raises GeneratorExit in it).
//   - Exceptions have no __context__, __cause__ or __traceback__ (None);
//     the *Error carries the traceback as data instead.
//   - functools.lru_cache and cache memoize without bound.
//   - copy.deepcopy shares values of the NKI API (tensors, tiles).
//   - __slots__ does not restrict attributes; __del__ never runs.
//   - An int's decimal conversion longer than 4,300 digits is CPython's
//     ValueError in str(), repr(), format() and f-strings, but not inside
//     a container's repr.
//   - Trace limits (ThreadOptions): the step budget is a LimitExceeded
//     error (NW421) no except clause catches; the call depth is
//     RecursionError; containers, strings, generated values and ints
//     (bits) beyond MaxSize are MemoryError, so hostile programs end
//     quickly.
//   - NKI errors (NKIError, NW422), NotSupported and LimitExceeded are not
//     Python exceptions: no except clause catches them, and neither they
//     nor a *NeedConcrete run finally blocks or __exit__ while unwinding.
//   - Annotations: evaluated where CPython evaluates them (parameters,
//     returns, module and class variables; not local variables), and not
//     at all under `from __future__ import annotations` (dataclasses then
//     see the annotation's source text, as CPython's do).
