"""export_causal_lm's and the command line's (--hf_causal_lm) refusals: each a clear error
before any export work, and no file written. Successful exports are built by
models/llm (causal_lm_pte, through the command line) and checked by tests/llm."""

import os

import pytest
import torch
import transformers
from absl import flags
from tokenizers import Tokenizer, models

from pteforge import ExportError
from pteforge.cli import export as cli
from pteforge.llm import export_causal_lm
from pteforge.llm.export import load_hf_model
from pteforge.support import testing


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                      num_attention_heads=4, max_position_embeddings=64)
    return transformers.LlamaForCausalLM(config).eval()


@pytest.mark.parametrize("kwargs, message", [
    ({"backend": "gpu"}, "unknown backend 'gpu'"),
    ({"quantize": "int2", "backend": "xnnpack"}, "quantize='int2': expected None, 'int8' or 'int4'"),
    ({"quantize": "int8"}, "quantize='int8' needs backend='xnnpack'"),
    ({"quantize": "int4"}, "quantize='int4' needs backend='xnnpack'"),
    ({"max_seq_len": 8}, "max_seq_len=8: must be an integer of at least 16"),
])
def test_bad_arguments_are_refused(model, kwargs, message):
    with pytest.raises(ExportError, match=message):
        export_causal_lm(model, **{"max_seq_len": 32, **kwargs})


def test_a_tokenizer_that_is_not_the_models_is_refused(model, tmp_path):
    with pytest.raises(ExportError, match="has no tokenizer.json"):
        export_causal_lm(model, 32, tokenizer_dir=tmp_path)
    Tokenizer(models.WordLevel({"a": 0, "b": 500}, unk_token="a")).save(str(tmp_path / "tokenizer.json"))
    with pytest.raises(ExportError, match="has token ids up to 500, but the model's vocabulary has 128 rows"):
        export_causal_lm(model, 32, tokenizer_dir=tmp_path)


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(ExportError, match="is not a Hugging Face model folder: it has no config.json"):
        load_hf_model(tmp_path)


def _run(capsys, *args):
    flags.FLAGS.unparse_flags()
    status = cli.main(flags.FLAGS(["export", *args], known_only=False))
    return status, capsys.readouterr().err


@pytest.mark.parametrize("args, status, message", [
    (["--hf_model=DIR", "--model=pteforge.program.testing_models:make_cache"], 2, "give one of --model"),
    (["--max_seq_len=64", "--model=pteforge.program.testing_models:make_cache"], 2, "--max_seq_len is for --hf_causal_lm"),
    (["--hf_model=DIR", "--model_args=a=b"], 2, "--model_args is for --model factories"),
    (["--hf_model=DIR", "--quantize=int8"], 2, "--quantize=int8 needs --backend=xnnpack"),
    (["--hf_model=DIR", "--quantize=int4"], 2, "--quantize=int4 needs --backend=xnnpack"),
    (["--hf_model=DIR/missing"], 2, "no such folder or file"),
    (["--hf_model=DIR"], 1, "is not a Hugging Face model folder"),
    # The flag's name since GGUF files: the same export.
    (["--hf_causal_lm=DIR"], 1, "is not a Hugging Face model folder"),
    (["--hf_causal_lm=DIR/notes.txt"], 1, "is not a GGUF file: it starts with b'note', not b'GGUF'"),
    (["--hf_causal_lm=DIR/cut.gguf"], 1, "is truncated or damaged"),
])
def test_command_line_refusals(tmp_path, capsys, args, status, message):
    (tmp_path / "notes.txt").write_text("notes, not a model")
    (tmp_path / "cut.gguf").write_bytes(b"GGUF\x03\x00\x00")
    args = [arg.replace("DIR", str(tmp_path)) for arg in args]
    code, err = _run(capsys, *args, f"--out={tmp_path / 'm.pte'}")
    assert code == status and message in err, err
    assert not os.path.exists(tmp_path / "m.pte")


if __name__ == "__main__":
    testing.main(__file__)
