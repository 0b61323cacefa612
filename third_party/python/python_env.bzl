"""Repository rule: the pinned venv as Bazel's Python toolchain.

The venv is built by ./bazelw from requirements_lock.txt; every pip package in it is
importable by py_binary, py_test and build actions without per-package Bazel targets.
The venv's path embeds a digest of the lock file, so changing the lock re-runs this rule
and rebuilds everything that runs Python.
"""

load(":venv.bzl", "VENV_ENV", "venv_path")

_BUILD = '''load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

py_runtime(
    name = "py3_runtime",
    interpreter_path = "{interpreter}",
    python_version = "PY3",
    # The py_binary launcher itself runs on the venv's interpreter too, so it works in
    # actions whose environment has no `python` on PATH.
    stub_shebang = "#!{interpreter}",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "python_toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
'''

def _python_env_impl(rctx):
    interpreter = venv_path(rctx).get_child("bin").get_child("python3")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD.bazel", _BUILD.format(interpreter = interpreter))

python_env = repository_rule(
    implementation = _python_env_impl,
    environ = [VENV_ENV],
)
