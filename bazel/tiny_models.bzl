"""tiny_causal_lm and tiny_seq2seq: tiny Hugging Face model folders (a causal LM, an
encoder-decoder) with seeded random weights and a tokenizer trained at build time,
written by models/llm/make_tiny_model.py and models/seq2seq/make_tiny_model.py, for tests
and the docs.

Each takes a `family` among its families and the `corpus` the tokenizer is trained on;
the tool runs as `make_tiny_model.py FAMILY OUT_DIR CORPUS_FILE...`. The folder is
written once, in the host configuration, for the exports and the tests alike
(host_built): `<name>` is the folder, `<name>_writer` the action's target.
"""

load(":host_built.bzl", "host_built_writer")

def _tiny_folder_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.folder)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [ctx.attr.family, out.path] + [file.path for file in ctx.files.corpus],
        inputs = ctx.files.corpus,
        outputs = [out],
        mnemonic = ctx.attr._mnemonic,
        progress_message = "Writing %s (a tiny %s with UNTRAINED random weights)" % (
            ctx.label.relative(ctx.attr.folder),
            ctx.attr.family,
        ),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

def _tiny_folder_rule(tool, families, mnemonic, doc):
    """The rule; `tool` is the make_tiny_model py_binary's label, `mnemonic` its actions'."""
    return rule(
        implementation = _tiny_folder_impl,
        doc = doc,
        attrs = {
            "folder": attr.string(mandatory = True, doc = "The folder's name in the package."),
            "family": attr.string(mandatory = True, values = families),
            "corpus": attr.label_list(allow_files = True, mandatory = True, doc = "Text the tokenizer is trained on."),
            "_tool": attr.label(default = tool, executable = True, cfg = "exec"),
            "_mnemonic": attr.string(default = mnemonic),
        },
    )

# The families models/llm/make_tiny_model.py builds.
CAUSAL_LM_FAMILIES = ["llama", "qwen2", "gpt2", "phi"]

_tiny_causal_lm_writer = _tiny_folder_rule(
    tool = "//models/llm:make_tiny_model",
    families = CAUSAL_LM_FAMILIES,
    mnemonic = "TinyCausalLm",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random model of `family` (models/llm/make_tiny_model.py).",
)

# The families models/seq2seq/make_tiny_model.py builds (pteforge.seq2seq.testing_models.FAMILIES).
SEQ2SEQ_FAMILIES = ["t5", "bart", "marian", "m2m_100", "whisper"]

_tiny_seq2seq_writer = _tiny_folder_rule(
    tool = "//models/seq2seq:make_tiny_model",
    families = SEQ2SEQ_FAMILIES,
    mnemonic = "TinySeq2Seq",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random encoder-decoder of `family` (models/seq2seq/make_tiny_model.py).",
)

def tiny_causal_lm(name, family, corpus, **kwargs):
    """The folder of a tiny random causal LM of `family` (CAUSAL_LM_FAMILIES)."""
    host_built_writer(_tiny_causal_lm_writer, name, family = family, corpus = corpus, **kwargs)

def tiny_seq2seq(name, family, corpus, **kwargs):
    """The folder of a tiny random encoder-decoder of `family` (SEQ2SEQ_FAMILIES)."""
    host_built_writer(_tiny_seq2seq_writer, name, family = family, corpus = corpus, **kwargs)
