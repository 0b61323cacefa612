"""A CTranslate2 Whisper model's variables as a transformers WhisperForConditionalGeneration
state dict: the inverse of CTranslate2's WhisperLoader (python/ctranslate2/converters/
transformers.py, on BartLoader's attention and layer handling).

What the converter did, undone here:
  - self-attention q, k and v are fused row-wise into `linear_0` (and their biases, the
    key's a zero vector: transformers' k_proj has no bias); cross-attention `linear_0` is
    q and `linear_1` is k and v fused; `linear_1` / `linear_2` is the output projection;
  - layer norms are gamma / beta, the position tables `encodings`;
  - the output projection, tied to the token embeddings, is an alias of them;
  - weights may be stored as float16 / bfloat16 (made float32 here) or quantized, int8
    with one scale per output row or int16 with one scale (`<name>_scale`: dequantized).

Every variable is accounted for: a weight maps to a parameter, a scalar must equal what
transformers' Whisper does (GELU, pre-norm, no embedding scale, ...), and anything else is
an error naming the variable; so is a parameter no variable gave.
"""

from __future__ import annotations

import dataclasses
import re

import torch

from models.whisper.model_file import ModelFile

SPEC = "WhisperSpec"
# WhisperSpec.revision in CTranslate2 3.x and 4.x.
REVISION = 3
_GELU = 3  # ctranslate2.specs.common_spec.Activation.GELU

# Structural scalars and the values transformers' Whisper has. decoder/alignment_heads
# and decoder/alignment_layer are CTranslate2's defaults for returning attention, not
# Whisper's alignment heads (those are in config.json): any value is accepted.
_SCALARS = {
    "decoder/activation": _GELU,
    "decoder/pre_norm": 1,
    "decoder/scale_embeddings": 0,
    "decoder/alibi": 0,
    "decoder/start_from_zero_embedding": 0,
}
_IGNORED_SCALARS = ("decoder/alignment_heads", "decoder/alignment_layer")
# Written by newer CTranslate2 versions only (4.x, not the 3.x of faster-whisper's models).
_OPTIONAL_SCALARS = {
    "decoder/alibi_use_positive_positions": 0,
    "decoder/scale_alibi": 0,
}


class WeightsError(ValueError):
    """The variables are not a Whisper model's as this reader knows it."""


@dataclasses.dataclass(frozen=True)
class Dimensions:
    """What WhisperConfig needs, read from the variables' shapes and scalars."""

    num_mel_bins: int
    d_model: int
    encoder_layers: int
    decoder_layers: int
    encoder_attention_heads: int
    decoder_attention_heads: int
    encoder_ffn_dim: int
    decoder_ffn_dim: int
    max_source_positions: int
    max_target_positions: int
    vocab_size: int
    tied_output: bool


def _float(model: ModelFile, name: str) -> torch.Tensor:
    """A weight as float32, dequantized when it has a scale."""
    tensor = model.resolve(name)
    # An alias repeats its target's tensor, quantized or not, and so its scale.
    scale = model.variables.get(model.aliases.get(name, name) + "_scale")
    if scale is None:
        if not tensor.is_floating_point():
            raise WeightsError(f"{model.path}: {name} is {tensor.dtype} without a {name}_scale to dequantize it")
        return tensor.float()
    if tensor.dtype == torch.int8:  # one scale per output row: value = q / scale
        return tensor.float() / scale.float().reshape(-1, *([1] * (tensor.dim() - 1)))
    if tensor.dtype == torch.int16:  # one scale for the whole tensor
        return tensor.float() / scale.float()
    raise WeightsError(f"{model.path}: {name} has a scale but is {tensor.dtype}; CTranslate2 quantizes to int8 or "
                       "int16 only")


class _Mapping:
    """Builds the state dict, recording which variables were used."""

    def __init__(self, model: ModelFile):
        self.model, self.state, self.used = model, {}, set()

    def take(self, name: str) -> torch.Tensor:
        if name not in self.model.variables and name not in self.model.aliases:
            raise WeightsError(f"{self.model.path}: the variable {name} is missing (not a complete Whisper model)")
        self.used.update({name, name + "_scale"})
        return _float(self.model, name)

    def put(self, target: str, tensor: torch.Tensor) -> None:
        self.state[target] = tensor.contiguous()

    def linear(self, source: str, target: str) -> None:
        self.put(f"{target}.weight", self.take(f"{source}/weight"))
        self.put(f"{target}.bias", self.take(f"{source}/bias"))

    def fused(self, source: str, targets: list[str]) -> None:
        """A fused projection split row-wise into equal parts; the key's bias (zero) is dropped."""
        weight, bias = self.take(f"{source}/weight"), self.take(f"{source}/bias")
        parts = len(targets)
        if weight.shape[0] % parts or bias.shape[0] != weight.shape[0]:
            raise WeightsError(f"{self.model.path}: {source} has {weight.shape[0]} rows and {bias.shape[0]} biases, "
                               f"not {parts} equal fused projections")
        for target, w, b in zip(targets, weight.chunk(parts), bias.chunk(parts)):
            self.put(f"{target}.weight", w)
            if target.endswith("k_proj"):
                if torch.count_nonzero(b):
                    raise WeightsError(f"{self.model.path}: {source} has a nonzero key bias; transformers' Whisper "
                                       "key projections have none")
            else:
                self.put(f"{target}.bias", b)

    def layer_norm(self, source: str, target: str) -> None:
        self.put(f"{target}.weight", self.take(f"{source}/gamma"))
        self.put(f"{target}.bias", self.take(f"{source}/beta"))


def _layers(model: ModelFile, stack: str) -> int:
    pattern = re.compile(rf"{stack}/layer_(\d+)/")
    indices = {int(m.group(1)) for name in model.variables if (m := pattern.match(name))}
    if indices != set(range(len(indices))) or not indices:
        raise WeightsError(f"{model.path}: the {stack}'s layers are {sorted(indices)}, not 0 to n-1")
    return len(indices)


def _scalar(model: ModelFile, name: str) -> int:
    if name not in model.variables:
        raise WeightsError(f"{model.path}: the variable {name} is missing (not a complete Whisper model)")
    value = model.variables[name]
    if value.dim() != 0:
        raise WeightsError(f"{model.path}: {name} should be a scalar, not {list(value.shape)}")
    return int(value.item())


def _check_spec(model: ModelFile) -> None:
    if model.spec != SPEC:
        raise WeightsError(f"{model.path}: the model is a {model.spec}, not a {SPEC} (this reader reads Whisper "
                           "models only)")
    if model.revision != REVISION:
        raise WeightsError(f"{model.path}: {SPEC} revision {model.revision}; this reader knows revision {REVISION} "
                           "(the variables' layout differs between revisions)")


def _attention(m: _Mapping, source: str, target: str, cross: bool) -> None:
    if cross:
        m.linear(f"{source}/linear_0", f"{target}.q_proj")
        m.fused(f"{source}/linear_1", [f"{target}.k_proj", f"{target}.v_proj"])
        m.linear(f"{source}/linear_2", f"{target}.out_proj")
    else:
        m.fused(f"{source}/linear_0", [f"{target}.q_proj", f"{target}.k_proj", f"{target}.v_proj"])
        m.linear(f"{source}/linear_1", f"{target}.out_proj")


def _stack(m: _Mapping, stack: str, layers: int) -> None:
    target_stack = f"model.{stack}"
    m.layer_norm(f"{stack}/layer_norm", f"{target_stack}.layer_norm")
    m.put(f"{target_stack}.embed_positions.weight", m.take(f"{stack}/position_encodings/encodings"))
    for i in range(layers):
        source, target = f"{stack}/layer_{i}", f"{target_stack}.layers.{i}"
        _attention(m, f"{source}/self_attention", f"{target}.self_attn", cross=False)
        m.layer_norm(f"{source}/self_attention/layer_norm", f"{target}.self_attn_layer_norm")
        if stack == "decoder":
            _attention(m, f"{source}/attention", f"{target}.encoder_attn", cross=True)
            m.layer_norm(f"{source}/attention/layer_norm", f"{target}.encoder_attn_layer_norm")
        m.linear(f"{source}/ffn/linear_0", f"{target}.fc1")
        m.linear(f"{source}/ffn/linear_1", f"{target}.fc2")
        m.layer_norm(f"{source}/ffn/layer_norm", f"{target}.final_layer_norm")


def read_weights(model: ModelFile) -> tuple[Dimensions, dict[str, torch.Tensor]]:
    """The model's dimensions and its float32 state dict in transformers' names
    (proj_out.weight only when the output projection is not tied to the embeddings)."""
    _check_spec(model)
    m = _Mapping(model)
    encoder_layers, decoder_layers = _layers(model, "encoder"), _layers(model, "decoder")
    for i in (1, 2):
        m.linear(f"encoder/conv{i}", f"model.encoder.conv{i}")
    _stack(m, "encoder", encoder_layers)
    _stack(m, "decoder", decoder_layers)
    m.put("model.decoder.embed_tokens.weight", m.take("decoder/embeddings/weight"))
    if "decoder/projection/bias" in model.variables:
        raise WeightsError(f"{model.path}: decoder/projection/bias is set; transformers' Whisper output projection "
                           "has no bias")
    projection = m.take("decoder/projection/weight")
    tied = torch.equal(projection, m.state["model.decoder.embed_tokens.weight"])
    if not tied:
        m.put("proj_out.weight", projection)
    present = {name: value for name, value in _OPTIONAL_SCALARS.items() if name in model.variables}
    for name, expected in {**_SCALARS, **present}.items():
        m.used.add(name)
        if _scalar(model, name) != expected:
            raise WeightsError(f"{model.path}: {name} is {_scalar(model, name)}; transformers' Whisper has "
                               f"{expected}")
    heads = {stack: _scalar(model, f"{stack}/num_heads") for stack in ("encoder", "decoder")}
    m.used.update(("encoder/num_heads", "decoder/num_heads") + _IGNORED_SCALARS)
    unmapped = sorted(set(model.variables) - m.used) + sorted(set(model.aliases) - m.used)
    if unmapped:
        raise WeightsError(f"{model.path}: {len(unmapped)} variable(s) this reader cannot map to transformers' "
                           f"Whisper: {', '.join(unmapped[:8])}{' ...' if len(unmapped) > 8 else ''}")
    state = m.state
    conv1 = state["model.encoder.conv1.weight"]
    dims = Dimensions(
        num_mel_bins=conv1.shape[1],
        d_model=conv1.shape[0],
        encoder_layers=encoder_layers,
        decoder_layers=decoder_layers,
        encoder_attention_heads=heads["encoder"],
        decoder_attention_heads=heads["decoder"],
        encoder_ffn_dim=state["model.encoder.layers.0.fc1.weight"].shape[0],
        decoder_ffn_dim=state["model.decoder.layers.0.fc1.weight"].shape[0],
        max_source_positions=state["model.encoder.embed_positions.weight"].shape[0],
        max_target_positions=state["model.decoder.embed_positions.weight"].shape[0],
        vocab_size=state["model.decoder.embed_tokens.weight"].shape[0],
        tied_output=tied,
    )
    return dims, state
