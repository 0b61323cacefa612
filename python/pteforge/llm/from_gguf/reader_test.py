"""pteforge.llm.from_gguf.reader: a tiny Llama written to GGUF as llama.cpp writes it (testing.py), read
back into a Hugging Face folder: the same weights (exactly in F32; in Q8_0 and Q4_1 as
the `gguf` package dequantizes them), tokenizer, special tokens, chat template and
generation ids. Files of another architecture or tokenizer, with an unknown or
unsupported storage type, truncated or not GGUF at all are refused by name."""

import json
import os
import struct

import numpy as np
import pytest
import torch
import transformers

from pteforge import ExportError
from pteforge.support import testing
from pteforge.llm.from_gguf import reader as gguf_reader, testing as testing_gguf

_CORPUS = [f"Sentence {i}: the weather is nice today, and {i * 7} people walk to the market." for i in range(60)]
_CORPUS += ["What is the capital of France? The capital of France is Paris.", "Café, naïve, 東京 — it's fine!"] * 10
_TEXTS = ["Hello world, it's 2024!", "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n",
          "  spaces\tand\nlines  ", "Café 東京 <|endoftext|>"]


@pytest.fixture(scope="module")
def tokenizer():
    return testing_gguf.chat_tokenizer(_CORPUS, vocab_size=320)


@pytest.fixture(scope="module")
def model(tokenizer):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, bos_token_id=1, eos_token_id=2,
        tie_word_embeddings=True, initializer_range=0.1)
    return transformers.LlamaForCausalLM(config).eval()


def _read(model, tokenizer, tmp_path, **kwargs):
    path = str(tmp_path / "tiny.gguf")
    testing_gguf.write_llama_gguf(model, tokenizer, path, chat_template=testing_gguf.SMOLLM2_CHAT_TEMPLATE, **kwargs)
    gguf_reader.gguf_to_folder(path, tmp_path / "folder")
    return str(tmp_path / "folder")


def test_float32_round_trip(model, tokenizer, tmp_path):
    folder = _read(model, tokenizer, tmp_path)
    assert sorted(os.listdir(folder)) == ["config.json", "generation_config.json", "model.safetensors",
                                          "tokenizer.json", "tokenizer_config.json"]
    read = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    expected = model.state_dict()
    for name, tensor in read.state_dict().items():
        assert torch.equal(tensor, expected[name]), name
    ids = torch.tensor([tokenizer.encode(_TEXTS[1]).ids])
    assert torch.equal(read(ids).logits, model(ids).logits)

    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    for text in _TEXTS:
        assert hf_tokenizer(text)["input_ids"] == tokenizer.encode(text).ids, text
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    assert config["chat_template"] == testing_gguf.SMOLLM2_CHAT_TEMPLATE
    assert (config["bos_token"], config["eos_token"], config["pad_token"]) == ("<|im_start|>", "<|im_end|>",
                                                                               "<|im_end|>")
    assert config["model_max_length"] == 128
    generation = transformers.GenerationConfig.from_pretrained(folder)
    assert (generation.bos_token_id, generation.eos_token_id, generation.pad_token_id) == (1, 2, 2)
    assert not generation.do_sample


def test_quantized_weights_read_as_gguf_dequantizes_them(model, tokenizer, tmp_path):
    import gguf

    # As the SmolLM2 file: Q8_0 embeddings, Q4_1 matrices, F32 norms.
    folder = _read(model, tokenizer, tmp_path, weight_type="Q4_1", embedding_type="Q8_0")
    read = transformers.AutoModelForCausalLM.from_pretrained(folder).state_dict()
    for name, tensor in model.state_dict().items():
        if tensor.dim() == 1:
            assert torch.equal(read[name], tensor), name
            continue
        kind = gguf.GGMLQuantizationType.Q8_0 if "embed" in name or name == "lm_head.weight" else \
            gguf.GGMLQuantizationType.Q4_1
        expected = gguf.quants.dequantize(gguf.quants.quantize(tensor.numpy(), kind), kind)
        assert not torch.equal(read[name], tensor), name  # really quantized
        torch.testing.assert_close(read[name], torch.from_numpy(expected), rtol=1e-6, atol=1e-6, msg=name)


def _tensor_type_offset(data: bytes, name: str) -> int:
    """Where the ggml type of tensor `name` is in a GGUF file's tensor table."""
    encoded = name.encode()
    position = data.index(struct.pack("<Q", len(encoded)) + encoded) + 8 + len(encoded)
    (dims,) = struct.unpack_from("<I", data, position)
    return position + 4 + 8 * dims


def test_files_it_cannot_read_are_refused_by_name(model, tokenizer, tmp_path):
    path = str(tmp_path / "tiny.gguf")

    testing_gguf.write_llama_gguf(model, tokenizer, path, architecture="qwen2")
    with pytest.raises(ExportError, match=r"tiny.gguf holds a model of architecture 'qwen2'; pteforge reads GGUF "
                                          r"files of architecture llama"):
        gguf_reader.check_gguf(path)

    testing_gguf.write_llama_gguf(model, tokenizer, path, tokenizer_model="llama")
    with pytest.raises(ExportError, match=r"has a tokenizer of kind 'llama' \(tokenizer.ggml.model\); this reader "
                                          r"takes gpt2"):
        gguf_reader.check_gguf(path)

    testing_gguf.write_llama_gguf(model, tokenizer, path, weight_type="Q5_0")
    with pytest.raises(ExportError, match=r"tensor token_embd.weight is stored as Q5_0, which this reader does "
                                          r"not dequantize; supported: F32, F16, BF16, Q4_0, Q4_1, Q8_0"):
        gguf_reader.check_gguf(path)

    testing_gguf.write_llama_gguf(model, tokenizer, path)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    unknown = bytearray(data)
    struct.pack_into("<I", unknown, _tensor_type_offset(data, "blk.1.ffn_up.weight"), 99)
    (tmp_path / "unknown.gguf").write_bytes(bytes(unknown))
    with pytest.raises(ExportError, match=r"unknown.gguf stores a tensor in ggml type 99, which this reader does "
                                          r"not know; supported: F32"):
        gguf_reader.check_gguf(tmp_path / "unknown.gguf")

    for cut in (len(data) - 100, 40, len(data) // 2):
        (tmp_path / "cut.gguf").write_bytes(bytes(data[:cut]))
        with pytest.raises(ExportError, match=rf"cut.gguf( \({cut} bytes\))? is truncated"):
            gguf_reader.gguf_to_folder(tmp_path / "cut.gguf", tmp_path / "never")
    assert not os.path.exists(tmp_path / "never")

    (tmp_path / "model.bin").write_bytes(np.zeros(64, np.float32).tobytes())
    with pytest.raises(ExportError, match=r"model.bin is not a GGUF file: it starts with b'\\x00\\x00\\x00\\x00', "
                                          r"not b'GGUF'"):
        gguf_reader.check_gguf(tmp_path / "model.bin")


if __name__ == "__main__":
    testing.main(__file__)
