"""pteforge.capture: each method through torch.export, with what tracing needs.

  capture            traces one method and explains its failures
  parallel_capture   a large module's methods captured in forked processes
  arguments          the flat inputs named by their path in the arguments, size bounds
  dynamic_slices     slices of dynamic size traced to work up to the full size
  graph_repairs      graphs functionalization would otherwise get wrong
  written_arguments  arguments a method writes, returned for the caller
  signature          the user-visible inputs and outputs of a traced method
"""
