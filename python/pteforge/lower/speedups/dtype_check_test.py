"""metadata_dtype_check: ExecuTorch's dtype check gives the same answers without
running the graph (shortcuts_test: exports are byte-identical with and without it)."""

import pytest
import torch
from executorch.exir import EdgeCompileConfig, to_edge
from executorch.exir.verification import verifier
from executorch.exir.verification.verifier import SpecViolationError

from pteforge.lower.speedups import dtype_check
from pteforge.support import testing


def _edge_graph(function, *args):
    class Method(torch.nn.Module):
        def forward(self, *inputs):
            return function(*inputs)

    program = torch.export.export(Method(), args)
    return to_edge(program, compile_config=EdgeCompileConfig(_check_ir_validity=False)).exported_program().graph_module


def _answer(graph):
    try:
        verifier._check_tensor_args_matching_op_allowed_dtype(graph)
        return None
    except SpecViolationError as error:
        return str(error)


def test_a_violation_is_found_with_the_same_message():
    # int64 softmax: torch computes it, ExecuTorch's kernels take floating point only.
    graph = _edge_graph(lambda x: torch.softmax(x, -1) + 1, torch.ones(3, 3, dtype=torch.int64))
    expected = _answer(graph)
    assert expected and "softmax" in expected
    with dtype_check.metadata_dtype_check():
        assert _answer(graph) == expected


def test_valid_graphs_pass_and_no_operator_runs(monkeypatch):
    graph = _edge_graph(lambda x, y: torch.softmax(x @ y, -1).sum(0), torch.ones(4, 3), torch.ones(3, 5))
    assert _answer(graph) is None
    ran = []
    run = torch.fx.Interpreter.call_function

    def counting(self, target, args, kwargs):
        ran.append(target)
        return run(self, target, args, kwargs)

    monkeypatch.setattr(torch.fx.Interpreter, "call_function", counting)
    with dtype_check.metadata_dtype_check():
        assert _answer(graph) is None
    assert ran == []
    assert _answer(graph) is None  # ExecuTorch's own check again: it runs them
    assert ran


def test_restored_after_the_block():
    before = verifier.EdgeOpArgValidator
    with dtype_check.metadata_dtype_check():
        assert verifier.EdgeOpArgValidator is not before
    assert verifier.EdgeOpArgValidator is before


if __name__ == "__main__":
    testing.main(__file__)
