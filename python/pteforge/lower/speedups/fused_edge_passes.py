"""Runs ExecuTorch's ATen-to-edge rewrites in two re-traces instead of seven, with the
same program.

Turning a method into edge dialect (_generate_edge_program) runs a list of passes one
after the other, and each ExportPass among them re-traces the whole method on fake
tensors, though it only rewrites single operators as they go by (call_operator):
NormalizeTransposePass, ReplaceBrokenOpsWithFunctionalOpsPass, ScalarToTensorPass,
SymToTensorPass, then, after four passes that look at the whole graph,
RemoveMixedTypeOperators, OpReplacePass and MemoryFormatOpsPass. With a symbolic token
count every re-trace recomputes each node's shapes: on the 4-bit SmolLM2-135M-Instruct
prefill each one took 5-9 s, 48 s in all.

fused_edge_passes() gives _generate_edge_program those runs as one pass each: a class
deriving from the run's passes in order, so that each one's call_operator hands its
rewrite on (super().call_operator) to the next one's, the last to ExportPass, which
traces it. Each operator meets the same rewrites in the same order as before, with the
same arguments, and is traced once. It applies only where ExecuTorch's function and
each pass are the versions it was written against (source digests, ExecuTorch 1.5.1,
passes that define nothing but call_operator and state of their own); elsewhere it does
nothing. The programs are byte-identical with and without it (shortcuts_test).
"""

from __future__ import annotations

import contextlib

from pteforge.lower.speedups.source_patch import source_digest

# sha256 of the sources (ExecuTorch 1.5.1), first 16 digits: the function that builds the
# pass list and runs it, the one that gives it the passes, and each pass that rewrites
# operators as they go by (nothing but call_operator, and state of its own).
_KNOWN_GENERATE = "231b0ef63ff582cb"
_KNOWN_EDGE_PASSES = "8661a1a814cd6423"
_KNOWN_PASSES = {
    "NormalizeTransposePass": "9eda784569a1751e",
    "ReplaceBrokenOpsWithFunctionalOpsPass": "cd77e91fb55d9f48",
    "ScalarToTensorPass": "32d6cd941c376504",
    "SymToTensorPass": "4b4f5a945e263c93",
    "RemoveMixedTypeOperators": "e6f1507618597d50",
    "OpReplacePass": "a31a8cccd25a9fc6",
    "MemoryFormatOpsPass": "38438c41e1281c84",
}


def _instance(entry):
    """The pass behind a pass list's entry (ExecuTorch's pass manager wraps them)."""
    return getattr(entry, "__wrapped__", entry)


def _known(cls: type) -> bool:
    """`cls` is the version of its pass this was written against."""
    return _KNOWN_PASSES.get(cls.__name__) == source_digest(cls)


def _fusable(entry) -> bool:
    return _known(type(_instance(entry)))


def _fuse(run: list):
    """One pass doing what the passes of `run` (fusable, in order) do, in one re-trace."""
    if len(run) == 1:
        return run[0]
    classes = tuple(type(_instance(entry)) for entry in run)
    return type("Fused" + "".join(cls.__name__ for cls in classes), classes, {})()


def _fused_runs(passes: list) -> list:
    """`passes` with each run of consecutive fusable passes made one."""
    result, run = [], []
    for entry in passes + [None]:
        if entry is not None and _fusable(entry):
            run.append(entry)
            continue
        if run:
            result.append(_fuse(run))
            run = []
        if entry is not None:
            result.append(entry)
    return result


class _Done:
    """A pass whose rewrites the fused pass before it made already."""

    def __call__(self, graph_module):
        from torch.fx.passes.infra.pass_base import PassResult

        return PassResult(graph_module, False)


@contextlib.contextmanager
def fused_edge_passes():
    """Within the block, _generate_edge_program re-traces once per run of passes that
    rewrite operators as they go by."""
    try:
        from executorch.exir.program import _program
    except ImportError:
        yield
        return
    generate = vars(_program).get("_generate_edge_program")
    if (generate is None or source_digest(generate) != _KNOWN_GENERATE
            or source_digest(_program._get_aten_to_edge_passes) != _KNOWN_EDGE_PASSES):
        yield  # another ExecuTorch, or already inside the block
        return
    edge_passes, op_replace, memory_format = (
        _program._get_aten_to_edge_passes, _program.OpReplacePass, _program.MemoryFormatOpsPass)
    tail_fusable = _known(op_replace) and _known(memory_format)

    def generate_edge_program(config, *args, **kwargs):
        # _generate_edge_program runs the pre-replacement passes, then OpReplacePass(),
        # then MemoryFormatOpsPass() unless config._skip_dim_order: the fusable passes
        # that end the first list join the run of the other two.
        trailing = []

        def fused_edge_passes_of(config):
            pre, post = edge_passes(config)
            pre = list(pre)
            while tail_fusable and pre and _fusable(pre[-1]):
                trailing.insert(0, pre.pop())
            return _fused_runs(pre), post

        def fused_op_replace():
            if not tail_fusable:
                return op_replace()
            return _fuse(trailing + [op_replace()] + ([] if config._skip_dim_order else [memory_format()]))

        def memory_format_done():
            return _Done() if tail_fusable else memory_format()

        _program._get_aten_to_edge_passes = fused_edge_passes_of
        _program.OpReplacePass, _program.MemoryFormatOpsPass = fused_op_replace, memory_format_done
        try:
            return generate(config, *args, **kwargs)
        finally:
            _program._get_aten_to_edge_passes = edge_passes
            _program.OpReplacePass, _program.MemoryFormatOpsPass = op_replace, memory_format

    _program._generate_edge_program = generate_edge_program
    try:
        yield
    finally:
        _program._generate_edge_program = generate
