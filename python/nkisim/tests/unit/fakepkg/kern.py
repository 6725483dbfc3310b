"""A kernel inside a package: nkisim passes --path with the package's root."""
import nki


@nki.jit
def packaged(x):
    return x
