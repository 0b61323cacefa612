"""Silences noise that pteforge's dependencies print and that says nothing about the
work at hand, so tools' output shows pteforge's own progress and real problems.

Call it first thing in a program's main, before torch/executorch are imported."""

import logging
import warnings


def quiet_dependencies() -> None:
    """Mutes the known irrelevant warnings (each named below); keeps everything else."""
    # torchao, imported by executorch, warns that its CUDA kernels do not load on a
    # CPU-only machine, and registers enums through a deprecated torch API.
    logging.getLogger("torchao").setLevel(logging.ERROR)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    # Deprecation notices from inside torch/executorch/transformers.
    warnings.filterwarnings("ignore", category=FutureWarning)
    # pteforge initializes mutated buffers itself (reset_state), so ExecuTorch's advice
    # to run InitializedMutableBufferPass does not apply.
    warnings.filterwarnings("ignore", message="Mutation on a buffer in the model is detected")
