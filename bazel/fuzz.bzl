"""seed_corpus: a directory of fuzzer seed inputs made from .pte files."""

def _seed_corpus_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [out.path] + [f.path for f in ctx.files.programs + ctx.files.regressions],
        inputs = ctx.files.programs + ctx.files.regressions,
        outputs = [out],
        mnemonic = "SeedCorpus",
        progress_message = "Writing fuzzer seeds %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

seed_corpus = rule(
    implementation = _seed_corpus_impl,
    attrs = {
        "programs": attr.label_list(allow_files = [".pte"], mandatory = True),
        # Inputs of past findings, in the fuzzer's input layout, kept as they are.
        "regressions": attr.label_list(allow_files = True),
        "_tool": attr.label(default = "//cc/runtime/fuzz:make_seed_corpus", executable = True, cfg = "exec"),
    },
)
