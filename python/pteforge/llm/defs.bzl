"""causal_lm_pte, the rule exporting a Hugging Face causal LM folder to a .pte
(docs/llm.md), and gguf_folder, a GGUF file read into such a folder. Their definitions sit
with the project's other rules, in bazel/hf_export.bzl; this is the load point users know."""

load("//bazel:hf_export.bzl", _causal_lm_pte = "causal_lm_pte", _gguf_folder = "gguf_folder")

causal_lm_pte = _causal_lm_pte
gguf_folder = _gguf_folder
