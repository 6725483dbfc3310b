"""The fused normalization + matmul + activation kernel and its config."""
