try:
    import no_such_module_xyz
except ModuleNotFoundError as e:
    print(type(e).__name__, e)
try:
    from math import nope
except ImportError as e:
    print(type(e).__name__)
import math as m, itertools
from os.path import join as pjoin
print(m.floor(2.5), pjoin("a", "b"), itertools.__name__)
import collections.abc
print(isinstance([], collections.abc.Sequence), isinstance({}, collections.abc.Mapping), isinstance(3, collections.abc.Iterable))
import no_such_module_abc
