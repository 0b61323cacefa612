"""causal_lm_pte, the rule exporting a Hugging Face causal LM folder to a .pte
(docs/llm.md). Its definition sits with the project's other rules, in bazel/hf_export.bzl;
this is the load point users know."""

load("//bazel:hf_export.bzl", _causal_lm_pte = "causal_lm_pte")

causal_lm_pte = _causal_lm_pte
