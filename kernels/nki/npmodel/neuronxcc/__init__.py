"""A numpy model of the legacy neuronxcc.nki API, for checking narwhal's NKI
suite only (kernels/nki/npmodel/README text in model.py). Not the Neuron SDK."""
