"""tiny_folder_rule: makes the rule of a family of tiny Hugging Face model folders with
seeded random weights and a tokenizer trained at build time, written by a
make_tiny_model.py (models/llm: tiny_causal_lm, models/seq2seq: tiny_seq2seq), for tests.

The rule's targets take a `family` among `families` and the `corpus` the tokenizer is
trained on; the tool runs as `make_tiny_model.py FAMILY OUT_DIR CORPUS_FILE...`.
"""

def _tiny_folder_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [ctx.attr.family, out.path] + [file.path for file in ctx.files.corpus],
        inputs = ctx.files.corpus,
        outputs = [out],
        mnemonic = ctx.attr._mnemonic,
        progress_message = "Writing %s (a tiny %s with UNTRAINED random weights)" % (ctx.label, ctx.attr.family),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

def tiny_folder_rule(tool, families, mnemonic, doc):
    """The rule; `tool` is the make_tiny_model py_binary's label, `mnemonic` its actions'."""
    return rule(
        implementation = _tiny_folder_impl,
        doc = doc,
        attrs = {
            "family": attr.string(mandatory = True, values = families),
            "corpus": attr.label_list(allow_files = True, mandatory = True, doc = "Text the tokenizer is trained on."),
            "_tool": attr.label(default = tool, executable = True, cfg = "exec"),
            "_mnemonic": attr.string(default = mnemonic),
        },
    )
