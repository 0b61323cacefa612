"""Helpers for pteforge's own tests (testonly)."""

import sys

import pytest

from pteforge.quiet import quiet_dependencies


def main(test_file: str) -> None:
    """Runs pytest on one test file, as py_test's main, and exits with its status."""
    quiet_dependencies()
    sys.exit(pytest.main([
        test_file,
        "-v",
        "-p", "no:cacheprovider",  # the runfiles tree is read-only
        "-W", "ignore::FutureWarning",
        "-W", "ignore:Mutation on a buffer in the model is detected:UserWarning",
    ]))
