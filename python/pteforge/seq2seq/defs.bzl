"""seq2seq_pte, the rule exporting a Hugging Face encoder-decoder folder to a .pte
(docs/seq2seq.md). Its definition sits with the project's other rules, in
bazel/hf_export.bzl; this is the load point users know."""

load("//bazel:hf_export.bzl", _seq2seq_pte = "seq2seq_pte")

seq2seq_pte = _seq2seq_pte
