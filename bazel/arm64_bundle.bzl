"""arm64_bundle: aarch64 programs with everything they load, for any arm64 Linux kernel.

An Android phone runs a glibc executable when the executable brings its own dynamic
loader and libraries: the bundle holds the programs (built for aarch64 Linux through a
transition, so one `bazel build` makes it), every shared library they need (the
ExecuTorch libraries from their runfiles, libstdc++, libgcc_s, libc, libm and the glibc
loader from the cross sysroot), the .pte files, and a launcher per program that starts
it through the bundled loader with only the bundled libraries (make_bundle.py).
"""

load("//bazel:on_target_test.bzl", "fixed_target_attrs", "to_fixed_target")

def _arm64_bundle_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".tar")
    args = ctx.actions.args()
    args.add("--out", out)
    args.add("--root", ctx.attr.root)
    args.add("--sysroot_lib", ctx.attr.sysroot_lib)
    inputs = []
    for program in ctx.attr.programs:
        executable = program[DefaultInfo].files_to_run.executable
        args.add("--program", executable)
        inputs.append(executable)

        # Only the shared libraries of the runfiles: the .pte data the program would
        # find there are bundled once, from `models`.
        for file in program[DefaultInfo].default_runfiles.files.to_list():
            if file.basename.endswith(".so") or ".so." in file.basename:
                args.add("--library", file)
                inputs.append(file)
    for model in ctx.files.models:
        if model.extension == "pte":
            args.add("--model", model)
            inputs.append(model)
    for program, model in ctx.attr.default_models.items():
        args.add("--default_model", "%s=%s" % (program, model))
    ctx.actions.run(
        executable = ctx.executable._make_bundle,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = "Arm64Bundle",
        progress_message = "Bundling %s for arm64 devices" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

arm64_bundle = rule(
    implementation = _arm64_bundle_impl,
    doc = "One .tar with aarch64 programs, their libraries and loader, .pte files and launchers.",
    attrs = dict(
        {
            "programs": attr.label_list(cfg = to_fixed_target, mandatory = True),
            "models": attr.label_list(allow_files = [".pte", ".json", ".txt"], cfg = "host"),
            "default_models": attr.string_dict(doc = "program name -> the .pte its launcher passes as --model"),
            "root": attr.string(doc = "the folder the archive unpacks to", mandatory = True),
            # The sysroot of //toolchains/linux_aarch64 (Debian's cross packages).
            "sysroot_lib": attr.string(default = "/usr/aarch64-linux-gnu/lib"),
            "_make_bundle": attr.label(default = "//deploy:make_bundle", executable = True, cfg = "host"),
        },
        **fixed_target_attrs("aarch64")
    ),
)
