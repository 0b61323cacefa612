"""Skips two of ExecuTorch's decompositions of a method when they have nothing to do,
with the same program: the last one, and the first when the method is functional already.

to_edge_transform_and_lower decomposes each method lowered to a partitioner that keeps
some operators whole (XNNPACK keeps linear and torchao's quantization operators) three
times: it functionalizes, decomposes everything but the kept operators, marks those the
partitioner accepts (EDGE_DO_NOT_DECOMP), and decomposes once more with the whole table
so that the kept operators it declined are decomposed after all. When it declined none,
that last pass re-traces the whole graph and changes nothing: on the int8 Bergamot
export, 14 s of encode's 38 s of decompositions (131 s serial). ExecuTorch skips the
equivalent pass on its other branch when none of the table's operators occur, but with
dynamic shapes that check never passes: the table names aten.sym_size.int, which every
such graph has and which decomposes into itself.

skip_redundant_decompositions() skips that pass when the graph holds no operator of the
table but size queries, and no CompositeImplicitAutograd operator torch could decompose
(it decomposes those whatever the table, unless told to keep them). The programs are
byte-identical with and without it (shortcuts_test). If ExecuTorch changes the function
this relies on, it does nothing.

The first of the three passes only functionalizes (an empty table). pteforge's capture
functionalized every method already (capture.py: that is how it learns the state a method
writes), so this pass re-traces a graph with no in-place operator and nothing to
decompose, and gives the same graph back: 9-10 s of SmolLM2-135M-Instruct's float32
prefill lowering. Within to_edge_transform_and_lower, it is skipped when no node writes
in place, none is a higher-order operator and none would be decomposed anyway.
"""

import contextlib
import operator

import torch

_MARK = "_pteforge_ops_marked_not_to_decompose"
_KEPT_NAMESPACE = "EDGE_DO_NOT_DECOMP"


def _is_size_query(target: torch._ops.OpOverload) -> bool:
    """sym_size and the like: in the default table, but traced into themselves again."""
    returns = [str(value.type) for value in target._schema.returns]
    return bool(returns) and all(kind in ("SymInt", "int") for kind in returns)


def _decomposes_anyway(target) -> bool:
    """A CompositeImplicitAutograd operator torch may keep when told to and otherwise
    decomposes, whatever the table: one the previous pass kept that the last pass would
    decompose. (Not so for an empty table, which keeps them all: _functional_already.)"""
    from torch._export.utils import _is_preservable_cia_op

    return target.namespace != _KEPT_NAMESPACE and _is_preservable_cia_op(target)


def _needs_decomposing(node: torch.fx.Node, table) -> bool:
    if node.op != "call_function":
        return False
    # Edge operators wrap the ATen one, which the tables name.
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        target = getattr(target, "_op", None)
    if not isinstance(target, torch._ops.OpOverload) or _is_size_query(target):
        return False
    return target in table or _decomposes_anyway(target)


def _nothing_to_decompose(program: torch.export.ExportedProgram, table) -> bool:
    """No node, control-flow branches included, that the pass would change."""
    from executorch.exir.graph_module import bfs_trace_with_node_process

    if table is None:
        return False
    found = []
    bfs_trace_with_node_process(program.graph_module, lambda node: found.append(_needs_decomposing(node, table)))
    return not any(found)


def _changed_by_functionalizing(node: torch.fx.Node) -> bool:
    """A node run_decompositions({}) rewrites: an operator that writes in place, one
    torch decomposes even when told to keep everything (a CompositeImplicitAutograd
    operator it cannot keep), or a higher-order operator (control flow, functionalization
    wrappers), left to the pass. Size arithmetic and getitem pass through unchanged."""
    from torch._export.utils import _is_cia_op, _is_preservable_cia_op

    if node.op == "call_module":
        return True
    if node.op != "call_function":
        return False
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.is_mutable or (_is_cia_op(target) and not _is_preservable_cia_op(target))
    return getattr(target, "__module__", None) != operator.getitem.__module__  # "_operator"


def _functional_already(program: torch.export.ExportedProgram, table, args, kwargs) -> bool:
    """run_decompositions({}) would only re-trace `program` into the same graph. (An
    empty table keeps every operator torch can keep; the tables ExecuTorch builds compare
    equal to {} too, hence the type.)"""
    if type(table) is not dict or table or args or kwargs:
        return False
    return not any(_changed_by_functionalizing(node) for node in program.graph.nodes)


@contextlib.contextmanager
def skip_redundant_decompositions():
    """Within the block, the decomposition that follows ExecuTorch's marking of the kept
    operators is skipped when it has nothing to decompose, and within
    to_edge_transform_and_lower, functionalizing a method that is functional already."""
    try:
        from executorch.exir.graph_module import bfs_trace_with_node_process  # noqa: F401
        from executorch.exir.program import _program
        from torch._export.utils import _is_preservable_cia_op  # noqa: F401
    except ImportError:  # another torch or ExecuTorch: no shortcut
        yield
        return
    mark = getattr(_program, "_replace_aten_ops_with_transformed_ops", None)
    if mark is None or getattr(mark, "_pteforge_wrapper", False):
        yield  # another ExecuTorch, or already inside the block
        return
    decompose = torch.export.ExportedProgram.run_decompositions
    edge_manager = getattr(_program, "_gen_edge_manager_for_partitioners", None)
    if edge_manager is None:
        yield
        return
    lowering = []  # non-empty while ExecuTorch prepares a method for its partitioners

    def marking(name, program, partitioner):
        kept = mark(name, program, partitioner)
        setattr(program, _MARK, True)
        return kept

    def for_partitioners(*args, **kwargs):
        lowering.append(True)
        try:
            return edge_manager(*args, **kwargs)
        finally:
            lowering.pop()

    def run_decompositions(self, decomp_table=None, *args, **kwargs):
        if lowering and _functional_already(self, decomp_table, args, kwargs):
            return self
        if getattr(self, _MARK, False):
            delattr(self, _MARK)
            if not args and not kwargs and _nothing_to_decompose(self, decomp_table):
                return self
        return decompose(self, decomp_table, *args, **kwargs)

    marking._pteforge_wrapper = True
    _program._replace_aten_ops_with_transformed_ops = marking
    _program._gen_edge_manager_for_partitioners = for_partitioners
    torch.export.ExportedProgram.run_decompositions = run_decompositions
    try:
        yield
    finally:
        _program._replace_aten_ops_with_transformed_ops = mark
        _program._gen_edge_manager_for_partitioners = edge_manager
        torch.export.ExportedProgram.run_decompositions = decompose
