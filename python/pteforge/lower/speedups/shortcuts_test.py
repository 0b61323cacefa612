"""The exporter's shortcuts: programs byte-identical with and without them
(PTEFORGE_EXPORT_SHORTCUTS=0), XNNPACK re-traces skipped only after a pass that changed
nothing, ExecuTorch's first and last decompositions skipped only when they have nothing
to do, its edge rewrites fused into two re-traces with the same result, partition
fusing sorting the graph in place exactly as torch's legalize_graph would, node
provenance shared and equal to what torch records, torch's py_impl rebuilt from its own
source without evaluating annotations, and the collector's settings restored."""

import contextlib

import pytest
import torch
from executorch.backends.xnnpack import _passes as xnnpack_passes
from executorch.backends.xnnpack._passes import XNNPACKPass, XNNPACKPassManager
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import ExportPass

from models.cache_model import make_exporter as make_cache_exporter
from models.stateful import make_exporter as make_stateful_exporter
from pteforge.lower.speedups import (fused_edge_passes, fusion_sort, garbage_collection, lazy_annotations, merge_check,
                                     node_provenance, quantization_shapes, redundant_decompositions, shortcuts,
                                     source_patch, xnnpack_retraces)
from pteforge.support import testing


class _Int8Accumulator(torch.nn.Module):
    """total += int8 linear(x): torchao's quantization operators, which XNNPACK keeps whole."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(16, 16)
        with torch.no_grad():  # the same weights in both exports
            self.layer.weight.copy_(torch.linspace(-1, 1, 256).reshape(16, 16))
            self.layer.bias.copy_(torch.linspace(-0.5, 0.5, 16))
        self.register_buffer("total", torch.zeros(2, 16))

    def step(self, x):
        self.total.add_(self.layer(x))
        return self.total.clone()


class _CutChain(torch.nn.Module):
    """Linear layers and scalings between cumulative sums and flips, which XNNPACK
    leaves to the portable kernels: at least ten partitions, fused one after the other
    (fusion_sort), some of which XNNPACK's partitioner may merge and some not."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(5))
        with torch.no_grad():
            for index, layer in enumerate(self.layers):
                layer.weight.copy_(torch.linspace(-1, 1, 256).reshape(16, 16) * (index + 1) / 4)
                layer.bias.fill_(0.1 * index)
        self.register_buffer("total", torch.zeros(8, 16))

    def step(self, x):
        n = x.shape[0]
        for layer in self.layers:
            y = layer(x)
            x = (y.cumsum(1) * 0.25).flip(1) + y * 0.5
        self.total[:n].add_(x)
        return self.total.clone()


def _make_cut_chain_exporter():
    from torch.export import Dim

    from pteforge import MultiMethodExporter

    exporter = MultiMethodExporter(_CutChain().eval(), name="cut_chain")
    exporter.method("step", (torch.ones(3, 16),), dynamic_shapes=({0: Dim("n", min=1, max=8)},))
    return exporter


class _Int4Stack(torch.nn.Module):
    """Four alike 4-bit linear layers over a dynamic number of rows: the same
    quantization calls, shapes and all, again and again (quantization_shapes)."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(64, 64) for _ in range(4))
        with torch.no_grad():
            for index, layer in enumerate(self.layers):
                layer.weight.copy_(torch.linspace(-1, 1, 64 * 64).reshape(64, 64).roll(index, 1))
                layer.bias.fill_(0.05 * index)
        self.register_buffer("total", torch.zeros(8, 64))

    def step(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        self.total[: x.shape[0]].add_(x)
        return self.total.clone()


def _make_int4_stack_exporter():
    from torch.export import Dim

    from pteforge import MultiMethodExporter
    from pteforge.lower import quantize

    module = quantize.int4_linears(_Int4Stack().eval())
    exporter = MultiMethodExporter(module, name="int4_stack")
    exporter.method("step", (torch.ones(3, 64),), dynamic_shapes=({0: Dim("n", min=1, max=8)},))
    return exporter


def _make_int8_exporter():
    from pteforge import MultiMethodExporter
    from pteforge.lower import quantize

    module = _Int8Accumulator().eval()
    quantize.int8_linears(module)
    exporter = MultiMethodExporter(module, name="int8_accumulator")
    exporter.method("step", (torch.ones(2, 16),))
    exporter.call_sequence([("step", (torch.ones(2, 16),)), ("step", (torch.full((2, 16), 0.5),))])
    return exporter


# XNNPACK exports: all shortcuts act there (a portable export only meets the cache); the
# int8 one has the kept operators whose last decomposition is skipped, the cut chain
# many partitions to fuse.
@pytest.mark.parametrize("make_exporter", [make_stateful_exporter, make_cache_exporter, _make_int8_exporter,
                                           _make_cut_chain_exporter, _make_int4_stack_exporter])
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


def test_the_upsampling_pass_is_skipped_on_a_graph_without_upsampling(monkeypatch):
    from executorch.backends.xnnpack._passes.convert_to_upsample_bilinear2d import ConvertToUpsampleBilinear2d
    from executorch.backends.xnnpack.partition.graphs import bilinear_2d

    def never():
        raise AssertionError("the upsampling patterns were built")

    monkeypatch.setattr(bilinear_2d, "get_graphs_dict", never)
    targets, retraces = _run([ConvertToUpsampleBilinear2d], monkeypatch)
    assert targets == [_ADD] and retraces == []


def test_everything_is_restored_after_the_block():
    call, transform = ExportPass.call, xnnpack_passes._transform
    with xnnpack_retraces.skip_unchanged_retraces():
        assert ExportPass.call is not call and xnnpack_passes._transform is not transform
    assert ExportPass.call is call and xnnpack_passes._transform is transform


def _shuffled_graph_module() -> torch.fx.GraphModule:
    """A graph with several users per node, whose nodes are out of topological order
    (what fusing a partition leaves): each call node moved to the end in turn."""

    class Branches(torch.nn.Module):
        def forward(self, x, y):
            a = x + y
            b = a * 2
            c = a - x
            d = torch.relu(b) + c
            return d * a, c + y

    module = torch.fx.symbolic_trace(Branches())
    calls = [node for node in module.graph.nodes if node.op == "call_function"]
    output = next(node for node in module.graph.nodes if node.op == "output")
    for node in calls[:3]:
        output.append(node)  # after the output: its users now come before it
    return module


def test_in_place_sort_is_torchs_legalize_graph():
    from torch.fx.passes.tools_common import legalize_graph

    expected = legalize_graph(_shuffled_graph_module())
    sorted_here = _shuffled_graph_module()
    fusion_sort.sort_in_place(sorted_here.graph)
    sorted_here.recompile()

    def shape(module):
        return [(node.name, [user.name for user in node.users]) for node in module.graph.nodes]

    assert shape(sorted_here) == shape(expected)
    assert sorted_here.code == expected.code
    x, y = torch.randn(3), torch.randn(3)
    torch.testing.assert_close(sorted_here(x, y), expected(x, y))


def test_partition_fusing_sorts_in_place_and_restores_everything(monkeypatch):
    from executorch.exir import lowered_backend_module
    from executorch.exir.backend import backend_api

    sorted_in_place = []
    sort = fusion_sort.sort_in_place
    monkeypatch.setattr(fusion_sort, "sort_in_place", lambda graph: sorted_in_place.append(graph) or sort(graph))
    loop, legalize = backend_api._create_partitions_in_graph_module, lowered_backend_module.legalize_graph
    with fusion_sort.sorted_in_place_while_fusing():
        _make_cut_chain_exporter().export(backend="xnnpack")
        assert backend_api._create_partitions_in_graph_module is not loop
    # One in-place sort per partition fused (where torch's legalize_graph copied the graph).
    assert len(sorted_in_place) >= 10
    assert backend_api._create_partitions_in_graph_module is loop
    assert lowered_backend_module.legalize_graph is legalize


def test_merge_checks_answer_as_executorchs(monkeypatch):
    """Every merge question XNNPACK's partitioner asks on the cut chain gets the same
    answer from merge_check as from ExecuTorch's own method."""
    from executorch.exir.backend.canonical_partitioners.group_partitioner import GroupBasedPartitioner

    theirs = GroupBasedPartitioner._can_merge_partitions
    answers = []

    def both(self, p1, p2, partitions_by_id):
        answers.append((theirs(self, p1, p2, partitions_by_id), merge_check._can_merge_partitions(
            self, p1, p2, partitions_by_id)))
        return answers[-1][0]

    monkeypatch.setattr(GroupBasedPartitioner, "_can_merge_partitions", both)
    _make_cut_chain_exporter().export(backend="xnnpack")
    assert answers and all(a == b for a, b in answers)
    assert {a for a, _ in answers} == {True, False}  # both answers were exercised
    assert source_patch.source_digest(theirs) == merge_check._KNOWN_SOURCE


class _Linear(torch.nn.Module):
    """A linear layer XNNPACK keeps whole (its weight a parameter), or one it declines
    (the weight an input), which the last decomposition must then decompose."""

    def __init__(self, weight_is_input: bool):
        super().__init__()
        self.weight_is_input = weight_is_input
        self.layer = torch.nn.Linear(4, 3)

    def forward(self, x, weight):
        return torch.nn.functional.linear(x, weight if self.weight_is_input else self.layer.weight) + 1


_LINEAR_EXAMPLE = (torch.ones(2, 4), torch.ones(3, 4))


def _lower(module: torch.nn.Module, example: tuple, monkeypatch, skip: bool):
    """The lowered graph and how many decompositions ran. (Bytes are compared on whole
    exports: to_edge alone names constants differently on every call.)"""
    program = torch.export.export(module, example)
    calls = []
    original = torch.export.ExportedProgram.run_decompositions

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", counted)
    with redundant_decompositions.skip_redundant_decompositions() if skip else contextlib.nullcontext():
        lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    return lowered.exported_program().graph_module.code, len(calls)


@pytest.mark.parametrize("weight_is_input", [False, True])
def test_the_last_decomposition_runs_only_when_needed(monkeypatch, weight_is_input):
    _lower(_Linear(weight_is_input), _LINEAR_EXAMPLE, monkeypatch, skip=False)  # XNNPACK traces its pattern graphs on first use
    with_skip, fewer = _lower(_Linear(weight_is_input), _LINEAR_EXAMPLE, monkeypatch, skip=True)
    without, calls = _lower(_Linear(weight_is_input), _LINEAR_EXAMPLE, monkeypatch, skip=False)
    assert with_skip == without
    # The first pass (functionalizing a functional graph) is skipped in both cases. Kept
    # whole: nothing left to decompose either, one pass fewer. Declined: it runs.
    assert fewer == (calls - 1 if weight_is_input else calls - 2)


class _InPlaceRelu(torch.nn.Module):
    """relu_(linear(x)): a graph torch.export leaves with an in-place write."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 3)

    def forward(self, x):
        y = self.layer(x)
        y.relu_()
        return y


def test_a_graph_that_writes_in_place_is_functionalized(monkeypatch):
    # The decompositions that run are the same with and without the shortcut, save the
    # last (the linear layer is kept whole): the first one has a relu_ to functionalize.
    with_skip, fewer = _lower(_InPlaceRelu(), (torch.ones(2, 4),), monkeypatch, skip=True)
    without, calls = _lower(_InPlaceRelu(), (torch.ones(2, 4),), monkeypatch, skip=False)
    assert with_skip == without
    assert fewer == calls - 1


def test_the_decomposition_shortcut_is_undone_after_the_block():
    from executorch.exir.program import _program

    run, mark = torch.export.ExportedProgram.run_decompositions, _program._replace_aten_ops_with_transformed_ops
    with redundant_decompositions.skip_redundant_decompositions():
        assert torch.export.ExportedProgram.run_decompositions is not run
    assert torch.export.ExportedProgram.run_decompositions is run
    assert _program._replace_aten_ops_with_transformed_ops is mark


def _provenance(shared: bool) -> list:
    """Each node's recorded provenance after to_edge's passes, without the graph ids
    (addresses, which differ from run to run)."""
    from torch.fx.traceback import preserve_node_meta

    def without_graph_ids(record: dict) -> dict:
        return {**{k: v for k, v in record.items() if k not in ("graph_id", "from_node")},
                "from_node": [without_graph_ids(earlier) for earlier in record["from_node"]]}

    with node_provenance.shared_provenance() if shared else contextlib.nullcontext(), preserve_node_meta():
        program = _edge_program()
    return [(node.name, [without_graph_ids(source.to_dict()) for source in node.meta.get("from_node", [])])
            for node in program.graph.nodes]


def _depth(records: list) -> int:
    return max((1 + _depth(record["from_node"]) for record in records), default=0)


def test_shared_provenance_records_what_torch_records():
    shared, copied = _provenance(shared=True), _provenance(shared=False)
    assert shared == copied
    # A pass extended an earlier record: there was something to copy.
    assert max(_depth(records) for _, records in shared) >= 2


def test_the_provenance_shortcut_is_undone_after_the_block():
    from torch.fx.traceback import NodeSource

    init = NodeSource.__init__
    with node_provenance.shared_provenance():
        assert NodeSource.__init__ is not init
    assert NodeSource.__init__ is init


def _choose_and_dequantize(x: torch.Tensor) -> tuple:
    # The overloads, as ExecuTorch's passes call them.
    ops = torch.ops.torchao
    scale, zero = ops.choose_qparams_affine.default(x, "ASYMMETRIC", [1, 64], torch.int8, -128, 127, 1e-6,
                                                    torch.float32, torch.int8)
    q = ops.quantize_affine.default(x, [1, 64], scale, zero, torch.int8, -128, 127)
    return scale, zero, ops.dequantize_affine.default(q, [1, 64], scale, zero, torch.int8, -128, 127)


def _metadata(values) -> list:
    return [(tuple(v.shape), v.stride(), v.dtype) for v in values]


def test_quantization_shapes_are_remembered_per_fake_mode():
    import torchao.quantization.quant_primitives  # noqa: F401 (registers the operators)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        x = torch.empty(5, 64)
        computed = _metadata(_choose_and_dequantize(x))
    with quantization_shapes.remembered_quantization_shapes(), FakeTensorMode() as mode:
        x = torch.empty(5, 64)
        first = _metadata(_choose_and_dequantize(x))
        second = _metadata(_choose_and_dequantize(torch.empty(5, 64)))
        remembered = dict(mode.__dict__[quantization_shapes._CACHE])
        other = _metadata(_choose_and_dequantize(torch.empty(7, 64)))
    assert first == second == computed
    assert len(remembered) == 3  # one per operator: the second round came from memory
    assert other[2][0] == (7, 64)


def test_real_tensors_and_traces_always_run_the_implementation():
    import torchao.quantization.quant_primitives  # noqa: F401
    from torch.fx.experimental.proxy_tensor import make_fx

    x = torch.linspace(-2, 2, 5 * 64).reshape(5, 64)
    expected = _choose_and_dequantize(x)
    traced = make_fx(lambda t: _choose_and_dequantize(t), tracing_mode="fake")(x).code
    with quantization_shapes.remembered_quantization_shapes():
        for got, want in zip(_choose_and_dequantize(x), expected):
            assert torch.equal(got, want)
        assert make_fx(lambda t: _choose_and_dequantize(t), tracing_mode="fake")(x).code == traced


def test_the_quantization_shortcut_is_undone_after_the_block():
    import torchao.quantization.quant_primitives  # noqa: F401
    from torch._ops import OpOverload
    from torch._subclasses import fake_impls

    op = torch.ops.torchao.dequantize_affine.default
    call, rule, key = OpOverload.__call__, fake_impls.op_implementations_dict.get(op), hash(op)
    with quantization_shapes.remembered_quantization_shapes():
        assert OpOverload.__call__ is not call
        assert hash(op) == key  # dictionaries keyed by the operator still find it
    assert OpOverload.__call__ is call and fake_impls.op_implementations_dict.get(op) is rule


def test_py_impl_registers_as_torchs_without_evaluating_annotations():
    from torch._C import DispatchKey
    from torch._ops import OperatorBase

    op = torch.ops.aten.alias.default  # a kernel for a key it has none for, removed after
    theirs = OperatorBase.py_impl
    with lazy_annotations.unevaluated_annotations():
        ours = OperatorBase.py_impl
        assert ours is not theirs and ours.__qualname__ == theirs.__qualname__
        assert ours.__code__.co_filename == theirs.__code__.co_filename
        assert ours.__code__.co_firstlineno == theirs.__code__.co_firstlineno
        key = DispatchKey.AutogradXPU
        assert key not in op.py_kernels
        try:
            kernel = lambda *args: None  # noqa: E731
            assert op.py_impl(key)(kernel) is kernel and op.py_kernels[key] is kernel
            with pytest.raises(RuntimeError, match="Trying to override a python impl"):
                op.py_impl(key)(kernel)  # torch's own check, from torch's own source
        finally:
            op.py_kernels.pop(key, None)
            op._dispatch_cache.clear()
        with lazy_annotations.unevaluated_annotations():  # nested: left as it is
            assert OperatorBase.py_impl is ours
    assert OperatorBase.py_impl is theirs


def test_a_function_that_closes_over_variables_is_not_recompiled():
    outer = 1

    def closure():
        return outer

    assert lazy_annotations.with_lazy_annotations(closure) is None
    assert lazy_annotations.with_lazy_annotations(len) is None  # no Python source


def test_the_collector_settings_are_restored_after_the_block(monkeypatch):
    import gc

    thresholds = gc.get_threshold()
    with garbage_collection.fewer_full_collections():
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[2] >= 100
        outer = gc.get_threshold()
        # Nested: left as it is. Counted as calls, not as gc.get_freeze_count(): a frozen
        # object that dies leaves the permanent generation, so the count can drop by itself.
        calls = []
        for name in ("freeze", "unfreeze", "set_threshold"):
            monkeypatch.setattr(gc, name, lambda *args, name=name: calls.append(name))
        with garbage_collection.fewer_full_collections():
            pass
        monkeypatch.undo()
        assert calls == [] and gc.get_freeze_count() > 0 and gc.get_threshold() == outer
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


def _edge_passes_run(monkeypatch, fused: bool, module: torch.nn.Module, example: tuple) -> tuple[str, list]:
    """The edge program's code, and the passes _generate_edge_program ran (by class)."""
    from torch.fx.passes.infra.pass_base import PassBase

    ran = []
    original = PassBase.__call__

    def counted(self, graph_module):
        ran.append(type(self).__name__)
        return original(self, graph_module)

    program = torch.export.export(module, example)
    with monkeypatch.context() as patch:
        patch.setattr(PassBase, "__call__", counted)
        with fused_edge_passes.fused_edge_passes() if fused else contextlib.nullcontext():
            edge = to_edge(program)  # no backend: its own passes would count too
    return edge.exported_program().graph_module.code, ran


def test_the_edge_rewrites_run_in_two_retraces(monkeypatch):
    # A scalar to make a tensor of (ScalarToTensorPass), a transpose to normalize, a
    # mixed-type add, and a linear layer XNNPACK takes.
    class _Mixed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 4)

        def forward(self, x, n):
            y = self.layer(x).transpose(0, 1) * 0.5
            return y + n.to(torch.int32), torch.clamp(y, min=-1.0)

    example = (torch.ones(4, 4), torch.ones(4, 4, dtype=torch.int32))
    fused_code, fused = _edge_passes_run(monkeypatch, True, _Mixed(), example)
    code, ran = _edge_passes_run(monkeypatch, False, _Mixed(), example)
    assert fused_code == code
    seven = {"NormalizeTransposePass", "ReplaceBrokenOpsWithFunctionalOpsPass", "ScalarToTensorPass",
             "SymToTensorPass", "RemoveMixedTypeOperators", "OpReplacePass", "MemoryFormatOpsPass"}
    assert seven <= set(ran)
    assert not seven & set(fused)
    assert sum(name.startswith("Fused") for name in fused) == 2
    assert len(fused) == len(ran) - 5


def test_edge_passes_of_another_version_run_one_at_a_time(monkeypatch):
    monkeypatch.setitem(fused_edge_passes._KNOWN_PASSES, "SymToTensorPass", "another version")
    _, ran = _edge_passes_run(monkeypatch, True, _Linear(False), _LINEAR_EXAMPLE)
    assert "SymToTensorPass" in ran
    assert "FusedNormalizeTransposePassReplaceBrokenOpsWithFunctionalOpsPassScalarToTensorPass" in ran


def test_the_edge_pass_fusion_is_undone_after_the_block():
    from executorch.exir.program import _program

    generate = _program._generate_edge_program
    with fused_edge_passes.fused_edge_passes():
        assert _program._generate_edge_program is not generate
    assert _program._generate_edge_program is generate


if __name__ == "__main__":
    testing.main(__file__)
