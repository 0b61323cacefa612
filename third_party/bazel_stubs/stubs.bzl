"""Offline stand-ins for the repositories Bazel 4.2.3's WORKSPACE suffix downloads.

Bazel appends a suffix to every WORKSPACE that declares rules_cc, rules_java and
remote_coverage_tools as archives to download unless they already exist. None is
reachable offline, and Debian's bazel-rules-cc 0.0.4 is too new for this Bazel
(FINDINGS.md, "Bazel"), so each is written here as a minimal repository. A newer Bazel
with Bzlmod and a registry mirror would make this file unnecessary.
"""

_RULES_CC_DEFS = '''"""rules_cc stand-in: re-exports the rules native to Bazel 4.2.3."""

cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_proto_library = native.cc_proto_library
cc_shared_library = native.cc_shared_library if hasattr(native, "cc_shared_library") else None
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
fdo_prefetch_hints = native.fdo_prefetch_hints
fdo_profile = native.fdo_profile
objc_import = native.objc_import
objc_library = native.objc_library
'''

def _rules_cc_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "rules_cc")\n')
    rctx.file("BUILD.bazel", "")
    rctx.file("cc/BUILD.bazel", 'exports_files(["defs.bzl"])\n')
    rctx.file("cc/defs.bzl", _RULES_CC_DEFS)

_rules_cc = repository_rule(implementation = _rules_cc_impl)

# Every test rule depends implicitly on these two targets (used only by
# `bazel coverage`, which needs downloads anyway and is not supported here).
_COVERAGE_BUILD = '''package(default_visibility = ["//visibility:public"])

filegroup(name = "coverage_report_generator", srcs = ["unsupported.sh"])

filegroup(name = "lcov_merger", srcs = ["unsupported.sh"])
'''

def _remote_coverage_tools_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "remote_coverage_tools")\n')
    rctx.file("BUILD.bazel", _COVERAGE_BUILD)
    rctx.file(
        "unsupported.sh",
        "#!/bin/sh\necho 'bazel coverage is not supported offline (third_party/bazel_stubs)' >&2\nexit 1\n",
        executable = True,
    )

_remote_coverage_tools = repository_rule(implementation = _remote_coverage_tools_impl)

# @bazel_tools//tools/jdk loads these while toolchains are registered, even in a build
# with no Java in it.
_RULES_JAVA_DEFS = '''"""rules_java stand-in: re-exports the Java rules native to Bazel 4.2.3."""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_lite_proto_library = native.java_lite_proto_library
java_package_configuration = native.java_package_configuration
java_plugin = native.java_plugin
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
'''

def _rules_java_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "rules_java")\n')
    rctx.file("BUILD.bazel", "")
    rctx.file("java/BUILD.bazel", "")
    rctx.file("java/defs.bzl", _RULES_JAVA_DEFS)
    rctx.file("java/repositories.bzl", "def rules_java_dependencies():\n    pass\n\ndef rules_java_toolchains():\n    pass\n")

_rules_java = repository_rule(implementation = _rules_java_impl)

def offline_stub_repositories():
    """Declares the offline stand-ins; call before anything else in WORKSPACE."""
    _rules_cc(name = "rules_cc")
    _rules_java(name = "rules_java")
    _remote_coverage_tools(name = "remote_coverage_tools")
