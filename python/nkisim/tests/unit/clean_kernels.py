"""A kernel file whose every import the kernel needs: nkisim hands it to
narwhal as it is (no slice, no --path)."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def copy(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(x))
    return out
