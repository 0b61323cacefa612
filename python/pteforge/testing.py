"""Helpers for pteforge's own tests (testonly)."""

import logging
import sys

import pytest


def main(test_file: str) -> None:
    """Runs pytest on one test file, as py_test's main, and exits with its status."""
    # torchao warns at import that its CUDA kernels do not load on a CPU-only machine.
    logging.getLogger("torchao").setLevel(logging.ERROR)
    sys.exit(pytest.main([
        test_file,
        "-v",
        "-p", "no:cacheprovider",  # the runfiles tree is read-only
        "-W", "ignore::FutureWarning",
        "-W", "ignore:Mutation on a buffer in the model is detected:UserWarning",
    ]))
