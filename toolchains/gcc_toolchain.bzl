"""A GCC cross toolchain (from Debian packages) as a registered Bazel C++ toolchain.

Reuses Bazel's own unix_cc_toolchain_config (the configuration behind the
auto-detected host toolchain), so cross builds get the same features, modes
(fastbuild/opt/dbg) and flag layout as host builds.
"""

load("@bazel_tools//tools/cpp:unix_cc_toolchain_config.bzl", "cc_toolchain_config")

_TOOLS = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]

# Flags shared with Bazel's host toolchain defaults: reproducible builds (no
# timestamps in objects) and the usual optimization settings.
_UNFILTERED_COMPILE_FLAGS = [
    "-fno-canonical-system-headers",
    "-Wno-builtin-macro-redefined",
    "-D__DATE__=\"redacted\"",
    "-D__TIMESTAMP__=\"redacted\"",
    "-D__TIME__=\"redacted\"",
]

_OPT_COMPILE_FLAGS = [
    "-g0",
    "-O2",
    "-DNDEBUG",
    "-ffunction-sections",
    "-fdata-sections",
]

def gcc_toolchain(
        name,
        tool_prefix,
        cpu,
        target_system_name,
        target_compatible_with,
        cxx_builtin_include_directories,
        compile_flags = [],
        cxx_flags = [],
        link_flags = [],
        link_libs = [],
        linker_files = []):
    """Declares `<name>` (a toolchain() to register) and its cc_toolchain `<name>_cc`.

    Args:
      name: name of the toolchain() target.
      tool_prefix: path prefix of the GNU tools, e.g. "/usr/bin/aarch64-linux-gnu-".
      cpu: Bazel's cpu name for this target (also names its _solib_<cpu> folder).
      target_system_name: the GNU triplet.
      target_compatible_with: constraint values of the target platform.
      cxx_builtin_include_directories: the compiler's own include search path
        (`<tool_prefix>g++ -E -x c++ - -v`); Bazel rejects headers outside it.
      compile_flags: flags for every compile action.
      cxx_flags: flags for C++ compiles only.
      link_flags: flags for every link action.
      link_libs: libraries appended to every link.
      linker_files: files the link step reads (linker scripts).
    """
    cc_toolchain_config(
        name = name + "_config",
        cpu = cpu,
        compiler = "gcc",
        toolchain_identifier = name,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = target_system_name,
        target_libc = "unknown",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        cxx_builtin_include_directories = cxx_builtin_include_directories,
        # unix_cc_toolchain_config requires an llvm-cov entry; GCC builds never run it.
        tool_paths = dict({tool: tool_prefix + tool for tool in _TOOLS}, **{"llvm-cov": "/bin/false"}),
        compile_flags = compile_flags,
        opt_compile_flags = _OPT_COMPILE_FLAGS,
        dbg_compile_flags = ["-g"],
        cxx_flags = cxx_flags,
        link_flags = link_flags,
        link_libs = link_libs,
        opt_link_flags = ["-Wl,--gc-sections"],
        unfiltered_compile_flags = _UNFILTERED_COMPILE_FLAGS,
        coverage_compile_flags = ["--coverage"],
        coverage_link_flags = ["--coverage"],
        supports_start_end_lib = False,
    )
    native.filegroup(
        name = name + "_linker_files",
        srcs = linker_files,
    )
    native.filegroup(name = name + "_empty")
    native.cc_toolchain(
        name = name + "_cc",
        all_files = ":" + name + "_linker_files",
        ar_files = ":" + name + "_empty",
        as_files = ":" + name + "_empty",
        compiler_files = ":" + name + "_empty",
        dwp_files = ":" + name + "_empty",
        linker_files = ":" + name + "_linker_files",
        objcopy_files = ":" + name + "_empty",
        strip_files = ":" + name + "_empty",
        supports_param_files = 1,
        toolchain_config = ":" + name + "_config",
        toolchain_identifier = name,
    )
    native.toolchain(
        name = name,
        exec_compatible_with = [
            "@platforms//cpu:x86_64",
            "@platforms//os:linux",
        ],
        target_compatible_with = target_compatible_with,
        toolchain = ":" + name + "_cc",
        toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
    )
