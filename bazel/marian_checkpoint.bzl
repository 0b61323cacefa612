"""marian_random_checkpoint: a Hugging Face Marian checkpoint with seeded random weights."""

def _marian_random_checkpoint_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [out.path, ctx.attr.architecture, ctx.file.source_corpus.path, ctx.file.target_corpus.path],
        inputs = [ctx.file.source_corpus, ctx.file.target_corpus],
        outputs = [out],
        mnemonic = "MarianCheckpoint",
        progress_message = "Writing %s (UNTRAINED random weights, %s size)" % (ctx.label, ctx.attr.architecture),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

marian_random_checkpoint = rule(
    implementation = _marian_random_checkpoint_impl,
    doc = "A checkpoint directory of the `architecture` in models/opus/sizes.py, with SentencePiece " +
          "models trained on the given corpora and seeded random weights.",
    attrs = {
        "architecture": attr.string(mandatory = True, values = ["full", "tiny"]),
        "source_corpus": attr.label(allow_single_file = True, mandatory = True),
        "target_corpus": attr.label(allow_single_file = True, mandatory = True),
        "_tool": attr.label(default = "//models/opus:make_random_checkpoint", executable = True, cfg = "exec"),
    },
)
