"""Helpers for pteforge's own tests (testonly)."""

import os
import pathlib
import sys

import pytest

from pteforge.quiet import quiet_dependencies


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


def main(test_file: str) -> None:
    """Runs pytest on one test file, as py_test's main, and exits with its status."""
    quiet_dependencies()
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
