"""marian_random_checkpoint: a Hugging Face Marian checkpoint with seeded random weights,
written once, in the host configuration, for the exports and the tests alike
(host_built): `<name>` is the folder, `<name>_writer` the action's target."""

load(":host_built.bzl", "host_built_writer")

def _marian_random_checkpoint_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.folder)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [out.path, ctx.attr.architecture, ctx.file.source_corpus.path, ctx.file.target_corpus.path],
        inputs = [ctx.file.source_corpus, ctx.file.target_corpus],
        outputs = [out],
        mnemonic = "MarianCheckpoint",
        progress_message = "Writing %s (UNTRAINED random weights, %s size)" % (
            ctx.label.relative(ctx.attr.folder),
            ctx.attr.architecture,
        ),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_marian_random_checkpoint_writer = rule(
    implementation = _marian_random_checkpoint_impl,
    doc = "A checkpoint directory of the `architecture` in models/opus/sizes.py, with SentencePiece " +
          "models trained on the given corpora and seeded random weights.",
    attrs = {
        "folder": attr.string(mandatory = True, doc = "The checkpoint folder's name in the package."),
        "architecture": attr.string(mandatory = True, values = ["full", "tiny"]),
        "source_corpus": attr.label(allow_single_file = True, mandatory = True),
        "target_corpus": attr.label(allow_single_file = True, mandatory = True),
        "_tool": attr.label(default = "//models/opus:make_random_checkpoint", executable = True, cfg = "exec"),
    },
)

def marian_random_checkpoint(name, architecture, source_corpus, target_corpus, **kwargs):
    """The checkpoint folder `name` of the `architecture` ("full" or "tiny")."""
    host_built_writer(
        _marian_random_checkpoint_writer,
        name,
        architecture = architecture,
        source_corpus = source_corpus,
        target_corpus = target_corpus,
        **kwargs
    )
