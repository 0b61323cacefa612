"""The docs cannot rot: what README.md and docs/*.md name is checked against the code.

  - the targets the pages name are exactly those in docs/references.bzl, which
    //docs:references makes Bazel resolve (a renamed target fails the build), and every
    repository path they name exists in the source tree;
  - every --flag the pages give one of pteforge's tools is in that tool's --help;
  - every --config=x is defined in .bazelrc;
  - the memory-plan picture in docs/images is the one the exporter draws today.
"""

import os
import re
import subprocess

from runfiles import runfiles

from pteforge.support import testing

import references

import pytest

_RUNFILES = runfiles.Create()


def _file(path: str) -> str:
    return _RUNFILES.Rlocation(f"pteforge/{path}")


# The pages and a file of every path they name (DOC_PATH_FILES), in runfiles: declared
# inputs, the same whether the test runs here or on a remote executor.
_ROOT = os.path.dirname(os.path.dirname(_file("docs/references.bzl")))


def _bzl() -> dict:
    values: dict = {}
    with open(_file("docs/references.bzl"), encoding="utf-8") as handle:
        exec(handle.read(), values)  # the .bzl is plain dictionaries and lists
    return values


def test_the_reference_list_is_what_the_pages_name():
    with open(_file("docs/references.bzl"), encoding="utf-8") as handle:
        listed = handle.read()
    assert listed == references.bzl_text(_ROOT, _bzl()["DOC_PATH_FILES"]), (
        "the pages changed: run `python3 docs/references.py --write` and commit docs/references.bzl")


def test_every_path_the_pages_name_exists():
    for path in _bzl()["DOC_PATHS"]:
        try:
            references.evidence(path, _ROOT)
        except ValueError as error:
            raise AssertionError(f"{error} (or docs/references.bzl is stale: run `python3 docs/references.py --write`)")


def _help(tool: str) -> str:
    label = references.TOOLS[tool]
    binary = _file(label[2:].replace(":", "/"))
    result = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=120)
    return result.stdout + result.stderr


@pytest.mark.parametrize("tool, flag", sorted(references.everything(_ROOT)[2]))
def test_every_flag_given_to_a_tool_exists(tool, flag):
    if flag == "help":
        pytest.skip("every tool takes --help")  # absl does not list it in its own --help
    help_text = _help(tool)
    assert re.search(rf"--(\[no\])?{flag}\b", help_text), f"`{tool} --{flag}` is in the docs but not in `{tool} --help`"


def test_every_config_is_defined_in_bazelrc():
    with open(_file(".bazelrc"), encoding="utf-8") as handle:
        defined = set(re.findall(r"^(?:build|test|run|common):([a-z0-9_]+)\s", handle.read(), re.M))
    assert references.everything(_ROOT)[3] <= defined


def test_the_memory_plan_picture_is_current():
    with open(_file("docs/images/stateful.plan.svg"), encoding="utf-8") as documented:
        with open(_file("models/stateful.plan.svg"), encoding="utf-8") as drawn:
            assert documented.read() == drawn.read(), (
                "docs/images/stateful.plan.svg is out of date: copy bazel-bin/models/stateful.plan.svg over it "
                "(./bazelw build //models:stateful_plan)")


if __name__ == "__main__":
    testing.main(__file__)
