"""Writes a tiny chat model as a GGUF file, the way llama.cpp ships SmolLM2-135M-Instruct,
for tests of the GGUF path and the chat (a build action: models/llm/BUILD.bazel).

    make_tiny_chat_gguf.py OUT_FILE CORPUS_FILE...

A Llama with seeded random weights (as make_tiny_model.py's) and a byte-level BPE
tokenizer trained here with ChatML's special tokens at ids 0-2, written by
pteforge.llm.from_gguf.testing as llama.cpp's converter writes: Q8_0 embeddings, Q4_1
matrices, F32 norms, SmolLM2's chat template (ChatML with a default system message).
The end-of-turn token's embedding row (tied to the output) is negated: with this seed,
some greedy replies of the chat tests then end with it after a few tokens, as a trained
model's do, and others run to max_new_tokens (with the row as drawn, none ends; scaled
up, none does either: the states of a random model point away from it).
"""

from __future__ import annotations

import sys

from pteforge.support.quiet import quiet_dependencies

quiet_dependencies()  # before torch: a build action prints only its own lines

import torch  # noqa: E402
import transformers  # noqa: E402

from cc.text.testdata import make_golden  # noqa: E402
from pteforge.llm.from_gguf import testing as testing_gguf  # noqa: E402

VOCAB_SIZE = 768
END_OF_TURN_SCALE = -1.0


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, corpus_paths = argv[0], argv[1:]
    tokenizer = testing_gguf.chat_tokenizer(make_golden.read_corpus(corpus_paths) + make_golden.MULTILINGUAL * 20,
                                            VOCAB_SIZE)
    bos, end_of_turn = (tokenizer.token_to_id(token) for token in testing_gguf.CHATML_SPECIALS[1:])
    config = transformers.LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, bos_token_id=bos,
        eos_token_id=end_of_turn, tie_word_embeddings=True, initializer_range=0.1)
    torch.manual_seed(7)
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.get_input_embeddings().weight[end_of_turn] *= END_OF_TURN_SCALE
    testing_gguf.write_llama_gguf(model, tokenizer, out, weight_type="Q4_1", embedding_type="Q8_0",
                                  chat_template=testing_gguf.SMOLLM2_CHAT_TEMPLATE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
