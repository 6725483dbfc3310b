"""The kernel-side names of the shadow modules, as plain Python sees them.

A kernel file imports neuronxcc.nki.language (or nki.language) at module
level and uses its names inside kernels; the kernels themselves never run
in CPython here (narwhal traces the file). So most names only need to
exist, be importable, compare by identity (an ``op=nl.add`` argument is
sent to narwhal as the dotted name ``nl.add``), and fail clearly when plain
Python calls them:

* KernelOnly is such a name. Calling it, indexing it or iterating it
  raises KernelOnlyError, which says that the name runs only inside a
  kernel traced by narwhal. Attribute access gives a child KernelOnly
  (``ncc.sbuf.mod_alloc``), cached so identity holds; private and dunder
  attributes do not exist (tools such as pytest probe for them).
* module_getattr gives a shadow module a PEP 562 ``__getattr__`` that makes
  a KernelOnly for any public name the module does not define, cached in
  the module. A name NKI has and this package does not list still imports
  (``from neuronxcc.nki.language import some_new_op``); narwhal decides
  whether the kernel may use it. Dunder and private names are not made up.
* Namespace is a read-only object of fixed attributes (nl.tile_size,
  nl.fp32, nisa.nc_version in the legacy API).
* Annotation is an nki.typing name: indexable and callable at function
  definition time (``def k(a: nt.tensor[128, 512])``).
* passthrough is a decorator that leaves its function as it is
  (ncc.skip_middle_end_transformations and friends, which stack with
  @nki.jit at import time).
"""


class KernelOnlyError(RuntimeError):
    """A kernel-side NKI name was used by plain Python, outside a kernel."""


class KernelOnly:
    """A name that only has meaning inside a kernel traced by narwhal."""

    def __init__(self, qualname, display):
        object.__setattr__(self, "_qualname", qualname)  # neuronxcc.nki.language.add
        object.__setattr__(self, "_display", display)  # nl.add
        object.__setattr__(self, "_children", {})

    def _fail(self, what):
        raise KernelOnlyError(
            "%s %s outside a kernel: %s runs only inside an NKI kernel, which "
            "narwhal traces (call the @nki.jit kernel with numpy arrays; "
            "nkisim runs it with `narwhal run`)" % (what, self._display, self._display)
        )

    def __call__(self, *args, **kwargs):
        self._fail("called")

    def __getitem__(self, key):
        self._fail("indexed")

    def __iter__(self):
        self._fail("iterated over")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        children = object.__getattribute__(self, "_children")
        if name not in children:
            children[name] = KernelOnly(self._qualname + "." + name, self._display + "." + name)
        return children[name]

    def __setattr__(self, name, value):
        raise AttributeError("%s is read-only" % self._display)

    def __repr__(self):
        return "<NKI kernel-side name %s>" % self._qualname


# Short names NKI's documentation uses for its modules, for messages.
_DISPLAY = {
    "neuronxcc.nki": "nki",
    "neuronxcc.nki.language": "nl",
    "neuronxcc.nki.isa": "nisa",
    "neuronxcc.nki.compiler": "ncc",
    "neuronxcc.nki.typing": "nt",
    "nki.language": "nl",
    "nki.isa": "nisa",
    "nki.compiler": "ncc",
    "nki.typing": "nt",
    "nki.collectives": "ncol",
}


def display_name(modname, name):
    return _DISPLAY.get(modname, modname) + "." + name


def kernel_only(modname, names):
    """A dict of KernelOnly values for names of module modname."""
    return {n: KernelOnly(modname + "." + n, display_name(modname, n)) for n in names}


def module_getattr(modname, module_globals):
    """A PEP 562 __getattr__ for a shadow module: unknown public names become
    cached KernelOnly values."""

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError("module %r has no attribute %r" % (modname, name))
        value = KernelOnly(modname + "." + name, display_name(modname, name))
        module_globals[name] = value
        return value

    return __getattr__


class Namespace:
    """A read-only object of fixed attributes."""

    def __init__(self, display, **attrs):
        object.__setattr__(self, "_display", display)
        for k, v in attrs.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError("%s is read-only" % self._display)

    def __repr__(self):
        return "<%s>" % self._display


class Annotation:
    """An nki.typing name: usable in annotations, which CPython evaluates
    when the def statement runs."""

    def __init__(self, display):
        self._display = display

    def __getitem__(self, key):
        return Annotation("%s[%r]" % (self._display, key))

    def __call__(self, *args, **kwargs):
        return Annotation(self._display + "(...)")

    def __repr__(self):
        return self._display


def passthrough(display):
    """A decorator (with or without parentheses) that returns its function."""

    def deco(fn=None, *args, **kwargs):
        if fn is None or not callable(fn) or args or kwargs:
            return lambda f: f
        return fn

    deco.__name__ = display.rsplit(".", 1)[-1]
    deco.__qualname__ = deco.__name__
    return deco


def par_dim(size):
    """nl.par_dim(n): the partition-dimension marker of a shape. Outside a
    kernel it is the int n itself (test code may build shapes with it)."""
    return ParDim(size)


class ParDim(int):
    def __repr__(self):
        return "nl.par_dim(%d)" % int(self)
