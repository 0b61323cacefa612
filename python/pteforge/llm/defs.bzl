"""causal_lm_pte: exports a Hugging Face causal LM folder to a .pte as a build action
(`pteforge-export --hf_model=DIR`, pteforge.llm; docs/llm.md).

    causal_lm_pte(
        name = "smollm_pte",          # writes smollm.pte + smollm.report.json
        hf_model = ":smollm_files",   # the folder: a directory target, or its files
        max_seq_len = 512,            # positions in the KV cache
        backend = "xnnpack",          # or "portable"
        quantize = "int8",            # "int4" (8da4w), or "none" (int8, int4: XNNPACK only)
    )

The folder holds config.json, the weights, and usually tokenizer.json and
generation_config.json, which go into the .pte. `hf_model` is either one directory
(e.g. made by a rule with ctx.actions.declare_directory) or the folder's files (a
filegroup), of which config.json names the folder.
"""

load("//python/pteforge:defs.bzl", "export_once", "run_exporter")

def model_folder(ctx):
    """The folder of ctx.files.hf_model: one directory, or the folder of its config.json
    (also for pteforge.seq2seq's seq2seq_pte)."""
    files = ctx.files.hf_model
    if len(files) == 1 and files[0].is_directory:
        return files[0].path
    configs = [file for file in files if file.basename == "config.json"]
    if len(configs) != 1:
        fail("%s: hf_model must be one directory, or a folder's files with one config.json (found %d)" %
             (ctx.label, len(configs)))
    return configs[0].dirname

def _causal_lm_pte_impl(ctx):
    if ctx.attr.quantize != "none" and ctx.attr.backend != "xnnpack":
        fail("%s: quantize = \"%s\" needs backend = \"xnnpack\"" % (ctx.label, ctx.attr.quantize))
    arguments = [
        "--hf_model=" + model_folder(ctx),
        "--max_seq_len=%d" % ctx.attr.max_seq_len,
        "--backend=" + ctx.attr.backend,
        "--quantize=" + ctx.attr.quantize,
    ]
    return run_exporter(ctx, arguments, depset(ctx.files.hf_model))

_causal_lm_pte = rule(
    implementation = _causal_lm_pte_impl,
    doc = "Exports a Hugging Face causal LM folder to <name>.pte and <name>.report.json (pteforge.llm).",
    attrs = {
        "hf_model": attr.label_list(
            allow_files = True,
            mandatory = True,
            doc = "The model folder: one directory, or its files (with config.json).",
        ),
        "max_seq_len": attr.int(default = 512, doc = "Positions in the KV cache: prompt and generated tokens."),
        "backend": attr.string(default = "portable", values = ["portable", "xnnpack", "cortex_m"]),
        "quantize": attr.string(default = "none", values = ["none", "int8", "int4"]),
        "program": attr.string(mandatory = True, doc = "The output files' name: <program>.pte, ..."),
        "_exporter": attr.label(
            default = "//python/pteforge:export",
            executable = True,
            cfg = "exec",
        ),
    },
)

def causal_lm_pte(name, **kwargs):
    # One export for every configuration (pte_export's export_once).
    export_once(_causal_lm_pte, name, **kwargs)
