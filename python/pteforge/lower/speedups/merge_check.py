"""Makes XNNPACK's partition merging cheaper, with the same answers.

XNNPACK's partitioner (ExecuTorch's GroupBasedPartitioner) tries to merge every pair of
its candidate partitions and, for each pair, asks whether merging would create a cycle:
does a node outside the pair, fed by it, feed back into it? It answers by walking every
such node's whole downstream set (a transitive closure, up to the whole graph) looking
for a node of the pair. With hundreds of partitions in a language model's prefill, that
walk was 70% of lowering a SmolLM2-135M-sized model.

The same question is answered here by intersecting the downstream set with the pair's
nodes from whichever side is smaller (set.isdisjoint), then the same final check
(torch's validate_partition). The answer to every pair is the same, so the partitions
and the program are too (shortcuts_test). It replaces ExecuTorch's method only when
that method's source is the one this was written against (ExecuTorch 1.5.1).
"""

from __future__ import annotations

import contextlib

from pteforge.lower.speedups.source_patch import replaced_if_known

# sha256 of GroupBasedPartitioner._can_merge_partitions' source (ExecuTorch 1.5.1), first 16 digits.
_KNOWN_SOURCE = "08428a6ba5abd129"


def _can_merge_partitions(self, p1, p2, partitions_by_id) -> bool:
    """GroupBasedPartitioner._can_merge_partitions: whether merging partitions p1 and p2
    keeps the graph acyclic."""
    from torch.fx.passes.utils.fuser_utils import validate_partition

    combined = set(partitions_by_id[p1].nodes.keys()) | set(partitions_by_id[p2].nodes.keys())
    for node in combined:
        for user in node.users:
            if user not in combined and not combined.isdisjoint(self.dependency_viewer.downstreams_of(user)):
                return False  # a path leaves the pair and comes back
    return validate_partition(list(combined))


@contextlib.contextmanager
def faster_merge_checks():
    """Within the block, XNNPACK's partitioner checks merges with _can_merge_partitions."""
    try:
        from executorch.exir.backend.canonical_partitioners.group_partitioner import GroupBasedPartitioner
    except ImportError:
        yield
        return
    # Another ExecuTorch, or already inside the block: left as it is.
    with replaced_if_known(GroupBasedPartitioner, "_can_merge_partitions", _can_merge_partitions, _KNOWN_SOURCE):
        yield
