"""pteforge.lower.speedups: the exporter's shortcuts, speed-ups inside torch's and
ExecuTorch's passes that leave every byte of the program as it was. shortcuts.py turns
them on (PTEFORGE_EXPORT_SHORTCUTS=0 turns them off); source_patch.py is the guard they
share: a method of torch or ExecuTorch is replaced only when its source is the one the
shortcut was written for.
"""
