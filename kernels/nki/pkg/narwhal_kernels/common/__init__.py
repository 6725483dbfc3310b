"""Modules shared by the package's kernels: enums and helpers."""
