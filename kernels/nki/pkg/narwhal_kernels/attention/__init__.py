"""The blockwise (flash) attention kernel and its config."""
