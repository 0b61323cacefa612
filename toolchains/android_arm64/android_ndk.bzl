"""Repository rule: a C++ toolchain for Android arm64 from a user-supplied NDK.

No Android NDK is obtainable from the package registries, and Debian's Bazel has its
Android rules removed (FINDINGS.md), so pteforge builds for Android with a hand-written
toolchain over the NDK's clang, found through $ANDROID_NDK_HOME. Without a usable NDK
the toolchain still exists but fails, when a build selects it, with instructions.
"""

_NDK_ENV = "ANDROID_NDK_HOME"
_HOST_TAG = "linux-x86_64"

_TARGET_CONSTRAINTS = '''[
        "@platforms//cpu:aarch64",
        "@platforms//os:android",
    ]'''

_TOOLCHAIN = '''
toolchain(
    name = "cc_toolchain",
    exec_compatible_with = [
        "@platforms//cpu:x86_64",
        "@platforms//os:linux",
    ],
    target_compatible_with = {constraints},
    toolchain = ":cc",
    toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
)
'''

_MISSING_BUILD = '''load(":missing.bzl", "ndk_missing")

package(default_visibility = ["//visibility:public"])

ndk_missing(name = "cc")
''' + _TOOLCHAIN

_MISSING_BZL = '''def _impl(ctx):
    fail("""{message}""")

ndk_missing = rule(implementation = _impl)
'''

_NDK_BUILD = '''load("@bazel_tools//tools/cpp:unix_cc_toolchain_config.bzl", "cc_toolchain_config")

package(default_visibility = ["//visibility:public"])

filegroup(name = "empty")

cc_toolchain_config(
    name = "config",
    cpu = "arm64-v8a",
    compiler = "clang",
    toolchain_identifier = "android_arm64_ndk",
    host_system_name = "x86_64-unknown-linux-gnu",
    target_system_name = "aarch64-linux-android{api}",
    target_libc = "bionic",
    abi_version = "unknown",
    abi_libc_version = "unknown",
    builtin_sysroot = "{llvm}/sysroot",
    cxx_builtin_include_directories = ["{llvm}/lib/clang", "{llvm}/sysroot/usr/include"],
    tool_paths = {{
        "ar": "{llvm}/bin/llvm-ar",
        "cpp": "{llvm}/bin/clang-cpp",
        # The C++ driver: Bazel compiles and links everything with this tool, and
        # pteforge's Android programs are C++ (clang++ links the NDK's libc++).
        "gcc": "{llvm}/bin/aarch64-linux-android{api}-clang++",
        "gcov": "{llvm}/bin/llvm-cov",
        "llvm-cov": "{llvm}/bin/llvm-cov",
        "ld": "{llvm}/bin/ld.lld",
        "nm": "{llvm}/bin/llvm-nm",
        "objcopy": "{llvm}/bin/llvm-objcopy",
        "objdump": "{llvm}/bin/llvm-objdump",
        "strip": "{llvm}/bin/llvm-strip",
    }},
    compile_flags = ["-fstack-protector-strong", "-Wall", "-fPIC"],
    opt_compile_flags = ["-O2", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"],
    dbg_compile_flags = ["-g"],
    cxx_flags = ["-std=c++17"],
    # A static C++ runtime: the binaries run from `adb shell` with nothing to install.
    link_flags = ["-static-libstdc++", "-Wl,-no-as-needed"],
    link_libs = ["-lm"],
    opt_link_flags = ["-Wl,--gc-sections"],
    unfiltered_compile_flags = ["-Wno-builtin-macro-redefined"],
    coverage_compile_flags = [],
    coverage_link_flags = [],
    supports_start_end_lib = False,
)

cc_toolchain(
    name = "cc",
    all_files = ":empty",
    ar_files = ":empty",
    as_files = ":empty",
    compiler_files = ":empty",
    dwp_files = ":empty",
    linker_files = ":empty",
    objcopy_files = ":empty",
    strip_files = ":empty",
    supports_param_files = 1,
    toolchain_config = ":config",
    toolchain_identifier = "android_arm64_ndk",
)
''' + _TOOLCHAIN

# What BUILD files can test at loading time (deploy/BUILD.bazel: which Android SDK).
_DEFS = """ANDROID_NDK = {present}
MISSING_ANDROID_NDK = "@//toolchains/android_arm64:set_ANDROID_NDK_HOME_to_an_android_ndk"
"""

def _android_ndk_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    ndk = rctx.os.environ.get(_NDK_ENV, "")
    llvm = rctx.path(ndk + "/toolchains/llvm/prebuilt/" + _HOST_TAG) if ndk else None
    compiler = "aarch64-linux-android%d-clang" % rctx.attr.api_level
    # One path component per get_child: Bazel 4.2.3 refuses "bin/..." in one call.
    usable = bool(llvm) and llvm.get_child("bin").get_child(compiler).exists
    rctx.file("defs.bzl", _DEFS.format(present = usable))
    if usable:
        rctx.file("BUILD.bazel", _NDK_BUILD.format(
            api = rctx.attr.api_level,
            llvm = llvm,
            constraints = _TARGET_CONSTRAINTS,
        ))
        return
    if not ndk:
        problem = "%s is not set" % _NDK_ENV
    else:
        problem = "%s=%s has no %s/bin/%s" % (_NDK_ENV, ndk, "toolchains/llvm/prebuilt/" + _HOST_TAG, compiler)
    message = (
        "The android_arm64 platform needs an Android NDK, and none is usable: %s.\\n" % problem +
        "No package registry ships the NDK: download it from developer.android.com/ndk " +
        "(r25 or newer), unpack it, and run\\n" +
        "    export %s=/path/to/android-ndk-rXX\\n" % _NDK_ENV +
        "then build again with --config=android_arm64. See docs/targets.md."
    )
    rctx.file("missing.bzl", _MISSING_BZL.format(message = message))
    rctx.file("BUILD.bazel", _MISSING_BUILD.format(constraints = _TARGET_CONSTRAINTS))

android_ndk = repository_rule(
    implementation = _android_ndk_impl,
    attrs = {
        "api_level": attr.int(default = 28, doc = "Android API level of the NDK compiler."),
    },
    environ = [_NDK_ENV],
)
