"""Keeps Python's cycle collector from re-scanning torch over and over during an export,
with the same result.

An export allocates millions of short-lived objects (FX nodes, fake tensors, the
registrations torch.export makes and undoes around every decomposition), so CPython's
collector runs its full collection (generation 2) again and again, and each one walks
every object alive in the process: torch's and ExecuTorch's modules, the user's model,
some 600,000 objects before the export has made any. On the corpus's small models those
full collections were a third of the export (21.8 s of 62.6 s for 20 exports).

fewer_full_collections() moves what is alive when the export starts out of the
collector's sight (gc.freeze: nothing there is freed or moved, it is only not scanned)
and lets a full collection come after 100 younger ones instead of 10, then undoes both.
Garbage with cycles is still collected, later; nothing the program is made from depends
on when. The programs are byte-identical with and without it (shortcuts_test).
"""

import contextlib
import gc

_FULL_COLLECTION_EVERY = 100  # generation-1 collections (CPython's default: 10)


@contextlib.contextmanager
def fewer_full_collections():
    """Within the block, the objects alive at its start are not scanned and full
    collections are ten times rarer."""
    if gc.get_freeze_count():  # already inside the block (or the host application froze)
        yield
        return
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(thresholds[0], thresholds[1], max(thresholds[2], _FULL_COLLECTION_EVERY))
    try:
        yield
    finally:
        gc.collect()  # the export's own garbage, while the rest is still out of sight
        gc.set_threshold(*thresholds)
        gc.unfreeze()
