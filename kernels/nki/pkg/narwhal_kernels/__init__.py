"""narwhal_kernels: a multi-file NKI kernel package of narwhal's own, in the
shape of nki-library (a kernel module per kernel, a dataclass config module
beside it, shared helper and enum modules), written for the current `nki`
API to exercise what production kernels need from a front end: imports
between the package's modules (absolute and relative), classes with
methods, dataclasses with defaults and __post_init__, enum.Enum,
nl.NKIObject subclasses, staticmethods and properties, isinstance,
`is` / `is not`, list and dict methods, exceptions with messages and
typing annotations.

Layout (the package root, kernels/nki/pkg, is the --path of the CLI and
frontend.Options.Path):

  narwhal_kernels/common/enums.py      ActivationKind, NormKind, MaskKind
  narwhal_kernels/common/helpers.py    tiling, DMA and transpose helpers,
                                       the SBUF budget, KernelConfigError
  narwhal_kernels/fused/config.py      FusedConfig (a dataclass)
  narwhal_kernels/fused/norm_matmul.py fused_norm_matmul: norm -> matmul ->
                                       bias -> activation (-> residual)
  narwhal_kernels/mlp/config.py        MlpConfig (a dataclass)
  narwhal_kernels/mlp/swiglu.py        gated_mlp: (act(x @ wg) * (x @ wu)) @ wd
  narwhal_kernels/attention/config.py  AttentionConfig (a dataclass)
  narwhal_kernels/attention/flash.py   flash_attention: blockwise attention
                                       with an online softmax

Part of narwhal's own current-API NKI suite (kernels/nki/README.md);
checked against kernels/nki/refgen.py.
"""

__version__ = "1.0"
