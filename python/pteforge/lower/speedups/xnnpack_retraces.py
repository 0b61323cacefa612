"""Makes XNNPACK's lowering cheaper, with the same result: no re-trace after a pass that
changed nothing.

XNNPACK lowers each partition through 17 passes (XNNPACKPassManager). Each ends by
re-tracing the whole partition on fake tensors (ExportPass.call) to regenerate node
metadata, whether or not it rewrote anything, and most find nothing to rewrite: no
batch norm, no convolution, no PReLU, no upsampling pattern in a transformer. With
symbolic shapes and torchao's quantization operators, which decompose on every
re-trace, those re-traces were most of the backend's share of a Bergamot export.

It also skips XNNPACK's upsampling pass on a graph without upsampling, whose patterns
alone cost two seconds to build (_finds_nothing).

skip_unchanged_retraces() skips the re-trace of a pass whose graph (and parameters)
are exactly as they were when the pass began. Only passes whose re-trace is pure
metadata regeneration qualify: a pass that rewrites during the re-trace (it overrides
call_operator or another of ExportPass's tracing hooks) always runs it. The programs are
byte-identical with and without it (xnnpack_retraces_test). If ExecuTorch changes the
classes this relies on, it does nothing.
"""

from __future__ import annotations

import contextlib

import torch

# ExportPass's hooks that run during the re-trace: a pass overriding one rewrites there.
_TRACING_HOOKS = ("call_operator", "call_sym", "call_cond", "call_map", "call_getitem",
                  "call_submodule", "call_scan", "call_while", "placeholder", "output")

# The graph as the pass received it, on the pass instance (which lives for one pass).
_ATTRIBUTE = "_pteforge_graph_at_start"


def _fingerprint(graph_module: torch.fx.GraphModule) -> tuple:
    graphs = tuple(str(module.graph) for module in graph_module.modules()
                   if isinstance(module, torch.fx.GraphModule))
    tensors = tuple((name, tuple(value.shape), value.dtype, id(value))
                    for name, value in list(graph_module.named_parameters()) + list(graph_module.named_buffers()))
    return graphs, tensors


def _retrace_is_metadata_only(pass_class: type, export_pass: type) -> bool:
    return all(getattr(pass_class, hook, None) is getattr(export_pass, hook, None) for hook in _TRACING_HOOKS)


def _finds_nothing(instance: object, graph_module: torch.fx.GraphModule) -> bool:
    """Whether `instance` is XNNPACK's ConvertToUpsampleBilinear2d on a graph without
    upsample_bilinear2d: its patterns are that operator alone (ExecuTorch 1.5.1), and
    building them traces four graphs, about 2 s, in every process that lowers to XNNPACK."""
    if type(instance).__name__ != "ConvertToUpsampleBilinear2d":
        return False
    return not any("upsample_bilinear2d" in str(node.target) for module in graph_module.modules()
                   if isinstance(module, torch.fx.GraphModule) for node in module.graph.nodes)


@contextlib.contextmanager
def skip_unchanged_retraces():
    """Within the block, an XNNPACK pass that changed nothing is not re-traced."""
    try:
        from executorch.backends.xnnpack import _passes as xnnpack_passes
        from executorch.exir.pass_base import ExportPass, PassResult
    except ImportError:
        yield
        return
    # XNNPACKPassManager.transform runs each pass through this module's _transform.
    program_transform = getattr(xnnpack_passes, "_transform", None)
    if program_transform is None or getattr(ExportPass.call, "_pteforge", False):
        yield  # another ExecuTorch, or already inside the block
        return
    original_call = ExportPass.call

    def call(self, graph_module):
        at_start = getattr(self, _ATTRIBUTE, None)
        if at_start is not None and at_start == _fingerprint(graph_module):
            return PassResult(graph_module, False)
        return original_call(self, graph_module)

    call._pteforge = True

    def transform(program, instance):
        """_transform, after noting the graph the pass starts from if it may skip."""
        if _finds_nothing(instance, program.graph_module):
            return program
        if type(instance).call not in (original_call, call) and _retrace_is_metadata_only(type(instance), ExportPass):
            setattr(instance, _ATTRIBUTE, _fingerprint(program.graph_module))
        return program_transform(program, instance)

    ExportPass.call = call
    xnnpack_passes._transform = transform
    try:
        yield
    finally:
        ExportPass.call = original_call
        xnnpack_passes._transform = program_transform
