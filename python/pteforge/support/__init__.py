"""pteforge.support: what every stage uses; imports nothing above it.

  errors     ExportError, the one exception for problems the user can fix
  failures   internal failures of torch / ExecuTorch as ExportErrors naming the method
  forked     work done in forked processes and handed back (capture, lowering)
  instructions  what each method of a program runs per call: operators, delegate calls
  quiet      what dependencies print, held back unless asked for (imports no torch)
  progress   stage timing, through the 'pteforge' logger
  spec       the plain data describing an export: methods, calls, tolerances, backends
  testing    helpers for pteforge's tests (testonly)
"""
