"""tiny_causal_lm: a tiny Hugging Face causal LM folder with seeded random weights and a
tokenizer trained at build time (make_tiny_model.py), for tests."""

load("//models:tiny_folder.bzl", "tiny_folder_rule")

# The families make_tiny_model.py builds.
FAMILIES = ["llama", "qwen2", "gpt2", "phi"]

tiny_causal_lm = tiny_folder_rule(
    tool = "//models/llm:make_tiny_model",
    families = FAMILIES,
    mnemonic = "TinyCausalLm",
    doc = "A Hugging Face model folder (config, weights, tokenizer, generation config) of a tiny " +
          "random model of `family` (models/llm/make_tiny_model.py).",
)
