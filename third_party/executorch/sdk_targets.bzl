"""Architecture-neutral ExecuTorch targets: the wheel's SDK or the runtime from source.

Which runtime a target platform gets:
  * x86_64 and aarch64 Linux: the wheel's shared libraries by default, the runtime built
    from the source tree with --config=source_runtime;
  * Cortex-M55 and Android arm64: the runtime from source (the wheels hold glibc
    Linux libraries only);
  * anything else: none, so the targets are incompatible and `bazel build //...`
    skips what depends on them.
"""

# The wheels hold glibc builds: usable on Linux only (not on Android's bionic).
_WHEEL_BY_PLATFORM = {
    "//toolchains:is_linux_aarch64": "@executorch_sdk_aarch64//",
    "//toolchains:is_linux_x86_64": "@executorch_sdk_x86_64//",
}

# Where the runtime comes from the source tree (@executorch_source). These settings are
# specializations of the wheel ones above (same platform plus the flag), so select()
# prefers them.
SOURCE_RUNTIME_SETTINGS = [
    "//third_party/executorch:linux_aarch64_source",
    "//third_party/executorch:linux_x86_64_source",
    "//toolchains:is_cortex_m55",
    # Android: the wheels' glibc libraries do not load on bionic.
    "//toolchains:is_android_arm64",
]

INCOMPATIBLE = ["//toolchains/constraints:incompatible"]

def sdk_library(name, source_deps = None, source_linux_deps = []):
    """A cc_library forwarding to the ExecuTorch runtime of the target platform.

    Args:
      name: the target name in third_party/executorch/sdk.BUILD (the wheel's SDK).
      source_deps: what stands for it with the runtime from source: a list of labels
        ([] for a part the source runtime does without, e.g. the XNNPACK delegate),
        or None if it has no equivalent (the target is then incompatible there).
      source_linux_deps: added to source_deps on Linux only (file data loaders).
    """
    deps = {setting: [repo + ":" + name] for setting, repo in _WHEEL_BY_PLATFORM.items()}
    compatible = {setting: [] for setting in _WHEEL_BY_PLATFORM}
    for setting in SOURCE_RUNTIME_SETTINGS:
        linux = setting != "//toolchains:is_cortex_m55"
        deps[setting] = (source_deps or []) + (source_linux_deps if linux else [])
        compatible[setting] = [] if source_deps != None else INCOMPATIBLE
    deps["//conditions:default"] = []
    compatible["//conditions:default"] = INCOMPATIBLE
    native.cc_library(
        name = name,
        deps = select(deps),
        target_compatible_with = select(compatible),
    )

def runtime_select(wheel, source):
    """A select() between what a target needs on the wheel's runtime and on the runtime
    from source (e.g. a tool's profiling: ETDump exists in the wheel only)."""
    choices = {setting: wheel for setting in _WHEEL_BY_PLATFORM}
    choices.update({setting: source for setting in SOURCE_RUNTIME_SETTINGS})
    choices["//conditions:default"] = source
    return select(choices)
