"""on_target_test: build a program for a target platform and run it there as a test.

The program is built through a configuration transition to the target's platform, so
one host `bazel test //...` compiles it with the cross toolchain and runs it under the
target's emulator (toolchains/run_on_target.sh). Its exit status decides the test. Data
files (e.g. .pte models) are built in the host configuration and are not duplicated
per target. `runtime = "source"` builds the program on the ExecuTorch runtime from
source instead of the wheel's (Linux targets; the Cortex-M55 always uses it).
on_target_binary is the same without being a test: a launcher that other tests run
(e.g. to compare two runtimes' outputs).

    on_target_test(
        name = "smoke_run_aarch64",
        binary = ":smoke_run",
        target = "aarch64",
        data = [":smoke.pte"],
        program_args = ["$(rootpath :smoke.pte)"],
    )
"""

# Each target: the platform the program is built for (the launcher is chosen by
# run_on_target.sh from the same key).
TARGET_PLATFORMS = {
    "aarch64": "//toolchains:linux_aarch64",
    # The host's own platform, for programs built with other settings (runtime).
    "x86_64": "//toolchains:linux_x86_64",
    "cortex_m55": "//toolchains:cortex_m55",
    # The host itself, with clang's libFuzzer + sanitizer instrumentation.
    "x86_64_libfuzzer": "//toolchains:linux_x86_64_libfuzzer",
}

# Targets programs are built for but not run here (no emulator): an SDK's (bazel/sdk.bzl).
_BUILD_ONLY_PLATFORMS = {
    "android_arm64": "//toolchains:android_arm64",
}

_COPT = "//command_line_option:copt"
_LINKOPT = "//command_line_option:linkopt"
_RUNTIME = "//third_party/executorch:linux_runtime"

def _without_sanitizers(flags):
    return [flag for flag in flags if not flag.startswith("-fsanitize") and
                                       not flag.startswith("-fno-sanitize")]

def _for_bare_metal(flags, target):
    # .bazelrc's --copt=-O2 is for the host tools; on the Cortex-M55 it came after the
    # toolchain's -Os and made pteforge's own code -O2: 61 KB more flash in the int8 Silero
    # VAD image for the same instructions per chunk (its hot loops are CMSIS-NN's and the
    # kernels', which set their own -O2). Bare-metal code is optimized for size.
    return [flag for flag in flags if flag != "-O2"] if target == "cortex_m55" else flags

def _target_settings(settings, target, runtime):
    # --config=asan's sanitizer flags are for the host GCC build: the cross toolchains
    # have no sanitizer runtimes, and the libfuzzer toolchain sets its own. A program
    # for the host's own platform (x86_64) keeps them.
    keep = target == "x86_64"
    return {
        "//command_line_option:platforms": dict(TARGET_PLATFORMS, **_BUILD_ONLY_PLATFORMS)[target],
        _COPT: settings[_COPT] if keep else _for_bare_metal(_without_sanitizers(settings[_COPT]), target),
        _LINKOPT: settings[_LINKOPT] if keep else _without_sanitizers(settings[_LINKOPT]),
        _RUNTIME: runtime or settings[_RUNTIME],
    }

_INPUTS = [_COPT, _LINKOPT, _RUNTIME]
_OUTPUTS = ["//command_line_option:platforms", _COPT, _LINKOPT, _RUNTIME]

def _to_target_platform_impl(settings, attr):
    return _target_settings(settings, attr.target, attr.runtime)

_to_target_platform = transition(
    implementation = _to_target_platform_impl,
    inputs = _INPUTS,
    outputs = _OUTPUTS,
)

# The same for other rules with `target` and `runtime` attributes (target_transition_attrs).
to_named_target = _to_target_platform

def target_transition_attrs():
    """The attributes besides `target` a rule using to_named_target needs."""
    return {
        "runtime": attr.string(
            doc = "The ExecuTorch runtime for Linux targets: \"wheel\" or \"source\" (default: as the build says).",
            values = ["", "source", "wheel"],
        ),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    }

def _to_fixed_target_impl(settings, attr):
    return _target_settings(settings, attr._target, "")

# For rules that always build for one target, the one their private attribute `_target`
# names (fixed_target_attrs): cortex_m_image and cortex_m55_files the microcontroller,
# the arm64 bundle aarch64 Linux.
to_fixed_target = transition(
    implementation = _to_fixed_target_impl,
    inputs = _INPUTS,
    outputs = _OUTPUTS,
)

def fixed_target_attrs(target):
    """The attributes a rule using to_fixed_target needs, for `target`."""
    return {
        "_target": attr.string(default = target),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    }

def _shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"

def _on_target_test_impl(ctx):
    # With an outgoing transition Bazel 4.2.3 gives a one-element list (FINDINGS.md).
    binary = ctx.attr.binary[0]
    built = binary[DefaultInfo].files_to_run.executable

    # The same binary built for two targets has one runfiles path; a per-test name
    # keeps both when tests are combined (e.g. as data of another test).
    program = ctx.actions.declare_file("%s.%s" % (ctx.label.name, built.basename))
    ctx.actions.symlink(output = program, target_file = built, is_executable = True)

    runner = ctx.executable._runner
    args = []
    for arg in ctx.attr.program_args:
        expanded = ctx.expand_location(arg, ctx.attr.data)
        # $(rootpaths ...) and the like expand to several space-separated paths.
        several = [plural for plural in ["$(rootpaths ", "$(execpaths ", "$(locations "] if plural in arg]
        args += [_shell_quote(part) for part in (expanded.split(" ") if several else [expanded])]
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        output = script,
        content = "\n".join([
            "#!/usr/bin/env bash",
            "# Generated by on_target_test for %s." % ctx.label,
            'exec "%s" %s "%s" %s "$@"' % (
                runner.short_path,
                ctx.attr.target,
                program.short_path,
                " ".join(args),
            ),
            "",
        ]),
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [runner, program] + ctx.files.data)
    runfiles = runfiles.merge(binary[DefaultInfo].default_runfiles)
    runfiles = runfiles.merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    for data in ctx.attr.data:
        runfiles = runfiles.merge(data[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

_ATTRS = {
    "binary": attr.label(
        doc = "The cc_binary (or cc_test) to run on the target.",
        mandatory = True,
        executable = True,
        cfg = _to_target_platform,
    ),
    "target": attr.string(
        doc = "Where to run: " + ", ".join(TARGET_PLATFORMS.keys()) + ".",
        mandatory = True,
        values = TARGET_PLATFORMS.keys(),
    ),
    "runtime": attr.string(
        doc = "The ExecuTorch runtime for Linux targets: \"wheel\" or \"source\" " +
              "(default: as the build says, --config=source_runtime).",
        values = ["", "source", "wheel"],
    ),
    "program_args": attr.string_list(
        doc = "Arguments for the program, written into the test script (so the " +
              "test also runs correctly outside `bazel test`); $(rootpath) expands.",
    ),
    "data": attr.label_list(
        doc = "Files the program reads, built for the host (not per target).",
        allow_files = True,
    ),
    "_runner": attr.label(
        default = "//toolchains:run_on_target.sh",
        executable = True,
        cfg = "exec",
        allow_single_file = True,
    ),
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

on_target_test = rule(
    implementation = _on_target_test_impl,
    test = True,
    doc = "Builds `binary` for `target` and runs it under that target's emulator.",
    attrs = _ATTRS,
)

on_target_binary = rule(
    implementation = _on_target_test_impl,
    executable = True,
    doc = "A launcher running `binary`, built for `target`, under that target's emulator.",
    attrs = _ATTRS,
)

def _host_files_impl(ctx):
    files = depset(transitive = [src[DefaultInfo].files for src in ctx.attr.srcs])
    runfiles = ctx.runfiles(transitive_files = files)
    for src in ctx.attr.srcs:
        runfiles = runfiles.merge(src[DefaultInfo].default_runfiles)
    return [DefaultInfo(files = files, runfiles = runfiles)]

# Files built in the host configuration, the one bare-metal images embed their programs
# from (bazel/embedded.bzl): a test that compares an image with a host run uses the
# very same .pte, exported once.
host_files = rule(
    implementation = _host_files_impl,
    doc = "The files (and runfiles) of `srcs`, built in the host configuration.",
    attrs = {"srcs": attr.label_list(allow_files = True, cfg = "host")},
)

def _cortex_m55_files_impl(ctx):
    files = depset(transitive = [src[DefaultInfo].files for src in ctx.attr.srcs])
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

# Files built for the Cortex-M55 (e.g. an image's generated kernel registration), as
# data of a host test.
cortex_m55_files = rule(
    implementation = _cortex_m55_files_impl,
    doc = "The files of `srcs`, built for the Cortex-M55.",
    attrs = dict(
        {"srcs": attr.label_list(allow_files = True, cfg = to_fixed_target)},
        **fixed_target_attrs("cortex_m55")
    ),
)
