"""tiny_seq2seq: a tiny Hugging Face encoder-decoder folder with seeded random weights and
a tokenizer trained at build time (make_tiny_model.py), for tests and the docs."""

load("//models:tiny_folder.bzl", "tiny_folder_rule")

# The families make_tiny_model.py builds (pteforge.seq2seq.testing_models.FAMILIES).
FAMILIES = ["t5", "bart", "marian", "m2m_100", "whisper"]

tiny_seq2seq = tiny_folder_rule(
    tool = "//models/seq2seq:make_tiny_model",
    families = FAMILIES,
    mnemonic = "TinySeq2Seq",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random encoder-decoder of `family` (models/seq2seq/make_tiny_model.py).",
)
