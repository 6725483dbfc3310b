"""nkisim's stand-in for the Neuron compiler package: only neuronxcc.nki
exists, and its kernels run through `narwhal run` (docs/nki-simulator.md)."""
