"""Repository rule: the ExecuTorch C++ SDK (headers + shared libraries) for one CPU.

The executorch wheel ships `executorch/include` and `executorch/lib` (no runtime
sources; FINDINGS.md, "ExecuTorch C++ SDK from the wheel"). Two sources:
  * "venv": the x86_64 wheel installed in the pinned venv (the same build the
    exporter uses, so .pte files and runtime always match);
  * "aarch64_wheel": the manylinux_2_28_aarch64 wheel that ./bazelw fetches with
    `pip download`, checked here against the sha256 in aarch64_wheel.txt.
Both get the same BUILD overlay, sdk.BUILD.
"""

load("//third_party/python:venv.bzl", "VENV_ENV", "site_packages", "venv_path")

_WHEEL_ENV = "PTEFORGE_EXECUTORCH_AARCH64_WHEEL"

def _from_venv(rctx):
    package = site_packages(rctx, venv_path(rctx)).get_child("executorch")
    for part in ["include", "lib", "schema"]:
        rctx.symlink(package.get_child(part), part)

def _pinned_wheel(rctx):
    for line in rctx.read(rctx.attr._pin).splitlines():
        if line and not line.startswith("#"):
            name, sha256 = line.split(" ")
            return name, sha256
    fail("no wheel pinned in %s" % rctx.attr._pin)

def _from_aarch64_wheel(rctx):
    name, sha256 = _pinned_wheel(rctx)
    wheel = rctx.os.environ.get(_WHEEL_ENV, "")
    if not wheel or not rctx.path(wheel).exists:
        fail("the ExecuTorch aarch64 wheel %s is missing (%s=%r). " % (name, _WHEEL_ENV, wheel) +
             "Run Bazel through ./bazelw, which downloads it with pip.")
    result = rctx.execute(["sha256sum", wheel])
    got = result.stdout.split(" ")[0]
    if result.return_code != 0 or got != sha256:
        fail("%s: sha256 %s, expected %s (third_party/executorch/aarch64_wheel.txt). " % (wheel, got, sha256) +
             "Delete the file and run ./bazelw to fetch it again.")
    # A wheel is a zip file, but extract() goes by the file name's suffix.
    rctx.symlink(wheel, "executorch.zip")
    rctx.extract("executorch.zip", output = "wheel")
    for part in ["include", "lib", "schema"]:
        rctx.symlink("wheel/executorch/" + part, part)

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
        "_pin": attr.label(default = "//third_party/executorch:aarch64_wheel.txt"),
    },
    environ = [VENV_ENV, _WHEEL_ENV],
)
