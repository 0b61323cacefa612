"""pte_export: runs the pteforge exporter as a build action.

    pte_export(
        name = "stateful_pte",                    # writes stateful.pte + stateful.report.json
        model = "models.stateful:make_exporter",  # factory returning a MultiMethodExporter
        deps = [":stateful"],                     # py_library holding the factory
        backend = "portable",                     # or "xnnpack"
        model_args = {"rows": "4"},               # factory keyword arguments ($(execpath) expands)
        replay = True,                            # also stateful.replay.txt (pteforge.replay)
        plan_svg = True,                          # also stateful.plan.svg (pteforge.plan_svg)
    )

The output files are named after the target, without a trailing "_pte"; the target's
default output is the .pte, the report sits next to it (output group "report", and in
runfiles). The export
verifies the program against eager PyTorch; if any check fails the action fails and
writes nothing.
"""

def _program_name(label_name):
    return label_name[:-len("_pte")] if label_name.endswith("_pte") else label_name

def _pte_export_impl(ctx):
    name = _program_name(ctx.label.name)
    pte = ctx.actions.declare_file(name + ".pte")
    report = ctx.actions.declare_file(name + ".report.json")
    replay = [ctx.actions.declare_file(name + ".replay.txt")] if ctx.attr.replay else []
    plan = [ctx.actions.declare_file(name + ".plan.svg")] if ctx.attr.plan_svg else []
    sources = depset(transitive = [dep[PyInfo].transitive_sources for dep in ctx.attr.deps])
    arguments = [
        "--model=" + ctx.attr.model,
        "--out=" + pte.path,
        "--report=" + report.path,
        "--backend=" + ctx.attr.backend,
    ] + ["--replay=" + file.path for file in replay] + ["--plan_svg=" + file.path for file in plan] + [
        "--model_args=%s=%s" % (key, ctx.expand_location(value, ctx.attr.data))
        for key, value in sorted(ctx.attr.model_args.items())
    ]
    ctx.actions.run(
        executable = ctx.attr._exporter[DefaultInfo].files_to_run,
        arguments = arguments,
        inputs = depset(ctx.files.data, transitive = [sources]),
        outputs = [pte, report] + replay + plan,
        # Model packages are imported by their workspace path (models.stateful), from
        # the source tree or, for generated files, the output tree.
        env = {"PYTHONPATH": ".:" + ctx.bin_dir.path},
        mnemonic = "PteExport",
        progress_message = "Exporting %s to ExecuTorch (%s backend)" % (ctx.label, ctx.attr.backend),
    )
    return [
        # The .pte alone is the default output, so $(rootpath :x_pte) names it; the
        # report (and replay record) are written by the same action, sit next to it,
        # and are in runfiles.
        DefaultInfo(
            files = depset([pte]),
            runfiles = ctx.runfiles(files = [pte, report] + replay),
        ),
        OutputGroupInfo(report = depset([report]), replay = depset(replay), plan = depset(plan)),
    ]

pte_export = rule(
    implementation = _pte_export_impl,
    doc = "Exports a MultiMethodExporter factory to <name>.pte and <name>.report.json.",
    attrs = {
        "model": attr.string(
            mandatory = True,
            doc = "The factory, as package.module:function (a MultiMethodExporter).",
        ),
        "deps": attr.label_list(
            providers = [PyInfo],
            doc = "py_library targets providing the factory's module.",
        ),
        "backend": attr.string(default = "portable", values = ["portable", "xnnpack"]),
        "replay": attr.bool(
            doc = "Also write <name>.replay.txt: the conformance calls and eager PyTorch's " +
                  "results, to check the program again where it runs (cc/replay).",
        ),
        "plan_svg": attr.bool(
            doc = "Also write <name>.plan.svg: the memory plan as a picture (output group " +
                  "\"plan\"; pteforge.plan_svg).",
        ),
        "model_args": attr.string_dict(
            doc = "Keyword arguments for the factory; $(execpath ...) of `data` expands.",
        ),
        "data": attr.label_list(
            allow_files = True,
            doc = "Files the factory reads (checkpoints, corpora).",
        ),
        "_exporter": attr.label(
            default = "//python/pteforge:export",
            executable = True,
            cfg = "exec",
        ),
    },
)
