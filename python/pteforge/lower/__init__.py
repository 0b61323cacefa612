"""pteforge.lower: from traced methods to edge dialect, with what each backend
delegates (lowering.py).

  lowering           to_edge_and_lower: edge dialect and delegation
  parallel_lowering  the methods lowered in forked processes, the same bytes
  partitioners       XNNPACK kept from taking state as constant data
  xnnpack_means      means over the last dimension in a form XNNPACK delegates
  xnnpack_reshapes   reshapes of a dynamic size in a form XNNPACK delegates
  fold               constant subgraphs folded on the portable kernels
  quantize           int8 and int4 weights for XNNPACK, applied to a module before export
  speedups/          the export-time shortcuts (byte-preserving)
"""
