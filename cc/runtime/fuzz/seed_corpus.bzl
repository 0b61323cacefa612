"""seed_corpus: a directory of fuzzer seed inputs, written by a tool from given files."""

def _seed_corpus_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    regressions = ["--regressions"] + [f.path for f in ctx.files.regressions] if ctx.files.regressions else []
    ctx.actions.run(
        executable = ctx.executable.tool,
        arguments = [out.path] + [f.path for f in ctx.files.srcs] + regressions,
        inputs = ctx.files.srcs + ctx.files.regressions,
        outputs = [out],
        mnemonic = "SeedCorpus",
        progress_message = "Writing fuzzer seeds %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

seed_corpus = rule(
    implementation = _seed_corpus_impl,
    attrs = {
        # What the seeds are made from (.pte programs, tokenizer.json files, ...).
        "srcs": attr.label_list(allow_files = True, mandatory = True),
        # Inputs of past findings, in the fuzzer's input layout, kept as they are.
        "regressions": attr.label_list(allow_files = True),
        # Run as `tool <output-dir> <srcs>... [--regressions <regressions>...]`
        # (seed_corpus_tool.py).
        "tool": attr.label(mandatory = True, executable = True, cfg = "exec"),
    },
)
