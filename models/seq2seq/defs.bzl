"""tiny_seq2seq: a tiny Hugging Face encoder-decoder folder with seeded random weights and
a tokenizer trained at build time (make_tiny_model.py), for tests and the docs."""

# The families make_tiny_model.py builds (pteforge.seq2seq.testing_models.FAMILIES).
FAMILIES = ["t5", "bart", "marian", "m2m_100", "whisper"]

def _tiny_seq2seq_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [ctx.attr.family, out.path] + [file.path for file in ctx.files.corpus],
        inputs = ctx.files.corpus,
        outputs = [out],
        mnemonic = "TinySeq2Seq",
        progress_message = "Writing %s (a tiny %s with UNTRAINED random weights)" % (ctx.label, ctx.attr.family),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

tiny_seq2seq = rule(
    implementation = _tiny_seq2seq_impl,
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random encoder-decoder of `family` (models/seq2seq/make_tiny_model.py).",
    attrs = {
        "family": attr.string(mandatory = True, values = FAMILIES),
        "corpus": attr.label_list(allow_files = True, mandatory = True, doc = "Text the tokenizer is trained on."),
        "_tool": attr.label(default = "//models/seq2seq:make_tiny_model", executable = True, cfg = "exec"),
    },
)
