import neuronxcc.nki as nki

@nki.jit
def broken(a:
    return a
