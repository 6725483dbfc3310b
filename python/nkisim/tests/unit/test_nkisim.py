"""nkisim's own logic against a fake narwhal (fake_narwhal.py): argument
marshalling, the dotted-name search, output naming, in-place writes, error
mapping, finding narwhal, the dtype stand-in and the shadow modules' names.

Run from python/nkisim with PYTHONPATH=. (python -m unittest discover -s
tests/unit, or python -m pytest tests/unit). Needs numpy only.
"""
import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import nkisim  # noqa: E402
from nkisim import _dtypes, _runner  # noqa: E402

import fake_kernels as fk  # noqa: E402
import neuronxcc.nki.isa as nisa  # noqa: E402
import neuronxcc.nki.language as nl  # noqa: E402


def write_script(path, body):
    with open(path, "w") as f:
        f.write("#!%s\n%s" % (sys.executable, body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class FakeNarwhalCase(unittest.TestCase):
    """Points NARWHAL at the fake and gives each test a log and a plan."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.fake = os.path.join(self.tmp.name, "narwhal")
        with open(os.path.join(HERE, "fake_narwhal.py")) as f:
            write_script(self.fake, f.read())
        self.log = os.path.join(self.tmp.name, "log.jsonl")
        saved = {k: os.environ.get(k) for k in
                 ("NARWHAL", "FAKE_NARWHAL_LOG", "FAKE_NARWHAL_PLAN", "NKISIM_FLAGS",
                  "NEURON_PLATFORM_TARGET_OVERRIDE", "NKISIM_KEEP", "PATH")}

        def restore():
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

        self.addCleanup(restore)
        os.environ["NARWHAL"] = self.fake
        os.environ["FAKE_NARWHAL_LOG"] = self.log
        for k in ("NKISIM_FLAGS", "NEURON_PLATFORM_TARGET_OVERRIDE", "NKISIM_KEEP"):
            os.environ.pop(k, None)
        self.plan("")

    def plan(self, src):
        os.environ["FAKE_NARWHAL_PLAN"] = src

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def last(self):
        return self.calls()[-1]

    def argv(self, kernel, *args, **kwargs):
        """The narwhal argv of a call, without running it (Kernel.command)."""
        return kernel.command(args, kwargs, self.tmp.name)[0]

    def flag(self, argv, name):
        return [argv[i + 1] for i, a in enumerate(argv) if a == name]


class TestKernel_Marshal(FakeNarwhalCase):
    def test_arrays_by_parameter_name(self):
        a = np.ones((2, 3), np.float32)
        b = np.full((2, 3), 2, np.float32)
        c = np.zeros((2, 3), np.float32)
        self.assertIsNone(fk.add_out(a, b=b, c=c))
        call = self.last()
        argv = call["argv"]
        # fake_kernels.py imports numpy, which add_out does not need: narwhal
        # gets the kernel's slice, a same-named copy, and the original's
        # directory as --path.
        self.assertEqual(argv[0], "run")
        self.assertNotEqual(argv[1], os.path.abspath(fk.__file__))
        self.assertEqual(os.path.basename(argv[1]), "fake_kernels.py")
        self.assertEqual(argv[2:4], ["--kernel", "add_out"])
        self.assertEqual(self.flag(argv, "--path"), [HERE])
        self.assertEqual(sorted(call["inputs"]), ["a", "b", "c"])
        self.assertEqual(call["inputs"]["a"][0], "<f4")
        self.assertEqual(self.flag(argv, "--arg"), [])
        self.assertEqual(self.flag(argv, "--grid"), [])

    def test_parameter_named_file(self):
        x = np.arange(4, dtype=np.int32)
        out = np.zeros(4, np.int32)
        self.plan("outputs['out'] = inputs['file'] * 3")
        fk.file(x, out)
        np.testing.assert_array_equal(out, x * 3)

    def test_literal_args(self):
        x = np.zeros(2, np.float32)
        cases = [
            (dict(scale=3), "scale=3"),
            (dict(scale=1e-5), "scale=1e-05"),
            (dict(scale=-2.5), "scale=-2.5"),
            (dict(scale=np.float32(0.5)), "scale=0.5"),
            (dict(scale=np.int64(7)), "scale=7"),
            (dict(scale=True), "scale=True"),
            (dict(shape=(3, 4)), "shape=(3, 4)"),
            (dict(shape=(3,)), "shape=(3,)"),
            (dict(shape=[1, (2, None)]), "shape=[1, (2, None)]"),
            (dict(name="x'y"), "name=\"x'y\""),
            (dict(name=None), "name=None"),
            (dict(shape={"a": 1}), "shape={'a': 1}"),
        ]
        for kwargs, want in cases:
            with self.subTest(kwargs=kwargs):
                self.assertEqual(self.flag(self.argv(fk.with_options, x, **kwargs), "--arg"), [want])
        fk.with_options(x, scale=3, shape=(3, 4))  # and through a run
        self.assertEqual(self.flag(self.last()["argv"], "--arg"), ["scale=3", "shape=(3, 4)"])

    def test_defaults_are_left_to_narwhal(self):
        fk.with_options(np.zeros(2, np.float32))
        self.assertEqual(self.flag(self.last()["argv"], "--arg"), [])

    def test_dotted_names_resolve_in_the_kernel_module(self):
        x = np.zeros(2, np.float32)
        g = vars(fk)
        cases = [
            ("op", nl.add, "nl.add"),
            ("op", np.add, "np.add"),
            ("op", nl.multiply, "mul_op"),
            ("cmd", nisa.reduce_cmd.reset, "nisa.reduce_cmd.reset"),
            ("op", fk.helper_fn, "helper_fn"),
            ("dtype", nl.float32, None),
            ("dtype", np.dtype(np.float16), None),
            ("dtype", nl.bfloat16, "nl.bfloat16"),
            ("scale", fk.SCALE, "2.0"),
        ]
        for param, value, want in cases:
            with self.subTest(param=param, value=value):
                (arg,) = self.flag(self.argv(fk.with_options, x, **{param: value}), "--arg")
                name, expr = arg.split("=", 1)
                self.assertEqual(name, param)
                if want is not None:
                    self.assertEqual(expr, want)
                got = eval(expr, dict(g))  # what narwhal resolves in the module namespace
                if isinstance(value, (np.dtype, type)):
                    self.assertEqual(np.dtype(got), np.dtype(value))
                    self.assertEqual(_dtypes.standin_name(np.dtype(got)),
                                     _dtypes.standin_name(np.dtype(value)))
                else:
                    self.assertIs(got, value) if not isinstance(value, float) else self.assertEqual(got, value)

    def test_unnameable_args_are_a_type_error(self):
        x = np.zeros(2, np.float32)
        for value in (lambda t: t, object(), float("nan"), float("inf"), (1, object()), np.linalg.norm):
            with self.subTest(value=value):
                with self.assertRaises(TypeError) as cm:
                    fk.with_options(x, op=value)
                self.assertIn("with_options, argument op=", str(cm.exception))
                self.assertIn("dotted", str(cm.exception))

    def test_array_likes_other_than_ndarray_are_refused(self):
        class Tensor:  # a torch.Tensor-like: shape and __array__
            shape = (2,)

            def __array__(self, dtype=None):
                return np.zeros(2)

        with self.assertRaisesRegex(TypeError, "numpy.ndarray, not Tensor"):
            fk.add_out(np.zeros(2), Tensor(), np.zeros(2))

    def test_python_binding_errors(self):
        with self.assertRaises(TypeError):
            fk.add_out(np.zeros(1), np.zeros(1))  # c missing
        with self.assertRaises(TypeError):
            fk.add_out(np.zeros(1), np.zeros(1), np.zeros(1), d=1)
        with self.assertRaisesRegex(TypeError, r"\*xs is not supported"):
            fk.varargs(np.zeros(1))
        with self.assertRaisesRegex(TypeError, "module-level functions"):
            fk.make_nested()(np.zeros(1))
        self.assertEqual(self.calls() if os.path.exists(self.log) else [], [])

    def test_grid(self):
        x = np.zeros(2, np.float32)
        fk.with_options[2, 3](x)
        self.assertEqual(self.flag(self.last()["argv"], "--grid"), ["2,3"])
        fk.with_options[4](x)
        self.assertEqual(self.flag(self.last()["argv"], "--grid"), ["4"])
        nkisim.simulate_kernel(fk.add_out[np.int64(2), 1], x, x, x)
        self.assertEqual(self.flag(self.last()["argv"], "--grid"), ["2,1"])
        for bad in (0, -1, "2", 1.5, True, nl.nc):
            with self.subTest(grid=bad), self.assertRaises(TypeError):
                fk.with_options[bad]

    def test_package_root_is_a_path(self):
        import fakepkg.kern as kern

        kern.packaged(np.zeros(1, np.float32))
        self.assertEqual(self.flag(self.last()["argv"], "--path"), [HERE])
        import clean_kernels

        clean_kernels.copy(np.zeros(1, np.float32))
        argv = self.last()["argv"]
        self.assertEqual(argv[1], os.path.abspath(clean_kernels.__file__))  # as it is
        self.assertEqual(self.flag(argv, "--path"), [])

    def test_environment_flags(self):
        os.environ["NKISIM_FLAGS"] = "--max-instructions 99 --seed 3"
        os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = "trn2"
        fk.add_out(np.zeros(1), np.zeros(1), np.zeros(1))
        argv = self.last()["argv"]
        self.assertEqual(self.flag(argv, "--arch"), ["trn2"])
        self.assertEqual(argv[-4:], ["--max-instructions", "99", "--seed", "3"])


class TestKernel_Outputs(FakeNarwhalCase):
    def test_return(self):
        self.plan("outputs['return'] = inputs['x'] + 1")
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(fk.bare(x), x + 1)

    def test_tuple_return(self):
        self.plan("for i in range(11): outputs['return%d' % i] = np.full(2, i, np.int32)")
        r = fk.two_results(np.zeros(2), np.zeros(2))
        self.assertIsInstance(r, tuple)
        self.assertEqual([int(v[0]) for v in r], list(range(11)))  # return10 after return9

    def test_written_parameter_in_place(self):
        self.plan("outputs['c'] = inputs['a'] + inputs['b']")
        a, b = np.ones((2, 2), np.float32), np.full((2, 2), 3, np.float32)
        c = np.zeros((2, 2), np.float32)
        view = c[:]
        self.assertIsNone(fk.add_out(a, b, c))
        np.testing.assert_array_equal(c, a + b)
        self.assertIs(view.base, c)  # the caller's buffer itself was written
        np.testing.assert_array_equal(view, a + b)

    def test_unwritten_parameter_untouched(self):
        self.plan("outputs['return'] = inputs['a']")
        c = np.full(3, 7.0, np.float32)
        fk.add_out(np.zeros(3, np.float32), np.zeros(3, np.float32), c)
        np.testing.assert_array_equal(c, [7, 7, 7])

    def test_bool_parameter(self):
        self.plan("outputs['c'] = np.array([1, 0, 1], np.uint8)")
        c = np.zeros(3, np.bool_)
        fk.add_out(np.zeros(3), np.zeros(3), c)
        np.testing.assert_array_equal(c, [True, False, True])

    def test_mismatches(self):
        cases = [
            ("outputs['c'] = np.zeros((3, 2), np.float32)", "shape"),
            ("outputs['c'] = np.zeros((2, 3), np.int32)", "as int32"),
            ("outputs['zzz'] = np.zeros(1)", "neither a return value"),
            ("outputs['return'] = np.zeros(1); outputs['return0'] = np.zeros(1)", "both"),
            ("outputs['return1'] = np.zeros(1)", "not return0"),
        ]
        for plan, want in cases:
            with self.subTest(plan=plan):
                self.plan(plan)
                c = np.zeros((2, 3), np.float32)
                with self.assertRaises(nkisim.OutputError) as cm:
                    fk.add_out(np.zeros(1), np.zeros(1), c)
                self.assertIn(want, str(cm.exception))

    def test_no_outputs(self):
        self.assertIsNone(fk.bare(np.zeros(1)))

    def test_kernel_prints_are_forwarded_summary_lines_dropped(self):
        printed = ("input  x  float32 [2 3]  /t/in.npz:x\n"
                   "value of y: [0.]\n"
                   "output return  float32 [2 3]  sha256:24c6071569866356  /t/out.npz:return\n"
                   "input  is a word a kernel may print\n")
        self.plan("stdout = %r" % printed)
        for verbose, want in (("", "value of y: [0.]\ninput  is a word a kernel may print\n"),
                              ("1", printed)):
            with self.subTest(verbose=verbose):
                os.environ["NKISIM_VERBOSE"] = verbose
                self.addCleanup(os.environ.pop, "NKISIM_VERBOSE", None)
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    fk.bare(np.zeros(1))
                self.assertEqual(buf.getvalue(), want)


class TestKernel_Entrypoints(FakeNarwhalCase):
    def setUp(self):
        super().setUp()
        self.plan("outputs['return'] = inputs['x'] * 2")
        self.x = np.arange(3, dtype=np.float32)

    def test_each_entry_point_runs_the_kernel(self):
        runs = {
            "call": lambda: fk.bare(self.x),
            "jit(f)": lambda: fk.wrapped(self.x),
            "jit()": lambda: fk.two_results(x=self.x, y=self.x),
            "simulate_kernel": lambda: nkisim.simulate_kernel(fk.with_options, self.x),
            "simulate_kernel plain": lambda: nkisim.simulate_kernel(fk.plain, self.x),
            "simulate": lambda: nkisim.simulate(fk.bare)(self.x),
            "nki.simulate": lambda: __import__("nki").simulate(fk.bare[2])(self.x),
            "benchmark": lambda: fk.bench(self.x),
            "profile": lambda: fk.prof(self.x),
        }
        for name, run in runs.items():
            with self.subTest(name):
                out = run()
                if name != "jit()":
                    np.testing.assert_array_equal(out, self.x * 2)
                self.assertEqual(self.last()["argv"][0], "run")

    def test_modes(self):
        self.assertEqual(fk.with_options.mode, "simulation")
        self.assertEqual(fk.bare.mode, "baremetal")
        with self.assertRaisesRegex(ValueError, "mode='gpu'"):
            nkisim.jit(fk.plain, mode="gpu")
        self.assertEqual(fk.bare.__name__, "bare")
        self.assertIs(fk.wrapped.__wrapped__, fk.plain)

    def test_benchmark_result_has_no_latency(self):
        fk.bench(self.x)
        with self.assertRaisesRegex(NotImplementedError, "no device latency"):
            fk.bench.benchmark_result.nc_latency.get_latency_percentile(50)


class TestRunner_Errors(FakeNarwhalCase):
    def fail_with(self, status, line):
        self.plan("status = %d; stderr = %r" % (status, line + "\n"))

    def test_positioned_error(self):
        self.fail_with(1, "narwhal run: error[NW422]: /k/kernel.py:12:5: nl.load: the tile has 200 "
                          "partitions (max 128) (narwhal explain NW422)")
        with self.assertRaises(nkisim.NarwhalError) as cm:
            fk.bare(np.zeros(1))
        e = cm.exception
        self.assertIsInstance(e, RuntimeError)
        self.assertEqual((e.code, e.file, e.line, e.column), ("NW422", "/k/kernel.py", 12, 5))
        self.assertEqual(e.message, "nl.load: the tile has 200 partitions (max 128)")
        self.assertIsNone(e.kind)
        self.assertNotIsInstance(e, AssertionError)
        self.assertIn("error[NW422]", str(e))

    def test_kernel_assertion_is_an_assertion_error(self):
        self.fail_with(1, "narwhal run: error[NW420]: k.py:3:4: AssertionError: a.shape == b.shape")
        with self.assertRaises(AssertionError) as cm:
            fk.bare(np.zeros(1))
        e = cm.exception
        self.assertIsInstance(e, nkisim.NarwhalError)
        self.assertEqual((e.code, e.kind, e.line), ("NW420", "AssertionError", 3))
        self.fail_with(1, "narwhal run: error[NW420]: k.py:3:4: ValueError: bad")
        with self.assertRaises(ValueError):
            fk.bare(np.zeros(1))
        self.fail_with(1, "narwhal run: error[NW420]: k.py:3:4: FileNotFoundError: x")
        with self.assertRaises(nkisim.NarwhalError) as cm:
            fk.bare(np.zeros(1))
        self.assertEqual(cm.exception.kind, "FileNotFoundError")  # OSError's lay-out: not mixed

    def test_unpositioned_and_internal(self):
        self.fail_with(1, "narwhal run: error[NW502]: input a: want float32[2], got int32[3]")
        with self.assertRaises(nkisim.NarwhalError) as cm:
            fk.bare(np.zeros(1))
        self.assertEqual((cm.exception.code, cm.exception.file), ("NW502", None))
        self.fail_with(2, "narwhal: internal error[NW900], a bug in narwhal: boom")
        with self.assertRaises(nkisim.NarwhalInternalError) as cm:
            fk.bare(np.zeros(1))
        self.assertEqual(cm.exception.code, "NW900")
        self.fail_with(3, "segfault")
        with self.assertRaisesRegex(nkisim.NarwhalError, "status 3: segfault"):
            fk.bare(np.zeros(1))


class TestRunner_FindNarwhal(FakeNarwhalCase):
    def test_order(self):
        self.assertEqual(nkisim.find_narwhal(), self.fake)
        os.environ["NARWHAL"] = os.path.join(self.tmp.name, "missing")
        with self.assertRaisesRegex(nkisim.NarwhalNotFoundError, "not an executable"):
            nkisim.find_narwhal()
        del os.environ["NARWHAL"]
        bindir = os.path.join(self.tmp.name, "bin")
        os.mkdir(bindir)
        write_script(os.path.join(bindir, "narwhal"), "")
        os.environ["PATH"] = bindir
        self.assertEqual(nkisim.find_narwhal(), os.path.join(bindir, "narwhal"))

    def test_build_from_checkout(self):
        root = _runner.repository_root()
        self.assertIsNotNone(root, "nkisim should sit in a narwhal checkout")
        self.assertTrue(os.path.isfile(os.path.join(root, "cmd", "narwhal", "main.go")))
        # A fake `go` on an otherwise empty PATH records how it is called.
        del os.environ["NARWHAL"]
        bindir = os.path.join(self.tmp.name, "gobin")
        os.mkdir(bindir)
        record = os.path.join(self.tmp.name, "go.json")
        write_script(os.path.join(bindir, "go"),
                     "import json, os, sys\n"
                     "out = sys.argv[sys.argv.index('-o') + 1]\n"
                     "open(out, 'w').write('#!/bin/sh\\n')\n"
                     "os.chmod(out, 0o755)\n"
                     "json.dump({'argv': sys.argv[1:], 'cwd': os.getcwd()}, open(%r, 'w'))\n" % record)
        os.environ["PATH"] = bindir
        cache = os.path.join(self.tmp.name, "cache")
        os.environ["NKISIM_CACHE_DIR"] = cache
        self.addCleanup(os.environ.pop, "NKISIM_CACHE_DIR", None)
        _runner._built.clear()
        self.addCleanup(_runner._built.clear)
        path = nkisim.find_narwhal()
        with open(record) as f:
            rec = json.load(f)
        self.assertEqual(rec["argv"], ["build", "-o", path, "./cmd/narwhal"])
        self.assertEqual(os.path.realpath(rec["cwd"]), os.path.realpath(root))
        self.assertTrue(path.startswith(cache))
        os.remove(record)
        self.assertEqual(nkisim.find_narwhal(), path)  # once per process
        self.assertFalse(os.path.exists(record))


class TestDtypes_Standin(FakeNarwhalCase):
    def test_bfloat16_bits(self):
        x = np.array([1.0, -2.0, 1.00390625, 1.01171875, 3.4e38, np.inf, 0.0, -0.0], np.float32)
        # 1+2^-8 ties to even (1.0); 1+3*2^-8 ties up to 1+2^-6; 3.4e38 overflows to Inf
        want = [0x3F80, 0xC000, 0x3F80, 0x3F82, 0x7F80, 0x7F80, 0x0000, 0x8000]
        self.assertEqual(_dtypes.bfloat16_bits(x).tolist(), want)
        nan = _dtypes.bfloat16_bits(np.array([np.nan], np.float32))
        self.assertTrue(np.isnan(_dtypes.bfloat16_values(nan))[0])
        np.testing.assert_array_equal(_dtypes.bfloat16_values(np.array(want[:4], np.uint16)),
                                      [1.0, -2.0, 1.0, 1.015625])

    def test_fp8_codes(self):
        cases = {
            "float8_e4m3fn": [(448, 0x7E), (464, 0x7E), (465, 0x7F), (2.0 ** -9, 0x01),
                              (-1.0, 0xB8), (0.0, 0x00), (1.0625, 0x38), (1.1875, 0x3A)],
            "float8_e4m3": [(240, 0x77), (247, 0x77), (248, 0x78), (np.inf, 0x78), (1.0, 0x38),
                            (-2.0 ** -9, 0x81)],
            "float8_e5m2": [(57344, 0x7B), (61440, 0x7C), (1.0, 0x3C), (2.0 ** -16, 0x01)],
        }
        for name, pairs in cases.items():
            with self.subTest(name):
                xs = np.array([p[0] for p in pairs], np.float32)
                self.assertEqual([hex(c) for c in _dtypes.minifloat_codes(name, xs)],
                                 [hex(p[1]) for p in pairs])
                codes = np.arange(256, dtype=np.uint8)
                vals = _dtypes.minifloat_values(name, codes)
                finite = np.isfinite(vals)
                back = _dtypes.minifloat_codes(name, vals[finite])
                self.assertEqual(back.tolist(), codes[finite].tolist())  # every value exact

    def test_standin_round_trip(self):
        if _dtypes.HAVE_ML_DTYPES:
            self.skipTest("ml_dtypes is importable: the stand-in is not in use")
        self.plan("outputs['return'] = inputs['x']")
        for name, wire in (("bfloat16", "|V2"), ("float8_e4m3", "[('float8_e4m3', '|V1')]"),
                           ("float8_e5m2", "[('float8_e5m2', '|V1')]")):
            with self.subTest(name):
                dt = getattr(nl, name)
                x = np.array([[1.0, 3.0e-3], [-7.3, 100.0]], np.float32).astype(dt)
                self.assertEqual(_dtypes.standin_name(x.dtype), name)
                out = fk.bare(x)
                got = self.last()["inputs"]["x"]
                self.assertIn(wire, (got[0], got[1]))
                self.assertEqual(_dtypes.standin_name(out.dtype), name)
                self.assertEqual(out.shape, x.shape)
                self.assertEqual(out[0, 0], 1.0)
                self.assertNotEqual(out[1, 0], np.float32(-7.3))  # rounded to the format
                self.assertLess(abs(out[1, 0] + 7.3), 0.3)

    def test_standin_output_parameter(self):
        if _dtypes.HAVE_ML_DTYPES:
            self.skipTest("ml_dtypes is importable")
        self.plan("outputs['c'] = np.array([0x3F80, 0x4000], np.uint16).view('<V2')")
        c = np.zeros(2, nl.bfloat16)
        fk.add_out(np.zeros(2), np.zeros(2), c)
        np.testing.assert_array_equal(c, [1.0, 2.0])
        with self.assertRaisesRegex(nkisim.OutputError, "as bfloat16"):
            fk.add_out(np.zeros(2), np.zeros(2), np.zeros(2, np.float32))


INLINE_TEST_FILE = """\
import os
import unittest
import numpy as np
import pytest
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from helpers import tile_of
from neuronxcc.nki.language import *

TILE = 128
data = np.random.rand(TILE)  # test data: not the kernel's
unused = os.getcwd()


def helper(t):
    def inner():
        return nl.exp(t) * SCALE  # SCALE: a global read only in a nested function
    x = inner()
    np = x  # a local, not the module's np
    return np


SCALE = 2.0


@nki.jit(mode="simulation")
def kernel(a, op=None):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, helper(tile_of(a, TILE)))
    return out


@pytest.mark.parametrize("n", [1, 2])
def test_kernel(n):
    np.testing.assert_allclose(kernel(data), data)


class TestKernel(unittest.TestCase):
    def test_it(self):
        kernel(data)


if __name__ == "__main__":
    unittest.main()
"""


class TestSlice_Source(unittest.TestCase):
    def kept(self, sliced):
        return [line for line in sliced.splitlines() if line.strip()]

    def test_test_file_keeps_only_the_kernels_slice(self):
        from nkisim._slice import slice_source

        sliced = slice_source(INLINE_TEST_FILE, "kernel")
        self.assertIsNotNone(sliced)
        self.assertEqual(sliced.count("\n"), INLINE_TEST_FILE.count("\n"))
        orig = INLINE_TEST_FILE.splitlines()
        for n, line in enumerate(sliced.splitlines()):
            self.assertIn(line, ("", orig[n]))  # every kept line at its own place
        kept = "\n".join(self.kept(sliced))
        for want in ("import neuronxcc.nki as nki", "import neuronxcc.nki.language as nl",
                     "from helpers import tile_of", "from neuronxcc.nki.language import *",
                     "TILE = 128", "def helper(t):", "SCALE = 2.0", "def kernel(a, op=None):"):
            self.assertIn(want, kept)
        for gone in ("import unittest", "import pytest", "import os", "import numpy", "data =",
                     "unused =", "parametrize", "class TestKernel", "unittest.main"):
            self.assertNotIn(gone, kept)

    def test_arg_roots_keep_their_imports(self):
        from nkisim._slice import slice_source

        sliced = slice_source(INLINE_TEST_FILE, "kernel", roots={"np"})
        self.assertIn("import numpy as np", sliced)
        self.assertNotIn("import pytest", sliced)

    def test_files_that_need_all_their_imports_go_as_they_are(self):
        from nkisim._slice import slice_source

        with open(os.path.join(HERE, "clean_kernels.py")) as f:
            self.assertIsNone(slice_source(f.read(), "copy"))
        self.assertIsNone(slice_source("def k(x):\n    return x\n", "k"))
        self.assertIsNone(slice_source("import a\nk = a.jit(lambda x: x)\n", "k"))  # not a def
        self.assertIsNone(slice_source("def k(:\n", "k"))  # narwhal reports the syntax error


class TestSlice_Call(FakeNarwhalCase):
    def test_test_file_kernel_and_error_positions(self):
        d = os.path.join(self.tmp.name, "suite")
        os.mkdir(d)
        with open(os.path.join(d, "test_inline.py"), "w") as f:
            f.write(INLINE_TEST_FILE)
        with open(os.path.join(d, "helpers.py"), "w") as f:
            f.write("def tile_of(a, n):\n    return a\n")
        import importlib.util

        spec = importlib.util.spec_from_file_location("test_inline", os.path.join(d, "test_inline.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, d)
        self.addCleanup(sys.path.remove, d)
        spec.loader.exec_module(mod)
        x = np.zeros(4, np.float32)
        mod.kernel(x, op=mod.np.add)
        call = self.last()
        traced = call["argv"][1]
        self.assertNotEqual(traced, os.path.join(d, "test_inline.py"))
        self.assertEqual(os.path.basename(traced), "test_inline.py")
        self.assertEqual(self.flag(call["argv"], "--path"), [d])
        self.assertEqual(self.flag(call["argv"], "--arg"), ["op=np.add"])
        self.assertIn("import numpy as np", call["source"])  # op=np.add needs np
        self.assertNotIn("import pytest", call["source"])
        # narwhal's error about the copy names the original file
        store = 1 + [ln.strip() for ln in INLINE_TEST_FILE.splitlines()].index(
            "nl.store(out, helper(tile_of(a, TILE)))")
        self.plan("status = 1; stderr = 'narwhal run: error[NW422]: %%s:%d:5: nl.store: bad\\n' %% file" % store)
        with self.assertRaises(nkisim.NarwhalError) as cm:
            mod.kernel(x)
        e = cm.exception
        self.assertEqual((e.file, e.line, e.column), (os.path.join(d, "test_inline.py"), store, 5))
        self.assertIn("%s:%d:5" % (os.path.join(d, "test_inline.py"), store), str(e))
        self.assertNotIn("nkisim-", str(e) + e.stderr)
        self.assertEqual(call["source"].splitlines()[store - 1].strip(),
                         "nl.store(out, helper(tile_of(a, TILE)))")  # the copy's line is the same


class TestNames(unittest.TestCase):
    def test_values_outside_kernels(self):
        import neuronxcc.nki as nki
        import nki as nki2
        import nki.isa as nisa2
        import nki.language as nl2
        import nki.typing as nt

        for m in (nl, nl2):
            self.assertIs(m.float32, np.float32)
            self.assertIs(m.int32, np.int32)
            self.assertIs(m.uint8, np.uint8)
            self.assertEqual(np.dtype(m.float16), np.float16)
            self.assertEqual(np.zeros(2, m.bfloat16).dtype.itemsize, 2 if _dtypes.HAVE_ML_DTYPES else 4)
            self.assertEqual((m.tile_size.pmax, m.tile_size.psum_fmax, m.tile_size.gemm_stationary_fmax,
                              m.tile_size.gemm_moving_fmax, m.tile_size.bn_stats_fmax), (128, 512, 128, 512, 512))
            self.assertEqual(m.par_dim(128), 128)
            self.assertEqual(np.zeros((m.par_dim(4), 2)).shape, (4, 2))
        self.assertIs(nki.language, nl)
        self.assertIs(nki2.language, nl2)
        self.assertEqual([e.name for e in nisa2.reduce_cmd],
                         ["idle", "reset", "reduce", "reset_reduce", "load_reduce"])
        self.assertIs(nisa2.tensor_engine, nisa2.engine.tensor)
        self.assertEqual(repr(nt.tensor[128, 512]), "nt.tensor[(128, 512)]")

        class Helper(nl2.NKIObject):
            pass

        self.assertTrue(issubclass(Helper, nl2.NKIObject))

    def test_kernel_only_names(self):
        from neuronxcc.nki.language import some_future_op  # not listed: made on demand

        self.assertIs(nl.some_future_op, some_future_op)
        for use in (lambda: nl.affine_range(4), lambda: nl.mgrid[0:4], lambda: list(nl.arange),
                    lambda: nisa.nc_matmul(1, 2), lambda: some_future_op(),
                    lambda: __import__("neuronxcc.nki.compiler").nki.compiler.sbuf.mod_alloc(base_addr=0)):
            with self.assertRaises(nkisim.KernelOnlyError) as cm:
                use()
            self.assertIn("runs only inside an NKI kernel", str(cm.exception))
        with self.assertRaises(AttributeError):
            nl._private
        with self.assertRaises(AttributeError):
            nl.add.__name__
        self.assertIn("nl.affine_range", str(cm.exception) + "nl.affine_range")

    def test_compiler_decorators_pass_through(self):
        import neuronxcc.nki.compiler as ncc

        self.assertIs(ncc.skip_middle_end_transformations(fk.bare), fk.bare)
        self.assertIs(ncc.enable_stack_allocator()(fk.plain), fk.plain)


if __name__ == "__main__":
    unittest.main()
