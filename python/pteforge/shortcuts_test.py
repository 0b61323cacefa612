"""The exporter's shortcuts: programs byte-identical with and without them
(PTEFORGE_EXPORT_SHORTCUTS=0), and XNNPACK re-traces skipped only after a pass that
changed nothing."""

import pytest
import torch
from executorch.backends.xnnpack import _passes as xnnpack_passes
from executorch.backends.xnnpack._passes import XNNPACKPass, XNNPACKPassManager
from executorch.exir import to_edge
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import ExportPass

from models.cache_model import make_exporter as make_cache_exporter
from models.stateful import make_exporter as make_stateful_exporter
from pteforge import shortcuts, testing, xnnpack_retraces


# XNNPACK exports: both shortcuts act there (a portable export only meets the cache).
@pytest.mark.parametrize("make_exporter", [make_stateful_exporter, make_cache_exporter])
def test_export_is_byte_identical_without_the_shortcuts(monkeypatch, make_exporter):
    with_shortcuts = make_exporter().export(backend="xnnpack").data
    monkeypatch.setenv(shortcuts.SWITCH, "0")
    without = make_exporter().export(backend="xnnpack").data
    assert with_shortcuts == without


class _Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


def _edge_program():
    program = torch.export.export(_Add(), (torch.ones(2, 3), torch.ones(2, 3)))
    return to_edge(program).exported_program()


_ADD = exir_ops.edge.aten.add.Tensor
_SUB = exir_ops.edge.aten.sub.Tensor


class _FindsNothing(XNNPACKPass):
    def call(self, graph_module):
        return super().call(graph_module)


class _EditsThenRetraces(XNNPACKPass):
    def call(self, graph_module):
        for node in graph_module.graph.nodes:
            if node.target == _ADD:
                node.target = _SUB
        graph_module.recompile()
        return super().call(graph_module)


class _RewritesWhileRetracing(ExportPass):
    def call_operator(self, op, args, kwargs, meta):
        return super().call_operator(_SUB if op == _ADD else op, args, kwargs, meta)


def _run(passes, monkeypatch):
    """The targets of the result and how many re-traces ran."""
    program = _edge_program()
    retraces = []
    original = ExportPass.call_submodule

    def counted(self, graph_module, inputs):
        retraces.append(type(self).__name__)
        return original(self, graph_module, inputs)

    monkeypatch.setattr(ExportPass, "call_submodule", counted)
    with xnnpack_retraces.skip_unchanged_retraces():
        program = XNNPACKPassManager(program, passes=passes).transform()
    targets = [node.target for node in program.graph.nodes if node.op == "call_function"]
    return targets, retraces


def test_a_pass_that_changed_nothing_is_not_retraced(monkeypatch):
    targets, retraces = _run([_FindsNothing], monkeypatch)
    assert targets == [_ADD] and retraces == []


def test_a_pass_that_edited_the_graph_is_retraced(monkeypatch):
    targets, retraces = _run([_EditsThenRetraces], monkeypatch)
    assert targets == [_SUB] and retraces == ["_EditsThenRetraces"]


def test_a_pass_that_rewrites_while_retracing_always_runs(monkeypatch):
    targets, retraces = _run([_RewritesWhileRetracing], monkeypatch)
    assert targets == [_SUB] and retraces == ["_RewritesWhileRetracing"]


def test_everything_is_restored_after_the_block():
    call, transform = ExportPass.call, xnnpack_passes._transform
    with xnnpack_retraces.skip_unchanged_retraces():
        assert ExportPass.call is not call and xnnpack_passes._transform is not transform
    assert ExportPass.call is call and xnnpack_passes._transform is transform


if __name__ == "__main__":
    testing.main(__file__)
