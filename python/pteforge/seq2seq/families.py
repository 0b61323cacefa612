"""What pteforge.seq2seq needs to know of each transformers encoder-decoder family, and
nothing more: the decoder's cache geometry, where each layer's attention modules and
cross-attention key and value projections are, what the encoder takes, and how far its
position table reaches.

Everything else (embedding scales, position tables, final_logits_bias, T5's relative
bias and output scaling, tied heads) stays in the model's own forward, which the
exported decode_step calls.
"""

from __future__ import annotations

import dataclasses

from torch import nn

from pteforge.support.errors import ExportError

# transformers model_type values.
# Each one's cached decoder equals its full forward (families_test.py). NLLB's
# checkpoints are M2M100's classes (m2m_100).
_T5 = ("t5", "mt5", "umt5")
SUPPORTED = _T5 + ("bart", "mbart", "plbart", "marian", "m2m_100", "pegasus", "blenderbot", "blenderbot-small",
                   "whisper")


@dataclasses.dataclass(frozen=True)
class Geometry:
    """The decoder's cache: layers x heads x head_dim per position."""

    layers: int
    heads: int
    head_dim: int


@dataclasses.dataclass(frozen=True)
class DecoderLayer:
    """One decoder layer's attention modules (each calls transformers' attention
    interface) and its cross-attention key and value projections (Linear layers whose
    output is [.., heads * head_dim]; no scaling is applied to keys)."""

    self_attention: nn.Module
    cross_attention: nn.Module
    cross_key: nn.Module
    cross_value: nn.Module


def model_type(model: nn.Module) -> str:
    return str(getattr(model.config, "model_type", type(model).__name__))


def is_speech(model: nn.Module) -> bool:
    """Whisper: the encoder takes log-mel features, not token ids, and the decoder gets
    no source mask."""
    return model_type(model) == "whisper"


def check_supported(model: nn.Module) -> None:
    """Raises ExportError naming the reason if pteforge.seq2seq cannot export `model`."""
    from transformers import PreTrainedModel

    kind = type(model).__name__
    if not isinstance(model, PreTrainedModel):
        raise ExportError(f"export_seq2seq_lm needs a transformers PreTrainedModel, got {kind}")
    if not getattr(model.config, "is_encoder_decoder", False):
        raise ExportError(f"{kind} is not an encoder-decoder model; decoder-only causal LMs are exported by "
                          "pteforge.llm (export_causal_lm, pteforge-export --hf_model)")
    if model_type(model) not in SUPPORTED:
        raise ExportError(
            f"{kind} (model_type {model_type(model)!r}) is not supported by pteforge.seq2seq: the families it "
            f"knows are {', '.join(SUPPORTED)}. Another family needs its cross-attention projections and cache "
            "geometry described in pteforge/seq2seq/families.py")
    if model.training:
        raise ExportError(f"{kind} is in training mode; call model.eval() before exporting")


def geometry(model: nn.Module) -> Geometry:
    config = model.config
    if model_type(model) in _T5:
        return Geometry(config.num_decoder_layers, config.num_heads, config.d_kv)
    return Geometry(config.decoder_layers, config.decoder_attention_heads,
                    config.d_model // config.decoder_attention_heads)


def decoder_layers(model: nn.Module) -> list[DecoderLayer]:
    decoder = model.get_decoder()
    if model_type(model) in _T5:
        return [DecoderLayer(block.layer[0].SelfAttention, block.layer[1].EncDecAttention,
                             block.layer[1].EncDecAttention.k, block.layer[1].EncDecAttention.v)
                for block in decoder.block]
    return [DecoderLayer(layer.self_attn, layer.encoder_attn, layer.encoder_attn.k_proj, layer.encoder_attn.v_proj)
            for layer in decoder.layers]


def hidden_size(model: nn.Module) -> int:
    return int(model.config.d_model)


def source_limit(model: nn.Module) -> int | None:
    """The most source positions the encoder takes (None: no limit of its own).
    Whisper's encoder takes exactly this many (2 frames each)."""
    config = model.config
    if is_speech(model):
        return int(config.max_source_positions)
    if model_type(model) in _T5:
        return None  # relative positions
    return int(config.max_position_embeddings)


def target_limit(model: nn.Module) -> int | None:
    """The most decoder positions the model's position table covers (None: no limit).

    M2M100's sinusoidal table would grow past its size in eager PyTorch, which an
    exported program cannot: its limit is the table as it is."""
    config = model.config
    kind = model_type(model)
    if kind in _T5:
        return None
    if kind == "whisper":
        return int(config.max_target_positions)
    if kind == "m2m_100":
        positions = model.get_decoder().embed_positions
        return int(positions.weights.shape[0]) - positions.padding_idx - 1
    return int(config.max_position_embeddings)
