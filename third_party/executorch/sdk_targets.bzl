"""Architecture-neutral wrappers over the per-platform ExecuTorch SDK repositories."""

# The wheels hold glibc builds: usable on Linux only (not on Android's bionic).
_SDK_BY_PLATFORM = {
    "//toolchains:is_linux_aarch64": "@executorch_sdk_aarch64//",
    "//toolchains:is_linux_x86_64": "@executorch_sdk_x86_64//",
}

def sdk_library(name):
    """A cc_library forwarding to `:<name>` of the SDK for the target platform.

    On platforms with no SDK (Android, Cortex-M) the target is incompatible, so
    `bazel build //...` skips everything that depends on it.

    Args:
      name: the target name in third_party/executorch/sdk.BUILD.
    """
    deps = {setting: [repo + ":" + name] for setting, repo in _SDK_BY_PLATFORM.items()}
    deps["//conditions:default"] = []
    compatible = {setting: [] for setting in _SDK_BY_PLATFORM}
    compatible["//conditions:default"] = ["//toolchains/constraints:incompatible"]
    native.cc_library(
        name = name,
        deps = select(deps),
        target_compatible_with = select(compatible),
    )
