"""Helpers for pteforge's own tests (testonly)."""

import collections
import os
import pathlib
import sys

import pytest

from pteforge.support.instructions import DELEGATE, instruction_counts  # noqa: F401 (DELEGATE: for the tests)
from pteforge.support.quiet import quiet_dependencies


def instructions(data: bytes) -> dict[str, collections.Counter]:
    """For each method of a .pte (its bytes), how many of its instructions call each
    operator ("aten::index_put.out", "aten::index_put_") or a delegate (DELEGATE)."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(data)
    return instruction_counts(getattr(program, "program", program))


class _BazelSharding:
    """Runs this shard's share of the tests when Bazel shards the target (shard_count):
    test i of the collected list belongs to shard i % TEST_TOTAL_SHARDS."""

    def __init__(self, index: int, total: int):
        self.index, self.total = index, total

    def pytest_collection_modifyitems(self, config, items):
        mine = [item for position, item in enumerate(items) if position % self.total == self.index]
        others = [item for item in items if item not in mine]
        items[:] = mine
        config.hook.pytest_deselected(items=others)


def _single_root(path: str) -> str:
    return path[1:] if path.startswith("//") and not path.startswith("///") else path


def _rerun_with_single_root(test_file: str) -> None:
    """Runs the test again with its paths starting "/" instead of "//".

    A remote executor runs a test with "/" as its working directory, where Bazel's test
    runner spells the runfiles' paths "/" + "/bazel-out/...". POSIX (and pathlib) take a
    leading "//" for another root than "/", so pytest would find the test's files (and
    the functions' code, compiled from them) outside its rootdir, the working directory.
    Every path the test was given (its file, PYTHONPATH, the runfiles variables) is
    respelled, and the interpreter started again on them."""
    for name, value in list(os.environ.items()):
        os.environ[name] = ":".join(_single_root(part) for part in value.split(":"))
    os.execv(sys.executable, [sys.executable, _single_root(test_file), *sys.argv[1:]])


def main(test_file: str) -> None:
    """Runs pytest on one test file, as py_test's main, and exits with its status."""
    quiet_dependencies()
    if test_file.startswith("//") and not test_file.startswith("///"):
        _rerun_with_single_root(test_file)
    plugins = []
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    if total > 1:
        plugins.append(_BazelSharding(int(os.environ["TEST_SHARD_INDEX"]), total))
        pathlib.Path(os.environ["TEST_SHARD_STATUS_FILE"]).touch()  # "this test knows sharding"
    sys.exit(pytest.main([
        test_file,
        "-v",
        "-p", "no:cacheprovider",  # the runfiles tree is read-only
        "-W", "ignore::FutureWarning",
        "-W", "ignore:Mutation on a buffer in the model is detected:UserWarning",
    ], plugins=plugins))
