"""tiny_causal_lm and tiny_seq2seq: tiny Hugging Face model folders (a causal LM, an
encoder-decoder) with seeded random weights and a tokenizer trained at build time,
written by models/llm/make_tiny_model.py and models/seq2seq/make_tiny_model.py, for tests
and the docs.

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

def _tiny_folder_rule(tool, families, mnemonic, doc):
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

# The families models/llm/make_tiny_model.py builds.
CAUSAL_LM_FAMILIES = ["llama", "qwen2", "gpt2", "phi"]

tiny_causal_lm = _tiny_folder_rule(
    tool = "//models/llm:make_tiny_model",
    families = CAUSAL_LM_FAMILIES,
    mnemonic = "TinyCausalLm",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random model of `family` (models/llm/make_tiny_model.py).",
)

# The families models/seq2seq/make_tiny_model.py builds (pteforge.seq2seq.testing_models.FAMILIES).
SEQ2SEQ_FAMILIES = ["t5", "bart", "marian", "m2m_100", "whisper"]

tiny_seq2seq = _tiny_folder_rule(
    tool = "//models/seq2seq:make_tiny_model",
    families = SEQ2SEQ_FAMILIES,
    mnemonic = "TinySeq2Seq",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random encoder-decoder of `family` (models/seq2seq/make_tiny_model.py).",
)
