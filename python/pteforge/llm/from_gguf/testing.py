"""Writes a transformers Llama and its byte-level BPE tokenizer to a GGUF file the way
llama.cpp's converter (convert_hf_to_gguf.py) does, for tests of the reader: its own
code, independent of the reader, on the `gguf` package's writer and tensor names.

    write_llama_gguf(model, tokenizer, "tiny.gguf", weight_type="Q4_1", chat_template=TEMPLATE)

What llama.cpp does and this repeats: tensors renamed by gguf's TensorNameMap
(model.layers.0.self_attn.q_proj.weight -> blk.0.attn_q.weight); the query and key
projections' rows permuted from transformers' rotary layout (rotate_half) to ggml's
interleaved one; a tied lm_head left out; norms kept in F32 and matrices quantized with
`gguf.quants`; the vocabulary in id order with special added tokens marked CONTROL.
"""

from __future__ import annotations

import json

import numpy as np
import torch

# SmolLM2-Instruct's chat template, as its GGUF file carries it (ChatML with a default
# system message).
SMOLLM2_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


CHATML_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


def chat_tokenizer(corpus: list[str], vocab_size: int):
    """A byte-level BPE tokenizer trained on `corpus`, as SmolLM2's: GPT-2's pre-tokenizer
    and decoder, ChatML's special tokens at ids 0, 1, 2."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(CHATML_SPECIALS), min_frequency=2,
                                  show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(corpus, trainer)
    return tokenizer


def _permute(weights: torch.Tensor, heads: int) -> torch.Tensor:
    """llama.cpp's LlamaModel.permute: rotary pairs (i, i + d/2) become (2i, 2i + 1)."""
    return (weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def write_llama_gguf(model, tokenizer, path: str, weight_type: str = "F32", embedding_type: str | None = None,
                     chat_template: str | None = None, architecture: str = "llama",
                     tokenizer_model: str = "gpt2", pre_tokenizer: str = "smollm") -> None:
    """Writes `model` (a LlamaForCausalLM) and `tokenizer` (a `tokenizers.Tokenizer`,
    byte-level BPE) to `path`.

    Args:
      weight_type: the ggml type of the 2-D weights (F32, F16, Q8_0, Q4_1, Q4_0, Q5_0...).
      embedding_type: the embedding table's type (default: weight_type).
      chat_template: stored as tokenizer.chat_template.
      architecture, tokenizer_model, pre_tokenizer: the names written in the metadata
        (tests write other ones to see them refused).
    """
    import gguf

    config = model.config
    writer = gguf.GGUFWriter(path, architecture)
    writer.add_name("tiny test llama")
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_freq_base(float(config.rope_parameters["rope_theta"]))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_rope_dimension_count(config.hidden_size // config.num_attention_heads)
    writer.add_vocab_size(config.vocab_size)
    _add_tokenizer(writer, tokenizer, tokenizer_model, pre_tokenizer, chat_template, config)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config.num_hidden_layers)
    for hf_name, tensor in model.state_dict().items():
        if hf_name == "lm_head.weight" and config.tie_word_embeddings:
            continue
        tensor = tensor.detach().float()
        if hf_name.endswith("q_proj.weight"):
            tensor = _permute(tensor, config.num_attention_heads)
        elif hf_name.endswith("k_proj.weight"):
            tensor = _permute(tensor, config.num_key_value_heads)
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        kind = (embedding_type or weight_type) if name == "token_embd.weight" else weight_type
        data = tensor.numpy()
        if data.ndim == 1 or kind == "F32":
            writer.add_tensor(name, data.astype(np.float32))
        else:
            qtype = gguf.GGMLQuantizationType[kind]
            writer.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _add_tokenizer(writer, tokenizer, tokenizer_model: str, pre_tokenizer: str, chat_template: str | None,
                   config) -> None:
    import gguf

    data = json.loads(tokenizer.to_str())
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    tokens = [token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]
    special = {added["content"] for added in data["added_tokens"] if added["special"]}
    writer.add_tokenizer_model(tokenizer_model)
    writer.add_tokenizer_pre(pre_tokenizer)
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL if token in special else gguf.TokenType.NORMAL
                            for token in tokens])
    writer.add_token_merges([" ".join(merge) if isinstance(merge, list) else merge
                             for merge in data["model"]["merges"]])
    writer.add_bos_token_id(config.bos_token_id)
    writer.add_eos_token_id(config.eos_token_id)
    writer.add_pad_token_id(config.eos_token_id)
    writer.add_add_bos_token(False)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
