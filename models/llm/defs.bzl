"""tiny_causal_lm: a tiny Hugging Face causal LM folder with seeded random weights and a
tokenizer trained at build time (make_tiny_model.py), for tests."""

# The families make_tiny_model.py builds.
FAMILIES = ["llama", "qwen2", "gpt2", "phi"]

def _tiny_causal_lm_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [ctx.attr.family, out.path] + [file.path for file in ctx.files.corpus],
        inputs = ctx.files.corpus,
        outputs = [out],
        mnemonic = "TinyCausalLm",
        progress_message = "Writing %s (a tiny %s with UNTRAINED random weights)" % (ctx.label, ctx.attr.family),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

tiny_causal_lm = rule(
    implementation = _tiny_causal_lm_impl,
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random model of `family` (models/llm/make_tiny_model.py).",
    attrs = {
        "family": attr.string(mandatory = True, values = FAMILIES),
        "corpus": attr.label_list(allow_files = True, mandatory = True, doc = "Text the tokenizer is trained on."),
        "_tool": attr.label(default = "//models/llm:make_tiny_model", executable = True, cfg = "exec"),
    },
)
