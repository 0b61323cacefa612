"""A C++ toolchain from Debian packages (a GCC cross compiler, or clang) as a
registered Bazel toolchain.

Reuses Bazel's own unix_cc_toolchain_config (the configuration behind the
auto-detected host toolchain), so these builds get the same features, modes
(fastbuild/opt/dbg) and flag layout as host builds.
"""

load("@bazel_tools//tools/cpp:unix_cc_toolchain_config.bzl", "cc_toolchain_config")

_TOOLS = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]

def gnu_tool_paths(prefix):
    """Tool paths for GNU tools named <prefix>gcc, <prefix>ar, ..."""

    # unix_cc_toolchain_config requires an llvm-cov entry; GCC builds never run it.
    return dict({tool: prefix + tool for tool in _TOOLS}, **{"llvm-cov": "/bin/false"})

# Flags shared with Bazel's host toolchain defaults: reproducible builds (no
# timestamps in objects) and the usual optimization settings.
_REPRODUCIBLE_FLAGS = [
    "-Wno-builtin-macro-redefined",
    "-D__DATE__=\"redacted\"",
    "-D__TIMESTAMP__=\"redacted\"",
    "-D__TIME__=\"redacted\"",
]

# Keep header paths as given, so they match cxx_builtin_include_directories.
GCC_UNFILTERED_COMPILE_FLAGS = ["-fno-canonical-system-headers"] + _REPRODUCIBLE_FLAGS
CLANG_UNFILTERED_COMPILE_FLAGS = ["-no-canonical-prefixes"] + _REPRODUCIBLE_FLAGS

_OPT_COMPILE_FLAGS = [
    "-g0",
    "-O2",
    "-DNDEBUG",
    "-ffunction-sections",
    "-fdata-sections",
]

def unix_toolchain(
        name,
        tool_paths,
        cpu,
        target_system_name,
        target_compatible_with,
        cxx_builtin_include_directories,
        compile_flags = [],
        cxx_flags = [],
        link_flags = [],
        link_libs = [],
        linker_files = [],
        compiler = "gcc",
        unfiltered_compile_flags = GCC_UNFILTERED_COMPILE_FLAGS):
    """Declares `<name>` (a toolchain() to register) and its cc_toolchain `<name>_cc`.

    Args:
      name: name of the toolchain() target.
      tool_paths: Bazel tool name -> path (gnu_tool_paths() for GCC; "gcc" is the
        compiler driver whatever the compiler).
      cpu: Bazel's cpu name for this target (also names its _solib_<cpu> folder).
      target_system_name: the GNU triplet.
      target_compatible_with: constraint values of the target platform.
      cxx_builtin_include_directories: the compiler's own include search path
        (`<compiler> -E -x c++ - -v`); Bazel rejects headers outside it.
      compile_flags: flags for every compile action.
      cxx_flags: flags for C++ compiles only.
      link_flags: flags for every link action.
      link_libs: libraries appended to every link.
      linker_files: files the link step reads (linker scripts).
      compiler: "gcc" or "clang".
      unfiltered_compile_flags: flags added last to every compile.
    """
    cc_toolchain_config(
        name = name + "_config",
        cpu = cpu,
        compiler = compiler,
        toolchain_identifier = name,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = target_system_name,
        target_libc = "unknown",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        cxx_builtin_include_directories = cxx_builtin_include_directories,
        tool_paths = tool_paths,
        compile_flags = compile_flags,
        opt_compile_flags = _OPT_COMPILE_FLAGS,
        dbg_compile_flags = ["-g"],
        cxx_flags = cxx_flags,
        link_flags = link_flags,
        link_libs = link_libs,
        opt_link_flags = ["-Wl,--gc-sections"],
        unfiltered_compile_flags = unfiltered_compile_flags,
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
