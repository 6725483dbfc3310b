"""nki.isa for test code, from nkisim (package nkisim._api says what each
name is outside a kernel)."""

from nkisim import _api
from nkisim._names import module_getattr as _module_getattr

globals().update(_api.isa(__name__, current=True))
__all__ = sorted(n for n in list(globals()) if not n.startswith("_"))
__getattr__ = _module_getattr(__name__, globals())
