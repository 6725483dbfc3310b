"""The gated MLP (SwiGLU) kernel and its config."""
