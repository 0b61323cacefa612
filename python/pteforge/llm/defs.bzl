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

load("//python/pteforge:defs.bzl", "export_once", "hf_folder_arguments", "hf_folder_export_attrs", "run_exporter")

def _causal_lm_pte_impl(ctx):
    arguments = hf_folder_arguments(ctx, "hf_model", ["--max_seq_len=%d" % ctx.attr.max_seq_len])
    return run_exporter(ctx, arguments, depset(ctx.files.hf_model))

_causal_lm_pte = rule(
    implementation = _causal_lm_pte_impl,
    doc = "Exports a Hugging Face causal LM folder to <name>.pte and <name>.report.json (pteforge.llm).",
    attrs = hf_folder_export_attrs(
        backends = ["portable", "xnnpack", "cortex_m"],
        quantizations = ["none", "int8", "int4"],
        max_seq_len = attr.int(default = 512, doc = "Positions in the KV cache: prompt and generated tokens."),
    ),
)

def causal_lm_pte(name, **kwargs):
    # One export for every configuration (pte_export's export_once).
    export_once(_causal_lm_pte, name, **kwargs)
