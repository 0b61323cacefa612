"""pte_export: runs the pteforge exporter as a build action.

    pte_export(
        name = "stateful_pte",                    # writes stateful.pte + stateful.report.json
        model = "models.stateful:make_exporter",  # factory returning a MultiMethodExporter
        deps = [":stateful"],                     # py_library holding the factory
        backend = "portable",                     # or "xnnpack", "cortex_m"
        model_args = {"rows": "4"},               # factory keyword arguments ($(execpath) expands)
        replay = True,                            # also stateful.replay.txt (pteforge.verify.replay)
        plan_svg = True,                          # also stateful.plan.svg (pteforge.report.plan_svg)
    )

The output files are named after the target, without a trailing "_pte"; the target's
default output is the .pte, the report sits next to it (output group "report", and in
runfiles). The export
verifies the program against eager PyTorch; if any check fails the action fails and
writes nothing.

One export per build, whatever the configuration: a test on the host, an aarch64 test
built through a transition and a Cortex-M55 image all use the same action's .pte.
`<name>` forwards (and, outside the host configuration, symlinks) the files of
`<name>_export`, a manual target always built in the host configuration; without that,
every configuration that reaches a .pte exported it again (a Bergamot export is over a
minute). (A newer Bazel could drop the configuration with an incoming transition on the
rule; Bazel 4.2's Starlark transitions add a configuration hash to the output directory,
so they cannot join the host's.)
"""

def _program_name(label_name):
    return label_name[:-len("_pte")] if label_name.endswith("_pte") else label_name

def _exported_impl(ctx):
    export = ctx.attr.export
    default = export[DefaultInfo]
    groups = export[OutputGroupInfo]
    names = ["report", "replay", "plan"]
    files = default.files.to_list() + [f for name in names for f in getattr(groups, name).to_list()]
    if all([f.root.path == ctx.bin_dir.path for f in files]):
        # The host configuration: the export's own files.
        return [default, groups]
    linked = {}
    for f in files:
        link = ctx.actions.declare_file(f.basename)
        ctx.actions.symlink(output = link, target_file = f)
        linked[f.path] = link
    runfiles = [linked[f.path] for f in default.default_runfiles.files.to_list() if f.path in linked]
    return [
        DefaultInfo(files = depset(_relinked(default.files, linked)), runfiles = ctx.runfiles(files = runfiles)),
        OutputGroupInfo(**{name: depset(_relinked(getattr(groups, name), linked)) for name in names}),
    ]

def _relinked(files, linked):
    return [linked[f.path] for f in files.to_list()]

_exported = rule(
    implementation = _exported_impl,
    doc = "The files of an export built in the host configuration, in this one.",
    attrs = {"export": attr.label(mandatory = True, cfg = "host")},
)

def export_once(export_rule, name, tags = [], visibility = None, **kwargs):
    """Declares `export_rule` as <name>_export (host configuration) and <name> (its files).

    Args:
      export_rule: a rule calling run_exporter, with a `program` attribute.
      name: the target users name; the files are <name without "_pte">.*.
      tags: both targets' (a manual benchmark export stays manual).
      visibility: <name>'s; <name>_export is private.
      **kwargs: the export's attributes (testonly and target_compatible_with also
        apply to <name>).
    """
    export_rule(
        name = name + "_export",
        program = _program_name(name),
        # Only through <name>: //... would otherwise build it in the target
        # configuration too, where its files would clash with <name>'s links.
        tags = tags + ["manual"],
        visibility = ["//visibility:private"],
        **kwargs
    )
    _exported(
        name = name,
        export = ":" + name + "_export",
        tags = tags,
        visibility = visibility,
        **{key: kwargs[key] for key in ["testonly", "target_compatible_with"] if key in kwargs}
    )

def run_exporter(ctx, arguments, inputs, replay = False, plan_svg = False):
    """Runs the exporter command line (the rule's `_exporter`) as an action writing
    <name>.pte, <name>.report.json and, with `replay`, <name>.replay.txt, with
    `plan_svg`, <name>.plan.svg.

    Args:
      ctx: the rule context (ctx.attr._exporter is //python/pteforge:export,
        ctx.attr.program the files' name).
      arguments: what to export and how (--model=... or --hf_model=..., --backend=...).
      inputs: a depset of the files the export reads.
      replay: also write the conformance replay record.
      plan_svg: also draw the memory plan (pteforge.report.plan_svg).

    Returns:
      The rule's providers: the .pte as default output, the report and replay record
      next to it (output groups "report", "replay" and "plan", and runfiles).
    """
    name = ctx.attr.program
    pte = ctx.actions.declare_file(name + ".pte")
    report = ctx.actions.declare_file(name + ".report.json")
    replay_files = [ctx.actions.declare_file(name + ".replay.txt")] if replay else []
    plan_files = [ctx.actions.declare_file(name + ".plan.svg")] if plan_svg else []
    command_line = ctx.actions.args()
    command_line.add_all(arguments + ["--out=" + pte.path, "--report=" + report.path] +
                         ["--replay=" + file.path for file in replay_files] +
                         ["--plan_svg=" + file.path for file in plan_files])
    # In an @file, as a persistent worker takes its requests (pteforge.cli.worker): one
    # exporter process runs export after export instead of importing torch for each.
    command_line.use_param_file("@%s", use_always = True)
    command_line.set_param_file_format("multiline")
    ctx.actions.run(
        executable = ctx.attr._exporter[DefaultInfo].files_to_run,
        arguments = [command_line],
        inputs = inputs,
        outputs = [pte, report] + replay_files + plan_files,
        # Model packages are imported by their workspace path (models.stateful), from
        # the source tree or, for generated files, the output tree.
        env = {"PYTHONPATH": ".:" + ctx.bin_dir.path},
        execution_requirements = {"supports-workers": "1"},
        mnemonic = "PteExport",
        progress_message = "Exporting //%s:%s_pte to ExecuTorch (%s backend)" % (ctx.label.package, name, ctx.attr.backend),
    )
    return [
        # The .pte alone is the default output, so $(rootpath :x_pte) names it; the
        # report (and replay record) are written by the same action, sit next to it,
        # and are in runfiles.
        DefaultInfo(
            files = depset([pte]),
            runfiles = ctx.runfiles(files = [pte, report] + replay_files),
        ),
        OutputGroupInfo(report = depset([report]), replay = depset(replay_files), plan = depset(plan_files)),
    ]

def _pte_export_impl(ctx):
    sources = depset(transitive = [dep[PyInfo].transitive_sources for dep in ctx.attr.deps])
    arguments = [
        "--model=" + ctx.attr.model,
        "--backend=" + ctx.attr.backend,
    ] + [
        "--model_args=%s=%s" % (key, ctx.expand_location(value, ctx.attr.data))
        for key, value in sorted(ctx.attr.model_args.items())
    ]
    return run_exporter(ctx, arguments, depset(ctx.files.data, transitive = [sources]), ctx.attr.replay, ctx.attr.plan_svg)

_pte_export = rule(
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
        "backend": attr.string(default = "portable", values = ["portable", "xnnpack", "cortex_m"]),
        "replay": attr.bool(
            doc = "Also write <name>.replay.txt: the conformance calls and eager PyTorch's " +
                  "results, to check the program again where it runs (cc/replay).",
        ),
        "plan_svg": attr.bool(
            doc = "Also write <name>.plan.svg: the memory plan as a picture (output group " +
                  "\"plan\"; pteforge.report.plan_svg).",
        ),
        "model_args": attr.string_dict(
            doc = "Keyword arguments for the factory; $(execpath ...) of `data` expands.",
        ),
        "data": attr.label_list(
            allow_files = True,
            doc = "Files the factory reads (checkpoints, corpora).",
        ),
        "program": attr.string(mandatory = True, doc = "The output files' name: <program>.pte, ..."),
        "_exporter": attr.label(
            default = "//python/pteforge:export",
            executable = True,
            cfg = "exec",
        ),
    },
)

def pte_export(name, **kwargs):
    export_once(_pte_export, name, **kwargs)

def _hf_model_folder(ctx):
    """The folder of ctx.files.hf_model: one directory, or the folder of its config.json."""
    files = ctx.files.hf_model
    if len(files) == 1 and files[0].is_directory:
        return files[0].path
    configs = [file for file in files if file.basename == "config.json"]
    if len(configs) != 1:
        fail("%s: hf_model must be one directory, or a folder's files with one config.json (found %d)" %
             (ctx.label, len(configs)))
    return configs[0].dirname

def hf_folder_export_attrs(backends, quantizations, **extra):
    """The attributes of a rule exporting a Hugging Face model folder with the command
    line (causal_lm_pte, seq2seq_pte): hf_model, backend, quantize, program, the
    exporter, and `extra`'s."""
    attrs = {
        "hf_model": attr.label_list(
            allow_files = True,
            mandatory = True,
            doc = "The model folder: one directory, or its files (with config.json).",
        ),
        "backend": attr.string(default = "portable", values = backends),
        "quantize": attr.string(default = "none", values = quantizations),
        "program": attr.string(mandatory = True, doc = "The output files' name: <program>.pte, ..."),
        "_exporter": attr.label(
            default = "//python/pteforge:export",
            executable = True,
            cfg = "exec",
        ),
    }
    attrs.update(extra)
    return attrs

def hf_folder_arguments(ctx, flag, options):
    """The command line of such a rule: --<flag>=FOLDER, `options`, --backend and
    --quantize (quantize needs backend = "xnnpack")."""
    if ctx.attr.quantize != "none" and ctx.attr.backend != "xnnpack":
        fail("%s: quantize = \"%s\" needs backend = \"xnnpack\"" % (ctx.label, ctx.attr.quantize))
    return ["--%s=%s" % (flag, _hf_model_folder(ctx))] + options + [
        "--backend=" + ctx.attr.backend,
        "--quantize=" + ctx.attr.quantize,
    ]

