"""Makes ExecuTorch's edge-dialect dtype check read each value's dtype from the graph's
metadata instead of computing the graph again, with the same answers.

Whenever an edge program is built or checked (EXIREdgeDialectVerifier, dozens of times
per method in to_edge_transform_and_lower), ExecuTorch checks that every edge operator
takes tensors of dtypes its kernels accept (_check_tensor_args_matching_op_allowed_dtype).
Its EdgeOpArgValidator, a torch.fx.Interpreter, finds the arguments by running every
operator of the graph once more on fake tensors: with a 30-layer prefill's symbolic
token count and torchao's quantization operators, that is a re-trace per check. Each
node already records its value (node.meta["val"], made by the re-trace that built the
graph, and what the check itself reads for every operator's outputs).

metadata_dtype_check() gives the check a validator whose operators return that recorded
value instead of running: the same operators judged by the same dtype constraints on the
same dtypes, a violation reported with ExecuTorch's own message, a graph holding a
delegate skipped as ExecuTorch skips it (the validator raises on reaching one either
way), and a node without a recorded value computed as before. The programs are
byte-identical with and without it (shortcuts_test); dtype_check_test checks that a
violation is still found. It acts only on the ExecuTorch validator and check it was
written against (ExecuTorch 1.5.1).
"""

from __future__ import annotations

import contextlib

import torch

from pteforge.lower.speedups.source_patch import replaced_if_known, source_digest

# sha256 (first 16 hex digits) of ExecuTorch 1.5.1's EdgeOpArgValidator class, and of the
# check that runs it (it looks the class up in its module at each call).
_KNOWN_VALIDATOR = "0ac1c71272c8ad21"
_KNOWN_CHECK = "5223802f594bd06b"


class _RecordedValues(torch.fx.Interpreter):
    """An interpreter whose operators return the value their node records."""

    def call_function(self, target, args, kwargs):
        value = self.node.meta.get("val") if hasattr(self, "node") else None
        if value is None:
            return super().call_function(target, args, kwargs)
        return value


@contextlib.contextmanager
def metadata_dtype_check():
    """Within the block, ExecuTorch's dtype check reads recorded values (see above)."""
    try:
        from executorch.exir.verification import arg_validator, verifier
    except ImportError:
        yield
        return
    if source_digest(verifier._check_tensor_args_matching_op_allowed_dtype) != _KNOWN_CHECK:
        yield
        return
    original = arg_validator.EdgeOpArgValidator

    # EdgeOpArgValidator.call_function judges the dtypes, then runs the operator through
    # super(): placed after it, _RecordedValues answers instead.
    class _FromMetadata(original, _RecordedValues):
        pass

    with replaced_if_known(verifier, "EdgeOpArgValidator", _FromMetadata, _KNOWN_VALIDATOR):
        yield
