"""Makes torch's node provenance cheaper to record, with the same provenance.

Every pass that re-traces a graph (each of ExecuTorch's and XNNPACK's ExportPasses,
every run_decompositions) records, for each node it creates, where it came from:
a NodeSource naming the node it replaced, which holds that node's own provenance. torch
deep-copies that earlier provenance into every new NodeSource, so a node's record grows
by one level per pass and each pass copies all of it again: quadratic in the number of
passes. On a SmolLM2-135M-sized export that copying was a tenth of the lowering (32 s).

The earlier records are never changed after they are made (passes replace a node's
`from_node` list; they do not edit the NodeSources in it), so the new record can refer
to them instead of copying them. It holds the same values, and ExecuTorch's debug
handles, read from the oldest ancestor, are the same: the programs are byte-identical
with and without it (shortcuts_test). It replaces torch's method only when that
method's source is the one this was written against (torch 2.13).
"""

from __future__ import annotations

import contextlib

from pteforge.lower.speedups.source_patch import replaced_if_known

# sha256 of NodeSource.__init__'s source (torch 2.13), first 16 digits.
_KNOWN_SOURCE = "99395e7f40a4a049"


def _init(self, node, pass_name: str = "", action=None) -> None:
    """NodeSource.__init__, referring to the node's earlier provenance instead of
    deep-copying it."""
    from torch.fx.traceback import NodeSourceAction

    self.pass_name = pass_name
    if action is None:
        action = []
    elif not isinstance(action, list):
        action = [action]
    for a in action:
        if not isinstance(a, NodeSourceAction):
            raise AssertionError(f"Expected NodeSourceAction, got {type(a)}")
    self.action = action
    if node:
        self.node_info = self.NodeInfo(name=node.name, target=str(node.target), graph_id=id(node.graph))
        self.from_node = list(node.meta["from_node"]) if "from_node" in node.meta else []
    else:
        self.node_info = None
        self.from_node = []
    self._action_string = None
    self._dict = None


@contextlib.contextmanager
def shared_provenance():
    """Within the block, a new NodeSource shares the provenance it extends."""
    from torch.fx.traceback import NodeSource

    # Another torch, or already inside the block: left as it is.
    with replaced_if_known(NodeSource, "__init__", _init, _KNOWN_SOURCE):
        yield
