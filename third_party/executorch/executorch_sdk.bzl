"""Repository rule: the ExecuTorch C++ SDK (headers + shared libraries) for one CPU.

The executorch wheel ships `executorch/include` and `executorch/lib` (no runtime
sources; FINDINGS.md, "ExecuTorch C++ SDK from the wheel"). Two sources:
  * "venv": the x86_64 wheel installed in the pinned venv (the same build the
    exporter uses, so .pte files and runtime always match);
  * "aarch64_wheel": the manylinux_2_28_aarch64 wheel that ./bazelw fetches with
    `pip download`, pinned in third_party/downloads.txt.
Both get the same BUILD overlay, sdk.BUILD.
"""

load("//third_party:downloads.bzl", "DOWNLOADS_ENV", "pinned_download")
load("//third_party/python:venv.bzl", "VENV_ENV", "site_packages", "venv_path")

_AARCH64_WHEEL = "executorch-1.5.1-cp311-cp311-manylinux_2_28_aarch64.whl"

def _from_venv(rctx):
    package = site_packages(rctx, venv_path(rctx)).get_child("executorch")
    for part in ["include", "lib", "schema"]:
        rctx.symlink(package.get_child(part), part)
    rctx.symlink(package.get_child("backends").get_child("xnnpack").get_child("serialization"), "xnnpack_schema")
    rctx.symlink(package.get_child("version.py"), "version.py")

def _from_aarch64_wheel(rctx):
    wheel = pinned_download(rctx, rctx.attr._pins, _AARCH64_WHEEL)

    # A wheel is a zip file, but extract() goes by the file name's suffix.
    rctx.symlink(wheel, "executorch.zip")
    rctx.extract("executorch.zip", output = "wheel")
    for part in ["include", "lib", "schema"]:
        rctx.symlink("wheel/executorch/" + part, part)
    rctx.symlink("wheel/executorch/backends/xnnpack/serialization", "xnnpack_schema")
    rctx.symlink("wheel/executorch/version.py", "version.py")

def _executorch_sdk_impl(rctx):
    if rctx.attr.source == "venv":
        _from_venv(rctx)
    else:
        _from_aarch64_wheel(rctx)
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.template("BUILD.bazel", rctx.attr._overlay)

executorch_sdk = repository_rule(
    implementation = _executorch_sdk_impl,
    attrs = {
        "source": attr.string(mandatory = True, values = ["venv", "aarch64_wheel"]),
        "_overlay": attr.label(default = "//third_party/executorch:sdk.BUILD"),
        "_pins": attr.label(default = "//third_party:downloads.txt"),
    },
    environ = [VENV_ENV, DOWNLOADS_ENV],
)
