"""The Bergamot "tiny" architecture in eager PyTorch, from a Marian binary model: the
reference the .pte exporter will wrap, checked against the package's native engine.

Transformer encoder (6 layers, post-norm: x = LN(x + sublayer(x))), decoder of 2
layers each SSRU -> cross-attention -> feed-forward (post-norm), dim 256, 8 heads of 32,
FFN 1536 with ReLU, layer-norm eps 1e-6, embeddings Wemb * 16 plus sinusoidal
positions, output logits h @ Wemb^T + b over the shortlist's candidates; greedy, at
most ceil(2.5 x source tokens) steps (../../shared/FINDINGS_MARIAN.md).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from models.bergamot.marian_binary import MarianModel
from models.bergamot.shortlist import Shortlist

DIM, HEADS, EPS = 256, 8, 1e-6
EOS = 0
LENGTH_FACTOR = 2.5


def positions(first: int, count: int, dim: int = DIM) -> torch.Tensor:
    """Marian's sinusoidal signal for positions first..first+count-1: [count, dim],
    sines in the first half, cosines in the second."""
    half = dim // 2
    increment = math.log(10000.0) / (half - 1)
    scales = torch.exp(torch.arange(half, dtype=torch.float32) * -increment)
    angles = torch.arange(first, first + count, dtype=torch.float32)[:, None] * scales[None, :]
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)


class Reference:
    """Greedy translation of one sentence's ids, as the native engine does."""

    def __init__(self, model: MarianModel, shortlist: Shortlist):
        self.w = {name: torch.from_numpy(value) for name, value in model.tensors.items()}
        self.shortlist = shortlist
        # Layer counts from the item names ("encoder_l6_ffn_W1" -> layer 6).
        self.encoder_layers = max(int(n.split("_")[1][1:]) for n in self.w if n.startswith("encoder_l"))
        self.decoder_layers = max(int(n.split("_")[1][1:]) for n in self.w if n.startswith("decoder_l"))

    def _norm(self, x: torch.Tensor, prefix: str) -> torch.Tensor:
        return F.layer_norm(x, (DIM,), self.w[prefix + "_ln_scale"][0], self.w[prefix + "_ln_bias"][0], EPS)

    def _linear(self, x: torch.Tensor, weight: str, bias: str | None) -> torch.Tensor:
        y = x @ self.w[weight]
        return y + self.w[bias][0] if bias else y

    def _attention(self, query: torch.Tensor, memory: torch.Tensor, prefix: str) -> torch.Tensor:
        """query [q, DIM], memory [k, DIM] -> [q, DIM] (no padding: one sentence)."""
        split = lambda x: x.view(x.shape[0], HEADS, DIM // HEADS).transpose(0, 1)  # noqa: E731
        q = split(self._linear(query, prefix + "_Wq", prefix + "_bq")) / math.sqrt(DIM // HEADS)
        k = split(self._linear(memory, prefix + "_Wk", prefix + "_bk"))
        v = split(self._linear(memory, prefix + "_Wv", prefix + "_bv"))
        out = torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v
        return self._linear(out.transpose(0, 1).reshape(query.shape[0], DIM), prefix + "_Wo", prefix + "_bo")

    def _ffn(self, x: torch.Tensor, prefix: str) -> torch.Tensor:
        hidden = torch.relu(self._linear(x, prefix + "_W1", prefix + "_b1"))
        return self._norm(x + self._linear(hidden, prefix + "_W2", prefix + "_b2"), prefix + "_ffn")

    def encode(self, ids: list[int]) -> torch.Tensor:
        x = self.w["Wemb"][torch.tensor(ids)] * math.sqrt(DIM) + positions(0, len(ids))
        for layer in range(1, self.encoder_layers + 1):
            prefix = f"encoder_l{layer}_self"
            x = self._norm(x + self._attention(x, x, prefix), prefix + "_Wo")
            x = self._ffn(x, f"encoder_l{layer}_ffn")
        return x

    def step(self, x: torch.Tensor, states: list[torch.Tensor], encoded: torch.Tensor) -> torch.Tensor:
        """One decoder step on x [1, DIM]; updates `states` (one SSRU cell per layer)."""
        for layer in range(1, self.decoder_layers + 1):
            prefix = f"decoder_l{layer}_rnn"
            forget = torch.sigmoid(self._linear(x, prefix + "_Wf", prefix + "_bf"))
            states[layer - 1] = forget * states[layer - 1] + (1 - forget) * self._linear(x, prefix + "_W", None)
            x = self._norm(torch.relu(states[layer - 1]) + x, prefix + "_ffn")
            prefix = f"decoder_l{layer}_context"
            x = self._norm(x + self._attention(x, encoded, prefix), prefix + "_Wo")
            x = self._ffn(x, f"decoder_l{layer}_ffn")
        return x

    def translate_ids(self, ids: list[int]) -> list[int]:
        """Greedy output ids for source ids (</s> included), without the final </s>."""
        encoded = self.encode(ids)
        candidates = torch.tensor(self.shortlist.candidates(ids))
        weights, bias = self.w["Wemb"][candidates], self.w["decoder_ff_logit_out_b"][0][candidates]
        states = [torch.zeros(1, DIM) for _ in range(self.decoder_layers)]
        output: list[int] = []
        embedding = torch.zeros(1, DIM)  # no start token: a zero vector at position 0
        for t in range(math.ceil(LENGTH_FACTOR * len(ids))):
            hidden = self.step(embedding + positions(t, 1), states, encoded)
            token = int(candidates[int(torch.argmax(hidden @ weights.T + bias))])
            if token == EOS:
                break
            output.append(token)
            embedding = self.w["Wemb"][token][None, :] * math.sqrt(DIM)
        return output
